#!/usr/bin/env python3
"""A client of `print-preflight serve` in plain Python (standard library only).

    python3 docs/service-client.py http://127.0.0.1:8080 design.pdf T-SHIRT-M [API_KEY]
    python3 docs/service-client.py http://127.0.0.1:8080 https://example.com/design.pdf T-SHIRT-M [API_KEY]

Uploads the PDF (or has the server download the URL), waits for the check (up to 60 s in the
request, then polling its Location) and prints the check as JSON; exit status 0 pass or warn,
1 fail, 2 error (the problem+json body on stderr). The API key may also come from
PRINT_PREFLIGHT_API_KEY. Answers 429 and 503 are retried after the Retry-After they carry.

As a module: Client(base, key) has check_file, check_url, wait, report_html, preview, delete;
every error answer raises Problem with the parsed problem+json body.
"""
import email.utils
import json
import os
import sys
import time
import urllib.error
import urllib.request
import uuid

RETRIED = (429, 503)


class Problem(Exception):
    """An RFC 9457 answer: .status, .body (dict: type, title, status, detail, code, errors…)."""

    def __init__(self, status, body):
        super().__init__(f"{status} {body.get('code', '')}: {body.get('detail', '')}")
        self.status = status
        self.body = body


def retry_after_seconds(value, now=None):
    """Seconds to wait from a Retry-After header: delta-seconds or an HTTP-date (RFC 9110 10.2.3)."""
    if value is None:
        return None
    value = value.strip()
    if value.isdigit():
        return int(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0, when.timestamp() - (now if now is not None else time.time()))


def quoted(value):
    """A Content-Disposition parameter value: a quoted-string with \\ and " escaped, no line breaks."""
    value = value.replace("\r", " ").replace("\n", " ")
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


class Client:
    def __init__(self, base, key=None, max_wait_retry=120, sleep=time.sleep):
        self.base = base.rstrip("/")
        self.headers = {"Authorization": f"Bearer {key}"} if key else {}
        self.max_wait_retry = max_wait_retry
        self.sleep = sleep

    def _send(self, method, path, data=None, headers=None, raw=False):
        """One request, retried on 429/503 after Retry-After (at most max_wait_retry seconds in all)."""
        waited = 0
        while True:
            req = urllib.request.Request(self.base + path, data=data, headers={**self.headers, **(headers or {})}, method=method)
            try:
                with urllib.request.urlopen(req, timeout=90) as res:
                    body = res.read()
                    return res.status, res.headers, body if raw else (json.loads(body) if body else None)
            except urllib.error.HTTPError as e:
                body = e.read()
                delay = retry_after_seconds(e.headers.get("Retry-After"))
                if e.code in RETRIED and delay is not None and waited + delay <= self.max_wait_retry:
                    self.sleep(delay)
                    waited += delay
                    continue
                try:
                    problem = json.loads(body)
                except ValueError:
                    problem = {"status": e.code, "detail": body.decode("utf-8", "replace")}
                raise Problem(e.code, problem) from None

    def check_file(self, path, sku, name=None, wait=60):
        """Uploads a PDF; returns the check (finished when it finished within `wait` seconds)."""
        boundary = uuid.uuid4().hex
        with open(path, "rb") as f:
            pdf = f.read()
        name = name if name is not None else os.path.basename(path)
        body = (
            f'--{boundary}\r\nContent-Disposition: form-data; name="sku"\r\n\r\n{sku}\r\n'
            f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename={quoted(name)}\r\n"
            "Content-Type: application/pdf\r\n\r\n"
        ).encode("utf-8") + pdf + f"\r\n--{boundary}--\r\n".encode()
        _, _, check = self._send("POST", f"/v1/checks/upload?wait={wait}", body, {"Content-Type": f"multipart/form-data; boundary={boundary}"})
        return check

    def check_url(self, url, sku, wait=60):
        """Has the server download `url` (as the order service would) and check it."""
        body = json.dumps({"url": url, "sku": sku}).encode()
        _, _, check = self._send("POST", f"/v1/checks?wait={wait}", body, {"Content-Type": "application/json"})
        return check

    def get(self, check_id):
        return self._send("GET", f"/v1/checks/{check_id}")[2]

    def wait(self, check, every=1.0, timeout=600):
        """Polls until the check is done or in error."""
        until = time.time() + timeout
        while check["status"] in ("queued", "running"):
            if time.time() > until:
                raise TimeoutError(f"check {check['id']} is still {check['status']}")
            self.sleep(every)
            check = self.get(check["id"])
        return check

    def report_html(self, check_id):
        return self._send("GET", f"/v1/checks/{check_id}/report.html", raw=True)[2].decode("utf-8")

    def preview(self, check_id, page):
        """The page's preview: (content type, bytes)."""
        _, headers, body = self._send("GET", f"/v1/checks/{check_id}/pages/{page}", raw=True)
        return headers.get("Content-Type"), body

    def delete(self, check_id):
        return self._send("DELETE", f"/v1/checks/{check_id}", raw=True)[0]


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    base, source, sku = argv[:3]
    client = Client(base, argv[3] if len(argv) > 3 else os.environ.get("PRINT_PREFLIGHT_API_KEY"))
    try:
        check = client.check_url(source, sku) if source.startswith(("http://", "https://")) else client.check_file(source, sku)
        check = client.wait(check)
    except Problem as p:
        print(json.dumps(p.body, indent=2), file=sys.stderr)
        return 2
    print(json.dumps(check, indent=2))
    if check["status"] == "error":
        return 2
    return 1 if check["verdict"] == "fail" else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
