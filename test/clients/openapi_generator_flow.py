"""The integrator's flow in Python, written against the client that openapi-generator's `python`
generator makes from the server's /openapi.json (openapi-generator.test.ts generates it into a
temporary folder and runs this with Debian's python3). Only the generated package talks to the
server: its API classes, its models, its ApiClient and its ApiException.

argv: GENERATED_DIR BASE_URL API_KEY PDF_PATH SKU SOURCE_URL
prints one JSON object with what each step got.
"""
import json
import sys
import time

sys.path.insert(0, sys.argv[1])
import print_preflight_client as pp_client  # noqa: E402  (the generated package)
from print_preflight_client.rest import ApiException  # noqa: E402

base, key, pdf, sku, source = sys.argv[2:7]
# A tanktop's layers as images by URL (JSON `layers`): the front and the back.
front, back = sys.argv[7:9]


def client(api_key):
    conf = pp_client.Configuration(host=base)
    conf.access_token = api_key
    return pp_client.ApiClient(conf)


api_client = client(key)
checks = pp_client.ChecksApi(api_client)
profiles = pp_client.ProfilesApi(api_client)


class _Body:
    """What the generated ApiClient.deserialize reads: an answer's body."""

    def __init__(self, data):
        self.data = data


def problem(call):
    """Runs `call`, which must fail: the status and the body as the generated Problem model."""
    try:
        call()
    except ApiException as e:
        p = api_client.deserialize(_Body(e.body), "Problem")
        assert isinstance(p, pp_client.Problem), type(p)
        return {
            "status": e.status,
            "contentType": e.headers.get("Content-Type"),
            "problem": p.to_dict(),
        }
    raise AssertionError("the call did not fail")


listing = profiles.list_profiles()

up, up_status, _ = checks.upload_check_with_http_info(pdf, sku=sku)
assert isinstance(up, pp_client.Check)
by_url, url_status, _ = checks.submit_check_with_http_info(
    pp_client.CheckSubmission(url=source, sku=sku, raster=True), wait=0
)

by_layers = checks.submit_check(
    pp_client.CheckSubmission(sku="TANKTOP-M", layers={"front": {"url": front, "fit": "contain"}, "back": {"url": back, "fit": "tile"}}), wait=0
)

done = []
for check_id in (up.id, by_url.id, by_layers.id):
    for tries in range(1200):
        c = checks.get_check(check_id)
        if c.status in ("done", "error"):
            break
        time.sleep(0.2)
    else:
        raise AssertionError("check %s still %s" % (check_id, c.status))
    done.append(c)

first, second, layered = done
html, html_status, html_headers = checks.get_check_report_html_with_http_info(up.id)
preview = checks.get_check_page_preview(up.id, 1, _preload_content=False)
preview_bytes = preview.data
deleted = checks.delete_check_with_http_info(up.id)

after_delete = problem(lambda: checks.get_check(up.id))
unknown_sku = problem(lambda: checks.upload_check(pdf, sku="NO-SUCH-SKU"))
stranger = pp_client.ChecksApi(client("not-a-key-of-this-server"))
wrong_key = problem(lambda: stranger.get_check(by_url.id))
unknown_layer = problem(
    lambda: checks.submit_check(pp_client.CheckSubmission(sku="TANKTOP-M", layers={"front": {"url": front}, "sleeve": {"url": back}}))
)
# An upload sent as JSON, through the generated ApiClient's own call_api.
not_pdf_type = problem(
    lambda: api_client.call_api(
        "/v1/checks/upload",
        "POST",
        header_params={"Content-Type": "application/json", "Accept": "application/json"},
        body={"sku": sku},
        response_type="Check",
        auth_settings=["bearer"],
        _return_http_data_only=True,
    )
)

print(
    json.dumps(
        {
            "profiles": [p["id"] for p in listing],
            "layered": {
                "status": layered.status,
                "fixed": layered.fixed.url if layered.fixed else None,
                "fills": [[l["layer"], l["fill"]] for l in (layered.report.to_dict().get("assembly") or {}).get("layers", [])],
            },
            "unknownLayer": unknown_layer,
            "uploaded": {"status": up_status, "type": type(up).__name__, "check": up.status},
            "submitted": {"status": url_status, "check": by_url.status},
            "first": {
                "type": type(first).__name__,
                "status": first.status,
                "verdict": first.verdict,
                "reportType": type(first.report).__name__,
                "path": first.report.file.path,
                "sku": first.report.sku,
                "findingTypes": sorted({type(f).__name__ for f in first.report.findings}),
                "createdAt": type(first.created_at).__name__,
            },
            "second": {
                "status": second.status,
                "source": second.report.source.url if second.report and second.report.source else None,
            },
            "html": {
                "status": html_status,
                "type": html_headers.get("Content-Type"),
                "doctype": html.lower().startswith("<!doctype html>"),
            },
            "preview": {
                "status": preview.status,
                "type": preview.headers.get("Content-Type"),
                "bytes": len(preview_bytes),
                "riff": preview_bytes[:4] == b"RIFF" and preview_bytes[8:12] == b"WEBP",
            },
            "deleted": deleted[1],
            "afterDelete": after_delete,
            "unknownSku": unknown_sku,
            "wrongKey": wrong_key,
            "notPdfType": not_pdf_type,
        }
    )
)
