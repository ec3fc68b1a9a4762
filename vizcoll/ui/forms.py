"""Reading numbers typed into page controls, with messages a user understands."""

from __future__ import annotations

import math

from vizcoll.errors import VizcollError

__all__ = ["number"]


def number(value, name: str, kind=float, low=None, high=None):
    """``value`` as ``kind`` (int or float) within [low, high]; raises VizcollError naming the control.

    >>> number("4", "k", int, low=2)
    4
    """
    try:
        result = kind(value)
        if not math.isfinite(result) or (kind is int and float(value) != result):
            raise ValueError
    except (TypeError, ValueError, OverflowError):
        raise VizcollError(f"{name} must be {'an integer' if kind is int else 'a number'}, got {value!r}") from None
    if low is not None and result < low:
        raise VizcollError(f"{name} must be at least {low:g}, got {result:g}")
    if high is not None and result > high:
        raise VizcollError(f"{name} must be at most {high:g}, got {result:g}")
    return result
