"""Reading what the browser sends from page controls (numbers, choices), with messages a user understands."""

from __future__ import annotations

import base64
import math

from vizcoll.errors import VizcollError

__all__ = ["number", "whole", "whole_or", "choice", "decode_upload", "file_name", "text"]


def number(value, name: str, kind=float, low=None, high=None):
    """``value`` as ``kind`` (int or float) within [low, high]; raises VizcollError naming the control (a
    check box's True is no number).

    >>> number("4", "k", int, low=2)
    4
    """
    try:
        result = kind(value)
        if isinstance(value, bool) or not math.isfinite(result) or (kind is int and float(value) != result):
            raise ValueError
    except (TypeError, ValueError, OverflowError):
        raise VizcollError(f"{name} must be {'an integer' if kind is int else 'a number'}, got {value!r}") from None
    if low is not None and result < low:
        raise VizcollError(f"{name} must be at least {low:g}, got {result:g}")
    if high is not None and result > high:
        raise VizcollError(f"{name} must be at most {high:g}, got {result:g}")
    return result


def whole(value, name: str, low: int, high: int) -> int:
    """``value`` as an integer in [low, high]; VizcollError says the range ("must be between ...").

    >>> whole("3", "seed", 0, 9)
    3
    """
    result = number(value, name, int)
    if not low <= result <= high:
        raise VizcollError(f"{name} must be between {low} and {high}, got {result}")
    return result


def whole_or(value, default: int, low: int, high: int) -> int:
    """``value`` as an integer in [low, high], or ``default`` for anything else (for values no user types).

    >>> whole_or("x", 0, 0, 9), whole_or(12, 0, 0, 9), whole_or(4, 0, 0, 9)
    (0, 0, 4)
    """
    try:
        return whole(value, "value", low, high)
    except VizcollError:
        return default


def choice(value, allowed, name: str) -> str:
    """``value`` when it is one of ``allowed`` (a string), else VizcollError listing the choices.

    >>> choice("kary", ("kary", "knomial"), "tree kind")
    'kary'
    """
    if not isinstance(value, str) or value not in allowed:
        raise VizcollError(f"unknown {name} {str(value)[:40]!r}; choose one of {', '.join(allowed)}")
    return value


def decode_upload(contents) -> bytes:
    """The bytes of a ``dcc.Upload`` data URL (checked: it comes from the browser)."""
    if not isinstance(contents, str) or "," not in contents:
        raise VizcollError("the upload is not a file")
    try:
        return base64.b64decode(contents.partition(",")[2], validate=True)
    except ValueError:
        raise VizcollError("the upload is not valid base64 data (the browser sent a damaged file)") from None


def file_name(name) -> str:
    """An upload's file name, ``upload`` when the browser sent none."""
    return name if isinstance(name, str) and name.strip() else "upload"


def text(value) -> str:
    """A text box's value stripped (anything that is not text: empty)."""
    return value.strip() if isinstance(value, str) else ""
