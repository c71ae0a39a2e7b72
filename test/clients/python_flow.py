"""The service driven from Python through docs/service-client.py, as an integrator would use it.

    /usr/bin/python3 test/clients/python_flow.py BASE KEY PDF URL SKU

Prints one JSON object with what each step saw; test/clients/python.test.ts judges it.
"""
import importlib.util
import json
import os
import sys
import time

spec = importlib.util.spec_from_file_location("service_client", os.path.join(os.path.dirname(__file__), "..", "..", "docs", "service-client.py"))
sc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sc)

base, key, pdf, url, sku, held = sys.argv[1:7]
slept = []
client = sc.Client(base, key, sleep=lambda s: (slept.append(s), time.sleep(s)))
out = {}

# A name that must be quoted: double quotes, a semicolon, a percent sign and non-ASCII letters
# (the server keeps the last path segment, so a backslash is tested in quoted() alone).
name = 'Größe "XL"; 50% cotton.pdf'
# The tenant may run one check and have one waiting (the server under test): a check of a URL the
# test holds runs, the upload waits, and the URL after them is refused until the queue moves.
client.check_url(held, sku, wait=0)
first = client.check_file(pdf, sku, name=name, wait=0)
second = client.check_url(url, sku, wait=0)
out["retriedAfter"] = slept[:]
first = client.wait(first, every=0.2)
second = client.wait(second, every=0.2)
out["first"] = {"status": first["status"], "verdict": first["verdict"], "path": first["report"]["file"]["path"]}
out["second"] = {"status": second["status"], "source": second["report"]["source"]["url"]}
html = client.report_html(first["id"])
out["html"] = {"length": len(html), "doctype": html.lower().startswith("<!doctype html>")}
ctype, image = client.preview(first["id"], 1)
out["preview"] = {"type": ctype, "bytes": len(image)}
out["deleted"] = client.delete(first["id"])
try:
    client.get(first["id"])
    out["afterDelete"] = None
except sc.Problem as p:
    out["afterDelete"] = {"status": p.status, "code": p.body.get("code")}
try:
    client.check_file(pdf, "NO-SUCH-SKU", wait=0)
    out["unknownSku"] = None
except sc.Problem as p:
    out["unknownSku"] = {"status": p.status, "code": p.body.get("code"), "errors": p.body.get("errors")}
out["retryAfterDate"] = round(sc.retry_after_seconds("Wed, 21 Oct 2015 07:28:10 GMT", now=1445412480.0))
out["retryAfterBad"] = sc.retry_after_seconds("soon")
out["quoted"] = sc.quoted('a"b\\c\r\nd')
print(json.dumps(out))
