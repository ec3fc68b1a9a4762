"""Run a Dash callback body directly, as Dash would after one input changed (for tests/ui)."""

from __future__ import annotations

import contextvars

from dash import Dash
from dash._callback_context import context_value
from dash._utils import AttributeDict


def in_callback(fn, prop_id: str | None, *args, trigger_value=None, **kwargs):
    """Call ``fn`` with ``prop_id`` (``"id.prop"``, its new value ``trigger_value``; a list: inputs that changed
    together) as the triggering input, in an isolated context."""

    def call():
        ids = prop_id if isinstance(prop_id, list) else [prop_id] if prop_id else []
        triggered = [{"prop_id": one, "value": trigger_value} for one in ids]
        context_value.set(AttributeDict(triggered_inputs=triggered, updated_props={}))
        return fn(*args, **kwargs)

    return contextvars.copy_context().run(call)


def with_props(fn, *args, **kwargs):
    """``fn(*args, **kwargs)`` in a callback context that nothing triggered: (what it returned, the props it set
    with ``set_props``, by id)."""

    def call():
        context_value.set(AttributeDict(triggered_inputs=[], updated_props={}))
        return fn(*args, **kwargs), context_value.get().updated_props

    return contextvars.copy_context().run(call)


def registered(page) -> dict:
    """Page module ``page``'s callbacks of :func:`~vizcoll.ui.callbacks.by_name` as Dash calls them (keyword inputs
    in, every output by name out; a store read and checked as the page asked), by the name of the page's function,
    from a fresh app the page registered them in."""
    app = Dash(__name__)
    page.register(app)
    found = {}
    for spec in app.callback_map.values():
        callback = getattr(spec.get("callback"), "__wrapped__", None)  # under Dash's own wrapper
        function = getattr(callback, "__wrapped__", None)  # under by_name's
        if function is not None and function is getattr(page, function.__name__, None):
            found[function.__name__] = callback
    return found


class Wiring:
    """Stands for the app: keeps the callbacks :func:`vizcoll.ui.callbacks.by_name` registers, as Dash calls them,
    with their outputs and inputs, by the name of the function (``named[name] = (callback, outputs, inputs)``)."""

    def __init__(self):
        self.named = {}

    def clientside_callback(self, *args, **options):
        pass

    def callback(self, *args, output=None, inputs=None, **options):
        def keep(fn):
            if output is not None:
                self.named[fn.__name__] = (fn, output, inputs)
            return fn

        return keep


def find_component(node, id_: str):
    """The component with id ``id_`` in a layout tree (None when it is not there)."""
    if getattr(node, "id", None) == id_:
        return node
    children = getattr(node, "children", None)
    for child in children if isinstance(children, list | tuple) else [children]:
        found = None if child is None or isinstance(child, str) else find_component(child, id_)
        if found is not None:
            return found
    return None


def paragraphs(component, cls: str) -> list[str]:
    """The texts of the paragraphs of class ``cls`` in ``component``."""
    found = [component.children] if cls in (getattr(component, "className", None) or "").split() else []
    children = getattr(component, "children", None)
    for child in children if isinstance(children, list) else []:
        found += paragraphs(child, cls)
    return found
