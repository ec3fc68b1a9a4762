"""A small client of Dash's HTTP protocol: what the browser's renderer does, for load tests and job tests.

:class:`DashClient` loads the page config (the signed ``endId`` that background
jobs are tied to), lists the callbacks, posts a callback as the renderer does,
and runs a background callback to its end: start it, poll its progress until
the result comes, or cancel it.
"""

from __future__ import annotations

import http.cookiejar
import json
import re
import time
import urllib.error
import urllib.parse
import urllib.request

__all__ = ["DashClient", "payload", "cancel_buttons"]


def _outputs(output: str) -> list[dict] | dict:
    parts = output[2:-2].split("...") if output.startswith("..") else [output]
    outs = []
    for part in parts:
        ident, _, prop = part.rpartition(".")
        outs.append({"id": json.loads(ident) if ident.startswith("{") else ident, "property": prop})
    return outs if output.startswith("..") else outs[0]


def _entry(dep: dict, value) -> dict | list:
    ident = dep["id"]
    if ident.startswith("{"):  # an ALL wildcard: a list of concrete components
        pattern = json.loads(ident)
        concrete = {k: ("x" if v == ["ALL"] else v) for k, v in pattern.items()}
        return [{"id": concrete, "property": dep["property"], "value": value}]
    return {"id": ident, "property": dep["property"], "value": value}


def payload(dep: dict, values: dict) -> dict:
    """The request body of callback ``dep``; ``values`` maps ``"id.prop"`` to a value (missing: None); the first
    input counts as the one that changed."""

    def entry(d):
        return _entry(d, values.get(f"{d['id']}.{d['property']}"))

    first = dep["inputs"][0]
    return {
        "output": dep["output"],
        "outputs": _outputs(dep["output"]),
        "inputs": [entry(d) for d in dep["inputs"]],
        "state": [entry(d) for d in dep["state"]],
        "changedPropIds": [f"{first['id']}.{first['property']}"],
    }


def cancel_buttons(dep: dict) -> list[str]:
    """The ids of background callback ``dep``'s Cancel buttons: those its ``running`` enables (the job bars of
    :func:`vizcoll.ui.jobs.background`); Dash answers each with a cancel callback of output ``<id>.id``."""
    running = (dep.get("running") or {}).get("running") or {}
    return [key.rpartition(".")[0] for key, on in running.items() if key.endswith("-cancel.disabled") and on is False]


class DashClient:
    """One browser tab of a Dash app at ``base`` (``http://host:port``); tabs given the same ``cookies`` (a
    :class:`http.cookiejar.CookieJar`) are one browser: one visitor to the app's job pool."""

    def __init__(self, base: str, timeout: float = 60, cookies: http.cookiejar.CookieJar | None = None):
        self.base, self.timeout = base.rstrip("/"), timeout
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar() if cookies is None else cookies)
        )
        page = self._request("GET", "/").decode()
        config = json.loads(
            re.search(r'<script id="_dash-config" type="application/json">(.*?)</script>', page, re.S).group(1)
        )
        self.end_id = config.get("end_id", "")
        self.deps = json.loads(self._request("GET", "/_dash-dependencies"))

    def _request(self, method: str, path: str, body: dict | None = None) -> bytes:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            self.base + path, data=data, method=method, headers={"Content-Type": "application/json"} if data else {}
        )
        with self.opener.open(request, timeout=self.timeout) as response:
            return response.read()

    def callback(self, output_part: str) -> dict:
        """The callback whose output names ``output_part`` (e.g. ``"era-compare.figure"``)."""
        return next(d for d in self.deps if output_part in d["output"])

    def post(self, dep: dict, values: dict, **query) -> dict:
        """One request of callback ``dep``; the answer's JSON (``{}`` for 204)."""
        query = {"endId": self.end_id, **query}
        raw = self._request("POST", "/_dash-update-component?" + urllib.parse.urlencode(query), payload(dep, values))
        return json.loads(raw) if raw else {}

    def cancel(self, dep: dict, handle: dict) -> None:
        """Press the job's Cancel button: the renderer posts the cancel callback with the job's handle."""
        for button in cancel_buttons(dep):
            self.post(self.callback(f"{button}.id"), {}, cancelJob=handle["job"])

    def run_job(
        self, dep: dict, values: dict, poll: float = 0.25, limit: float = 600, cancel_after: float | None = None
    ) -> dict:
        """Run background callback ``dep`` to its end: ``{"response", "progress" (every progress seen),
        "seconds", "cancelled"}``."""
        started = time.monotonic()
        handle = self.post(dep, values)
        seen, cancelled = [], False
        while time.monotonic() - started < limit:
            if cancel_after is not None and time.monotonic() - started > cancel_after and not cancelled:
                self.cancel(dep, handle)
                cancelled = True
            answer = self.post(dep, values, cacheKey=handle["cacheKey"], job=handle["job"])
            if "progress" in answer:
                seen.append(answer["progress"])
            if "response" in answer or not answer or (cancelled and not answer.get("progress")):  # {}: ended, no update
                return {
                    "response": answer.get("response"),
                    "progress": seen,
                    "cancelled": cancelled,
                    "seconds": time.monotonic() - started,
                }
            time.sleep(poll)
        raise TimeoutError(f"the job of {dep['output'][:60]} did not end within {limit} s")
