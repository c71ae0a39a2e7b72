#!/usr/bin/env python3
"""A client of `print-preflight serve` in plain Python (standard library only).

    python3 docs/service-client.py http://127.0.0.1:8080 design.pdf T-SHIRT-M [API_KEY]

Uploads the PDF, waits up to 60 s for the check (polling its Location when it takes longer) and
prints the check as JSON; exit status 0 pass or warn, 1 fail, 2 error. Errors are problem+json.
"""
import json
import os
import sys
import time
import urllib.error
import urllib.request
import uuid


def request(url, data=None, headers=None):
    req = urllib.request.Request(url, data=data, headers=headers or {}, method="POST" if data is not None else "GET")
    try:
        with urllib.request.urlopen(req, timeout=90) as res:
            return res.status, dict(res.headers), json.load(res)
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), json.load(e)


def main():
    base, path, sku = sys.argv[1:4]
    auth = {"Authorization": f"Bearer {sys.argv[4]}"} if len(sys.argv) > 4 else {}
    boundary = uuid.uuid4().hex
    with open(path, "rb") as f:
        pdf = f.read()
    body = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="sku"\r\n\r\n{sku}\r\n'
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{os.path.basename(path)}"\r\n'
        "Content-Type: application/pdf\r\n\r\n"
    ).encode() + pdf + f"\r\n--{boundary}--\r\n".encode()
    headers = {"Content-Type": f"multipart/form-data; boundary={boundary}", **auth}
    status, res_headers, check = request(f"{base}/v1/checks?wait=60", body, headers)
    if status == 202:
        location = res_headers.get("Location") or res_headers.get("location")
        while check["status"] in ("queued", "running"):
            time.sleep(1)
            status, _, check = request(f"{base}{location}", headers=auth)
    if status >= 400:
        print(json.dumps(check, indent=2), file=sys.stderr)
        return 2
    print(json.dumps(check, indent=2))
    if check["status"] == "error":
        return 2
    return 1 if check["verdict"] == "fail" else 0


if __name__ == "__main__":
    sys.exit(main())
