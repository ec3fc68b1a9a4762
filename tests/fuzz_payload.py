"""Callback requests as Dash's renderer builds them, for tests that post to ``/_dash-update-component``."""

from __future__ import annotations

import json
import os

__all__ = ["server_callbacks", "payload"]


def server_callbacks(client) -> list[dict]:
    """The server callbacks of the app behind a Flask test client (``FUZZ_ONLY=a-,b-`` keeps the outputs naming
    one of those prefixes). Pattern-matching callbacks with ``MATCH`` ids need a concrete component: left out."""
    deps = client.get("/_dash-dependencies").get_json()
    only = [p for p in os.environ.get("FUZZ_ONLY", "").split(",") if p]
    return [d for d in deps if not d.get("clientside_function") and "MATCH" not in json.dumps(d)
            and (not only or any(p in d["output"] for p in only))]


def _outputs(output: str) -> list[dict] | dict:
    """The ``outputs`` of the request: a list for a multi-output callback, one dict otherwise (as Dash sends)."""
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


def payload(dep: dict, values: list) -> dict:
    """The request body of callback ``dep`` with ``values`` for its inputs, then its states, the first input
    counted as the one that changed."""
    inputs = [_entry(d, v) for d, v in zip(dep["inputs"], values, strict=False)]
    state = [_entry(d, v) for d, v in zip(dep["state"], values[len(dep["inputs"]):], strict=False)]
    first = dep["inputs"][0]
    return {"output": dep["output"], "outputs": _outputs(dep["output"]), "inputs": inputs, "state": state,
            "changedPropIds": [f"{first['id']}.{first['property']}"]}
