"""How a page module joins the app: Dash pages, with each page drawn for the shared scenario.

A page module calls :func:`register_page` once, at import::

    def layout(**kwargs) -> html.Div:
        return body(page_scenario(kwargs))

    register_page(__name__, layout, path="/trees", name="Trees", order=2)

and defines ``body(scenario)`` (its layout for one scenario) and
``register(app)`` (its callbacks). Dash's router calls ``layout`` with the
query string's parameters and the values of :data:`ROUTING_INPUTS` (the
app's ``routing_callback_inputs``) as keyword arguments; those values come
last, so a query parameter can never stand in for them, and every other
query parameter is ignored (the browser is untrusted).

:func:`page_scenario` picks the scenario a page is drawn for: the share
link's (the ``#s=...`` fragment, on the first load of a link or when a new
link is opened in the tab) or the shell's store; after "Open scenario…" (the
shell bumps the ``shell-version`` store, which re-runs the router) the store
wins, because the address bar's fragment is then older than the store. The
same answer puts that scenario into the store when the store holds another
(a link opened) or nothing (a new tab: the default scenario), and says in the
shell's message line why a damaged link was not opened. Dash applies those
props before it draws the page, so every callback the page starts reads the
scenario it was drawn for; and one request, not two, opens a link.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping
from contextlib import suppress
from urllib.parse import urlsplit

import dash
from dash import Input, Output, State, ctx, exceptions, html, no_update, set_props
from dash.development.base_component import Component

from vizcoll.errors import VizcollError
from vizcoll.scenario import Scenario
from vizcoll.ui.store import MESSAGE, SCENARIO, FabricPending, fabric_checked, scenario_of

__all__ = [
    "ROUTER",
    "VERSION",
    "PENDING",
    "FRAGMENT_KEY",
    "ROUTING_INPUTS",
    "register_page",
    "page_scenario",
    "page_path",
    "fragment_of",
    "filled",
    "next_version",
]

ROUTER = "_pages_location"  # the dcc.Location inside dash.page_container, the one Dash's router listens to
PENDING = "page-pending"  # a page waiting for its fabric (drawn again once it is built)
VERSION = "shell-version"  # bumped by the shell when a scenario file replaces the scenario: the page is drawn again
FRAGMENT_KEY = "s="
Answers = Iterable[tuple[Mapping[str, Output], Mapping[str, object]]]
"""A page's first views: each callback's outputs and what it returned (see :func:`filled`)."""
ROUTING_INPUTS = {
    "shell_hash": Input(ROUTER, "hash"),  # a new share link opened in the tab draws the page again
    "shell_version": Input(VERSION, "data"),
    "shell_scenario": State(SCENARIO, "data"),
    "shell_href": State(ROUTER, "href"),  # set together with the pathname that triggers the router
}
"""Extra values Dash's router passes to every page's ``layout`` (keyword arguments named by the keys)."""


def register_page(module: str, layout: Callable, **kwargs) -> None:
    """``dash.register_page(module, layout=layout, **kwargs)``, once an app exists.

    Dash imports every page module of ``pages_folder`` when it creates an app,
    and only then may a page register. A page module imported without an app
    (a unit test, a tool) registers nothing. ``nav=False`` keeps a page out of
    the navbar.
    """
    try:
        dash.get_app()
    except exceptions.AppNotFoundError:
        return
    dash.register_page(module, layout=_when_built(layout), **kwargs)


def _when_built(layout: Callable) -> Callable:
    """``layout``, or while the scenario's large fabric is being built (:class:`~vizcoll.ui.store.FabricPending`)
    a line saying so (id :data:`PENDING`): once it is built, the shell bumps ``shell-version`` and the router
    draws the page (:mod:`vizcoll.ui.fabricjob`)."""

    @functools.wraps(layout)
    def page(**kwargs):
        try:
            return layout(**kwargs)
        except FabricPending as exc:
            return html.Div(f"⏳ {str(exc)[:1].upper()}{str(exc)[1:]}.", id=PENDING, className="page info")

    return page


def next_version(version) -> int:
    """The :data:`VERSION` store bumped (the router draws the page again); what is not a count (a forged store)
    counts from 0.

    >>> next_version(3), next_version(None), next_version(True)
    (4, 1, 1)
    """
    whole = isinstance(version, int) and not isinstance(version, bool) and 0 <= version < 10**9
    return (version if whole else 0) + 1


def fragment_of(hash_: str | None) -> str | None:
    """The scenario text of a URL fragment ``#s=...`` (None when the fragment carries none; a player's step after
    it, ``&step=trees-player:12``, is the browser's: ``assets/player.js``).

    >>> fragment_of("#s=eNoLyc9XKE7NS0ktUshIzcnJBwA&step=trees-player:12")
    'eNoLyc9XKE7NS0ktUshIzcnJBwA'
    """
    text = (hash_ if isinstance(hash_, str) else "").lstrip("#").split("&", 1)[0]
    return text[len(FRAGMENT_KEY) :] if text.startswith(FRAGMENT_KEY) else None


def _trigger():
    try:
        return ctx.triggered_id
    except exceptions.MissingCallbackContextException:  # called outside a callback (a test)
        return None


def page_scenario(values: dict) -> Scenario:
    """The scenario a page is drawn for, from the router's keyword arguments (never raises), put into the
    shell's store when it came from the link or the store was empty (see the module's docstring).

    The link's scenario on a first load (its fragment), else the store's; an
    unreadable link or store gives the store's or the default scenario. A
    damaged link leaves a tab's scenario as it is, and the message line says
    why; an unreadable store is not replaced (the shell's badge says why).
    """
    stored = values.get("shell_scenario")
    scenario, linked, message = None, None, ""
    with suppress(VizcollError):  # a large fabric not built yet: the page waits for it (_when_built)
        scenario = Scenario.from_dict(stored, fabric_checked) if stored else None
    fragment = fragment_of(values.get("shell_hash"))
    if fragment and _trigger() != VERSION:
        try:
            scenario = linked = Scenario.from_fragment(fragment, fabric_checked)
        except VizcollError as exc:
            message = f"⚠ The link's scenario could not be opened: {exc}"
    scenario = scenario or scenario_of(None)
    with suppress(exceptions.MissingCallbackContextException):  # outside a callback (a test): nothing to send
        if linked or not stored:
            data = scenario.to_dict(thin=True)
            if data != stored:
                set_props(SCENARIO, {"data": data})
        if message:
            set_props(MESSAGE, {"children": message})
    return scenario


def page_path(values: dict) -> str:
    """The path of the address the router was called for (``/`` when unknown)."""
    href = values.get("shell_href")
    return urlsplit(href if isinstance(href, str) else "").path or "/"


def filled(layout: Component, first_views: Callable[[Scenario], Answers], scenario: Scenario) -> Component:
    """``layout`` with the props its first views' callbacks set: ``first_views(scenario)`` gives each callback's
    outputs and what it returned for the page's scenario, both by name (as :func:`vizcoll.ui.callbacks.by_name`
    registers them; ``no_update`` leaves a prop as it is). Should they fail (:class:`VizcollError`), the page is
    drawn without them and the shell's message line says why: a page's callback that fails changes nothing and says
    so, and so does its first answer.

    A page's ``body`` draws its first views so, in the router's answer, and registers those callbacks with
    ``prevent_initial_call=True`` (a later change of their inputs still runs them): a link then opens in one round
    trip and one update of the page, where the router's answer, the plan's and the views' took three, each
    applied by Dash's renderer across every component of the page. The 1,570-node cluster's link on /trees, in
    a new Chromium: the renderer's store notified its components 581 times instead of 668, and the first frame
    came sooner (two runs, medians of 6, alternated; issue 23; measured: docs/design.md).
    """
    try:
        answers = first_views(scenario)
    except VizcollError as exc:
        with suppress(exceptions.MissingCallbackContextException):
            set_props(MESSAGE, {"children": f"⚠ The page's first views could not be drawn: {exc}"})
        return layout
    values = {}
    for outputs, answer in answers:
        for name, value in answer.items():
            if value is not no_update:
                output = outputs[name]
                values.setdefault(output.component_id, {})[output.component_property] = value
    for component in (layout, *layout._traverse()):
        id_ = getattr(component, "id", None)
        for prop, value in values.get(id_, {}).items() if isinstance(id_, str) else ():
            setattr(component, prop, value)
    return layout
