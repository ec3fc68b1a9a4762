"""The one scenario as pages see it: the shell's store, reading it safely, and its cached topology.

Every page reads the shell's ``dcc.Store`` (id :data:`SCENARIO`) as an
``Input`` and gets its fabric only through :func:`topology_of` (the
scenario's fabric with its breaks applied, cached by
:func:`vizcoll.ui.cache.cached`). A page writes the store through
:func:`store_output` (its parameters, a preset that replaces the scenario, a
link it breaks) and never keeps a fabric of its own.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from dash import Output, ctx, no_update

from vizcoll.errors import TopologyError, VizcollError
from vizcoll.scenario import Scenario
from vizcoll.topology.building import size_limits
from vizcoll.topology.hops import MinHopTable, min_hops
from vizcoll.topology.model import Topology
from vizcoll.ui.cache import cached
from vizcoll.ui.limits import UI_MAX_LINKS, UI_MAX_NODES

__all__ = ["SCENARIO", "DEFAULT_SCENARIO", "scenario_of", "checked", "page_params", "shown_params", "remembered",
           "user_action", "store_output", "topology_of", "hops_of", "fabric_of", "positions_of", "tapped_link",
           "changed"]

SCENARIO = "scenario"
DEFAULT_SCENARIO = Scenario(spec="fat-tree:radix=4,levels=3", broken=["edge0.0[4]-agg0.1[1]"], pattern="grid2d:4x4",
                            params={"topology": {"root": "h0"}})
"""The landing view: a 3-level fat tree of 4-port switches, one broken cable, a 4×4 grid of communicators."""


def scenario_of(data) -> Scenario:
    """The scenario in the store (the default when the store is empty); VizcollError when it is unusable.

    Its fabric is checked through the cache (:func:`fabric_of`): building a paper-scale fabric again for every
    callback that reads the store would cost a tenth of a second each.
    """
    return DEFAULT_SCENARIO if data is None else Scenario.from_dict(data, build=fabric_of)


def page_params(scenario: Scenario, page: str, defaults: dict) -> dict:
    """``defaults`` overridden by the page's stored parameters (unknown keys dropped)."""
    stored = scenario.params.get(page, {})
    return defaults | {key: value for key, value in stored.items() if key in defaults}


def shown_params(scenario: Scenario, page: str, defaults: dict, read: Callable[[dict], dict]) -> dict:
    """The page's parameters for its controls: each stored value that ``read`` refuses replaced by its default.

    Never raises: a forged or outdated stored value shows as the default.
    """
    values = page_params(scenario, page, defaults)
    out = {}
    for key in defaults:
        try:
            out[key] = read(defaults | {key: values[key]})[key]
        except VizcollError:
            out[key] = defaults[key]
    return out


def user_action() -> bool:
    """True when one control changed, as a user's action does.

    A page's layout is inserted under the shell's existing store, so Dash calls
    a page callback that writes the store for every input at once when the page
    appears (``prevent_initial_call`` does not hold there): that is no action.
    """
    return len(ctx.triggered_prop_ids) == 1


def remembered(data, page: str, values: dict):
    """The store with ``values`` merged into ``page``'s parameters, for a control the user changed.

    ``no_update`` on a page load (nothing triggered) or when nothing changed (a
    None value is no change of a parameter not set: both mean the default), so
    that pages loading at once never overwrite each other's parameters, and a
    page shown as it is stored writes nothing (which would call every view of
    the scenario again).
    """
    if not user_action():
        return no_update
    scenario, _ = checked(data)
    stored = scenario.params.get(page, {}) if scenario else {}
    merged = {**stored, **values}
    if scenario is None or _set(stored) == _set(merged):
        return no_update
    return scenario.with_params(page, merged).to_dict(thin=True)


def _set(params: dict) -> dict:
    return {key: value for key, value in params.items() if value is not None}


def changed(new, current):
    """``new`` for an output that differs from what the browser shows (``current``), else ``no_update``."""
    return no_update if new == current else new


def tapped_link(tap_edge) -> str:
    """The ``a[pa]-b[pb]`` label of a link clicked on a cytoscape drawing (the browser's event is checked)."""
    data = tap_edge.get("data") if isinstance(tap_edge, dict) else None
    label = data.get("name") if isinstance(data, dict) else None
    if not isinstance(label, str) or not label or len(label) > 1000:
        raise VizcollError("the browser sent a malformed click on a link")
    return label


def store_output() -> Output:
    """The Output a page callback writes the shared scenario through."""
    return Output(SCENARIO, "data", allow_duplicate=True)


@cached
def _fabric(source: dict) -> Topology:
    with size_limits(UI_MAX_NODES, UI_MAX_LINKS, "the app"):  # a generator refuses before it builds
        return Scenario(**source).fabric()


@cached
def _topology(source: dict) -> Topology:
    scenario = Scenario(**source)
    return scenario.topology(fabric_of(scenario))


@cached
def _hops(source: dict) -> MinHopTable:
    return min_hops(_topology(source))


@cached
def _positions(source: dict) -> np.ndarray:
    scenario = Scenario(**source)
    return scenario.positions(fabric_of(scenario))


def positions_of(scenario: Scenario) -> np.ndarray:
    """Where every drawing of the scenario's fabric puts its nodes (one row per node of :func:`topology_of`):
    :meth:`Scenario.positions`, cached; breaking a link moves nothing."""
    return _positions({**scenario.source_key(), "broken": []})


def topology_of(scenario: Scenario) -> Topology:
    """The scenario's fabric with its breaks applied (communicators and page parameters do not change it)."""
    return _topology(scenario.source_key())


def fabric_of(scenario: Scenario) -> Topology:
    """The scenario's fabric without its breaks (to name links that are broken or missing); built once for
    every set of breaks, and refused over the app's size limits (a file's once read)."""
    topo = _fabric({**scenario.source_key(), "broken": []})
    if topo.n_nodes > UI_MAX_NODES or topo.n_links > UI_MAX_LINKS:
        raise TopologyError(f"this fabric has {topo.n_nodes:,} nodes and {topo.n_links:,} links; the app takes "
                            f"fabrics of up to {UI_MAX_NODES:,} nodes and {UI_MAX_LINKS:,} links (the command line "
                            "computes larger ones)")
    return topo


def hops_of(scenario: Scenario) -> MinHopTable:
    """The min-hop table of the scenario's topology (honouring its broken links)."""
    return _hops(scenario.source_key())


def checked(data) -> tuple[Scenario | None, str]:
    """(scenario, "") or (None, a message) for a store that came from the browser."""
    try:
        return scenario_of(data), ""
    except VizcollError as exc:
        return None, f"⚠ The scenario could not be read: {exc}"
