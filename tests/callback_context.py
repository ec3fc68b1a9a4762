"""Run a Dash callback body directly, as Dash would after one input changed (for tests/ui)."""

from __future__ import annotations

import contextvars

from dash._callback_context import context_value
from dash._utils import AttributeDict


def in_callback(fn, prop_id: str | None, *args, **kwargs):
    """Call ``fn`` with ``prop_id`` (``"id.prop"``) as the triggering input, in an isolated context."""
    def call():
        triggered = [{"prop_id": prop_id, "value": None}] if prop_id else []
        context_value.set(AttributeDict(triggered_inputs=triggered))
        return fn(*args, **kwargs)
    return contextvars.copy_context().run(call)
