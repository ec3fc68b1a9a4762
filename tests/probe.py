"""The one fuzz helper of the pages' callbacks (issue 49): every hostile value the browser could send, in place of
each input in turn, gets a ⚠ message or no change, never an exception."""

from __future__ import annotations

import json

from dash import no_update

from tests.callback_context import in_callback

__all__ = ["HOSTILE", "probe", "no_progress", "is_refusal"]

HOSTILE = [
    None,
    True,
    0,
    -1,
    10**18,
    1.5,
    "",
    "abc",
    "/etc/passwd",
    [],
    [None],
    {},
    {"x": 1},
    [[1, 2]],
    {"points": [{}]},
    {"points": [{"customdata": [1, 2, 3]}]},
    {"points": [{"customdata": 99}]},
    {"points": [{"customdata": ["dc", 99]}]},
    ["HC"],
    {"workflow": "HC"},
    {"schema": "vizcoll.scenario/2"},
    {"mode": "full"},
    "x" * 5000,
]
"""What a forged request may carry: wrong types, out-of-range numbers, paths, malformed click events and stores."""


def no_progress(_value) -> None:
    """The ``set_progress`` of a background callback called directly."""


def _text(value) -> str:
    return json.dumps(
        value, sort_keys=True, ensure_ascii=False, default=lambda v: "<no_update>" if v is no_update else repr(v)
    )


def is_refusal(answer: dict, valid: dict) -> bool:
    """Whether ``answer`` (every output by name) refuses a hostile input: it changes nothing, says why with a ⚠
    (or ⏳) message in one of its outputs, or is what the valid input gave (the value was ignored or read as the
    default)."""
    if all(value is no_update for value in answer.values()):
        return True
    text = _text(answer)
    return "⚠" in text or "⏳" in text or text == _text(valid)


def probe(callback, prop_id: str | None, valid: dict, progress: bool = False, hostile=HOSTILE) -> None:
    """``callback`` (a callback of :func:`vizcoll.ui.callbacks.by_name`: keyword inputs in, every output by name
    out), triggered by ``prop_id``, with each input of ``valid`` in turn replaced by every ``hostile`` value, the
    others valid: each answer is a refusal (:func:`is_refusal`), none raises. ``progress``: a background callback,
    given :func:`no_progress` first."""
    first = (no_progress,) if progress else ()
    expected = in_callback(callback, prop_id, *first, **valid)
    for name in valid:
        for value in hostile:
            answer = in_callback(callback, prop_id, *first, **(valid | {name: value}))
            assert is_refusal(answer, expected), f"{callback.__name__}({name}={value!r:.60}) answered {answer!r:.300}"
