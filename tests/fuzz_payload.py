"""Callback requests as Dash's renderer builds them, for tests that post to ``/_dash-update-component``."""

from __future__ import annotations

import json
import os
import time

import dash

from benchmarks.dash_http import cancel_buttons
from benchmarks.dash_http import payload as named_payload
from vizcoll.ui import shell
from vizcoll.ui.store import DEFAULT_SCENARIO

__all__ = ["server_callbacks", "payload", "layout_components", "default_value", "post"]


def server_callbacks(client) -> list[dict]:
    """The server callbacks of the app behind a Flask test client (``FUZZ_ONLY=a-,b-`` keeps the outputs naming
    one of those prefixes). Pattern-matching callbacks with ``MATCH`` ids need a concrete component: left out."""
    deps = client.get("/_dash-dependencies").get_json()
    only = [p for p in os.environ.get("FUZZ_ONLY", "").split(",") if p]
    return [
        d
        for d in deps
        if not d.get("clientside_function")
        and "MATCH" not in json.dumps(d)
        and (not only or any(p in d["output"] for p in only))
    ]


def payload(dep: dict, values: list) -> dict:
    """The request body of callback ``dep`` with ``values`` for its inputs, then its states, the first input
    counted as the one that changed."""
    slots = dep["inputs"] + dep["state"]
    return named_payload(dep, {f"{d['id']}.{d['property']}": v for d, v in zip(slots, values, strict=False)})


def _components(node, found: dict) -> dict:
    ident = getattr(node, "id", None)
    if isinstance(ident, str):
        found[ident] = node
    children = getattr(node, "children", None)
    for child in children if isinstance(children, list | tuple) else [children]:
        if child is not None and not isinstance(child, str | int | float):
            _components(child, found)
    return found


def layout_components() -> dict:
    """id -> component of every component with an id in the shell and in every page's default layout (the app
    must exist: pages register with it)."""
    found = _components(shell.shell_layout(), {})
    for page in dash.page_registry.values():
        module = __import__(page["module"], fromlist=["body"])
        if hasattr(module, "body") and page["path"] not in ("/", "/not-found-404"):
            _components(module.body(DEFAULT_SCENARIO), found)
    return found


def default_value(found: dict, ident: str, prop: str):
    """What a component holds when its page opens on the default scenario (None when not in a layout)."""
    if ident == "scenario" and prop == "data":
        return DEFAULT_SCENARIO.to_dict()
    return getattr(found.get(ident), prop, None)


def post(client, dep: dict, values: list, job_seconds: float = 600):
    """(status, body text, JSON answer) of callback ``dep``; a background job is followed as the browser polls it,
    for at most ``job_seconds`` (then cancelled: its answer is None)."""
    body = payload(dep, values)
    response = client.post("/_dash-update-component", json=body)
    answer = response.get_json(silent=True)
    if response.status_code != 200 or not (isinstance(answer, dict) and "job" in answer):
        return response.status_code, response.get_data(as_text=True), answer
    handle, started = f"cacheKey={answer['cacheKey']}&job={answer['job']}", time.monotonic()
    while time.monotonic() - started < job_seconds:
        response = client.post(f"/_dash-update-component?{handle}", json=body)
        answer = response.get_json(silent=True) or {}
        if response.status_code != 200 or "response" in answer:
            return response.status_code, response.get_data(as_text=True), answer.get("response")
        time.sleep(0.05)
    _cancel(client, dep, answer.get("job") or handle.split("job=")[1])
    return 200, "", None


def _cancel(client, dep: dict, job: str) -> None:
    """Press the job's Cancel button: Dash's cancel callback (output ``<button>.id``) with ``cancelJob``."""
    deps = {d["output"]: d for d in client.get("/_dash-dependencies").get_json()}
    for button in cancel_buttons(dep):
        client.post(f"/_dash-update-component?cancelJob={job}", json=payload(deps[f"{button}.id"], [1]))
