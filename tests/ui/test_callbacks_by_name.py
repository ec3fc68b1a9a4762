"""Callbacks by name (issue 49): every server callback of the app with more than one output answers by name
through :func:`vizcoll.ui.callbacks.by_name`; none counts or pads its outputs."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from dash import Dash, Input, Output, State, html, no_update

from tests.callback_context import in_callback
from vizcoll.ui.callbacks import answer, by_name

UI = Path(__file__).resolve().parents[2] / "vizcoll" / "ui"


def test_every_callback_of_several_outputs_answers_by_name():
    from vizcoll.ui.app import app

    server = {key: entry["callback"] for key, entry in app.callback_map.items() if "callback" in entry}  # not JS
    positional = [
        key
        for key, run in server.items()
        if key.startswith("..") and not hasattr(getattr(run, "__wrapped__", None), "outputs")
    ]
    assert len(server) > 100
    assert positional == [], f"{len(positional)} callbacks answer by position: {positional[:10]}"


def padded(path: Path) -> list[str]:
    """The lines of ``path`` that pad an answer with ``no_update`` by count, or pick outputs by index."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
            sides = (node.left, node.right)
            if any(isinstance(s, ast.Tuple | ast.List) and "no_update" in ast.unparse(s) for s in sides):
                found.append(f"{path.name}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_no_answer_is_padded_with_no_update_by_count():
    found = [line for path in sorted(UI.rglob("*.py")) for line in padded(path)]
    assert found == []


def test_no_output_list_is_sliced_or_picked_by_index():
    sliced = re.compile(r"\b[A-Z][A-Z_]*(OUTPUTS|VIEWS|RENDERED|ANIMATION|REFRESHED|DRAWING|RUN)\[[^\]]*[:0-9]")
    found = [
        f"{path.name}:{n}: {line.strip()}"
        for path in sorted(UI.rglob("*.py"))
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if sliced.search(line)
    ]
    assert found == []


def tiny_app():
    app = Dash(__name__)
    app.layout = html.Div([html.Div(id="a"), html.Div(id="b"), html.Div(id="c")])
    return app


def test_an_answer_names_what_changes_and_the_rest_stays():
    outputs = {"a": Output("a", "children"), "b": Output("b", "children")}
    assert answer(outputs, {"b": 2}) == {"a": no_update, "b": 2}
    with pytest.raises(KeyError, match="not outputs of this callback: \\['c'\\]"):
        answer(outputs, {"c": 1})


def test_a_scenario_store_that_cannot_be_read_answers_only_the_message():
    outputs = {"text": Output("a", "children"), "message": Output("b", "children")}
    seen = []
    callback = by_name(
        tiny_app(),
        outputs,
        {"scenario": Input("c", "children"), "other": State("a", "children")},
        scenario="scenario",
        message="message",
    )(lambda scenario, other: seen.append(scenario) or {"text": scenario.spec})
    forged = in_callback(callback, "c.children", scenario={"schema": "nope"}, other=None)
    assert forged["text"] is no_update and forged["message"].startswith("⚠ The scenario could not be read")
    assert seen == []
    read = in_callback(callback, "c.children", scenario=None, other=None)  # an empty store: the default scenario
    assert read["text"] == "fat-tree:radix=4,levels=3" and read["message"] is no_update
    with pytest.raises(ValueError, match="names its store input and its message output"):
        by_name(tiny_app(), outputs, {"other": State("a", "children")}, scenario="scenario", message="message")
