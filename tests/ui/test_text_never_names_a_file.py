"""No text a user types ever names a file on the server.

Every callback that reads a text box (a ``dcc.Input`` or ``dcc.Textarea``
``value``) of any page is posted, through Dash's own HTTP endpoint, each of
``/etc/passwd``, ``file:/etc/hostname`` and ``../../README.md`` with every
other input at its page's default. The answer must hold none of those files'
contents, and must be the same (once the typed text is taken out) as for a
twin path that does not exist: a message that differs would tell a stranger
which files exist on the server.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from dash import dcc

from app import create_app
from tests.fuzz_payload import default_value, layout_components, post, server_callbacks

ROOT = Path(__file__).resolve().parents[2]
PATHS = {
    "/etc/passwd": "/etc/passwd-nowhere",
    "file:/etc/hostname": "file:/etc/hostname-nowhere",
    "../../README.md": "../../README-nowhere.md",
}


def contents() -> list[str]:
    """Distinctive lines of the files typed: none may appear in an answer."""
    found = [line for line in Path("/etc/passwd").read_text().splitlines()[:3] if line]
    found += [Path("/etc/hostname").read_text().strip()] if Path("/etc/hostname").exists() else []
    found += [line for line in (ROOT / "README.md").read_text().splitlines()[:40] if len(line) > 40][:3]
    return [text for text in found if text]


@pytest.fixture(scope="module")
def app_and_layout():
    app = create_app()
    client = app.server.test_client()
    client.get("/")
    return client, layout_components()


def text_boxes(client, found) -> list[tuple[dict, int]]:
    """(callback, index of a text box among its inputs and states) for every text box a callback reads."""
    out = []
    for dep in server_callbacks(client):
        for i, d in enumerate(dep["inputs"] + dep["state"]):
            box = found.get(d["id"])
            if (
                d["property"] == "value"
                and isinstance(box, dcc.Input | dcc.Textarea)
                and getattr(box, "type", "text") in (None, "text")
            ):
                out.append((dep, i))
    return out


def answer(client, dep: dict, values: list, typed: str):
    """The callback's answer (a background job's result) with every occurrence of the typed text replaced by
    ``X`` (204: None)."""
    status, _, answer = post(client, dep, values)
    assert status in (200, 204), (dep["output"], status)
    return _without(answer, typed)


def _without(value, typed: str):
    if isinstance(value, str):
        return value.replace(typed, "X")
    if isinstance(value, list):
        return [_without(v, typed) for v in value]
    if isinstance(value, dict):
        return {k: _without(v, typed) for k, v in value.items()}
    return value


def test_every_text_box_is_tried_and_none_names_a_file(app_and_layout):
    client, found = app_and_layout
    boxes = text_boxes(client, found)
    assert len(boxes) >= 10  # patterns, specs, links, node names, placements, sizes...
    secrets = contents()
    for dep, i in boxes:
        base = [default_value(found, d["id"], d["property"]) for d in dep["inputs"] + dep["state"]]
        for path, twin in PATHS.items():
            typed = answer(client, dep, base[:i] + [path] + base[i + 1 :], path)
            other = answer(client, dep, base[:i] + [twin] + base[i + 1 :], twin)
            leaked = [s for s in secrets if s in json.dumps(typed)]
            assert not leaked, (dep["output"], path, leaked)
            assert typed == other, (dep["output"], path, "the answer tells whether the file exists")
