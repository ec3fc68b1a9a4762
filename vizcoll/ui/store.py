"""The one scenario as pages see it: the shell's store, reading it safely, and its cached topology.

Every page reads the shell's ``dcc.Store`` (id :data:`SCENARIO`) as an
``Input`` and gets its fabric only through :func:`topology_of` (the
scenario's fabric with its breaks applied, cached by
:func:`vizcoll.ui.cache.cached`). A page writes the store through
:func:`store_output` (its parameters, a preset that replaces the scenario, a
link it breaks) and never keeps a fabric of its own.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Callable

import numpy as np
from dash import Output, ctx, no_update
from flask import has_request_context

from vizcoll.errors import TopologyError, VizcollError
from vizcoll.scenario import Scenario
from vizcoll.topology.building import size_limits
from vizcoll.topology.generators import spec_size
from vizcoll.topology.hops import MinHopTable, min_hops
from vizcoll.topology.model import Topology
from vizcoll.topology.rails import RAIL_GENERATOR
from vizcoll.ui.cache import cached, is_cached
from vizcoll.ui.limits import BUILT_IN_JOB_NODES, UI_MAX_LINKS, UI_MAX_NODES, UI_MAX_RAIL_LINKS, UI_MAX_RAIL_NODES
from vizcoll.ui.pool import in_job

__all__ = [
    "SCENARIO",
    "MESSAGE",
    "DEFAULT_SCENARIO",
    "scenario_of",
    "checked",
    "page_params",
    "shown_params",
    "remembered",
    "user_action",
    "store_output",
    "topology_of",
    "hops_of",
    "fabric_of",
    "positions_of",
    "tapped_link",
    "changed",
    "key_of",
    "plan_source",
    "planned_scenario",
    "FabricPending",
    "app_limits",
    "built_in_job",
    "is_built",
    "scenario_fields",
    "fabric_checked",
]

SCENARIO = "scenario"
MESSAGE = "scenario-message"  # the shell's message line, under the badge
DEFAULT_SCENARIO = Scenario(
    spec="fat-tree:radix=4,levels=3",
    broken=["edge0.0[4]-agg0.1[1]"],
    pattern="grid2d:4x4",
    params={"topology": {"root": "h0"}},
)
"""The landing view: a 3-level fat tree of 4-port switches, one broken cable, a 4×4 grid of communicators."""


def scenario_of(data) -> Scenario:
    """The scenario in the store (the default when the store is empty); VizcollError when it is unusable.

    Its fabric is checked through the cache (:func:`fabric_of`): building a paper-scale fabric again for every
    callback that reads the store would cost a tenth of a second each.
    """
    return DEFAULT_SCENARIO if data is None else Scenario.from_dict(data, build=fabric_of)


def scenario_fields(data) -> Scenario:
    """The scenario in the store, its fields checked but its fabric not built (what a new fabric replaces, or a
    large fabric a background job builds); VizcollError when it is unreadable."""
    return DEFAULT_SCENARIO if data is None else Scenario.from_dict(data, build=lambda _scenario: None)


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


def remembered(data, page: str, values: dict, action: bool | None = None):
    """The store with ``values`` merged into ``page``'s parameters, for a control the user changed (``action``:
    whether a user acted, by default :func:`user_action`; a page whose one click changes two inputs says so).

    ``no_update`` on a page load (nothing triggered) or when nothing changed (a
    None value is no change of a parameter not set: both mean the default), so
    that pages loading at once never overwrite each other's parameters, and a
    page shown as it is stored writes nothing (which would call every view of
    the scenario again). ``data``: the store, or the Scenario a :func:`~vizcoll.ui.callbacks.by_name` callback
    was given.
    """
    if not (user_action() if action is None else action):
        return no_update
    scenario, _ = (data, "") if isinstance(data, Scenario) else checked(data)
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


def plan_source(scenario: Scenario, page: str, params: dict) -> dict:
    """What a page's plan depends on, as a cache key (plain JSON): the fabric with its breaks, the communicators
    and the page's parameters ``params``; :func:`planned_scenario` is the thin scenario it names."""
    return {
        "source": scenario.source_key(),
        "pattern": scenario.pattern,
        "ppn": scenario.ppn,
        "lists": scenario.lists,
        "page": page,
        "params": params,
    }


def planned_scenario(key: dict) -> Scenario:
    """The scenario of a :func:`plan_source` key (its page's parameters only)."""
    scenario = Scenario(**key["source"], pattern=key["pattern"], ppn=key["ppn"], lists=key["lists"])
    return scenario.with_params(key["page"], key["params"])


def key_of(value) -> str:
    """A short key of a plain value, that changes when it does: what a page's store sends the browser in place of
    a plan the server computes (the views' trigger; the views compute the plan again from the scenario)."""
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()[:24]


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


class FabricPending(VizcollError):
    """The scenario's fabric is large and is being built by a background job (:func:`built_in_job`)."""


def app_limits(spec: str) -> tuple[int, int]:
    """The most nodes and links the app takes for a fabric of generator spec ``spec`` ("" for a file): a rail
    fabric's are higher (reasons: :mod:`vizcoll.ui.limits`)."""
    rail = spec.partition(":")[0].strip() == RAIL_GENERATOR
    return (UI_MAX_RAIL_NODES, UI_MAX_RAIL_LINKS) if rail else (UI_MAX_NODES, UI_MAX_LINKS)


@functools.lru_cache(maxsize=256)
def _planned_nodes(spec: str) -> int:
    try:
        with size_limits(*app_limits(spec), "the app"):
            return spec_size(spec)[0]
    except VizcollError:
        return 0  # building it says what is wrong


def built_in_job(scenario: Scenario) -> bool:
    """Whether the scenario's fabric is generated and large enough to be built by a background job (more than
    :data:`~vizcoll.ui.limits.BUILT_IN_JOB_NODES` nodes, read from its spec without building it)."""
    return not scenario.ref and _planned_nodes(scenario.spec) > BUILT_IN_JOB_NODES


def fabric_checked(scenario: Scenario) -> None:
    """:meth:`Scenario.from_dict`'s check of a scenario from a link or a file: its fabric built through the cache; a
    large generated one only sized (the shell's background job builds it)."""
    if not built_in_job(scenario):
        fabric_of(scenario)


def is_built(scenario: Scenario) -> bool:
    """Whether the scenario's fabric is in the cache (this process's or the shared one)."""
    return is_cached(_fabric, _fabric_key(scenario))


def _fabric_key(scenario: Scenario) -> dict:
    return {**scenario.source_key(), "broken": []}


@cached
def _fabric(source: dict) -> Topology:
    with size_limits(*app_limits(source["spec"] if not source["ref"] else ""), "the app"):  # refused before built
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
    """The scenario's fabric with its breaks applied (communicators and page parameters do not change it); the
    fabric itself when nothing is broken (no second copy of a million nodes in the cache)."""
    return _topology(scenario.source_key()) if scenario.broken else fabric_of(scenario)


def fabric_of(scenario: Scenario) -> Topology:
    """The scenario's fabric without its breaks (to name links that are broken or missing); built once for
    every set of breaks, and refused over the app's size limits (a file's once read). In a request, a large
    generated fabric not built yet raises :class:`FabricPending` (a background job builds it: :func:`built_in_job`)."""
    if has_request_context() and not in_job() and built_in_job(scenario) and not is_built(scenario):
        raise FabricPending(
            f"the fabric {scenario.spec} ({_planned_nodes(scenario.spec):,} nodes) is being built "
            "in the background; the page follows once it is ready"
        )
    topo = _fabric(_fabric_key(scenario))
    nodes, links = app_limits(scenario.spec if not scenario.ref else "")
    if topo.n_nodes > nodes or topo.n_links > links:
        raise TopologyError(
            f"this fabric has {topo.n_nodes:,} nodes and {topo.n_links:,} links; the app takes "
            f"fabrics of up to {nodes:,} nodes and {links:,} links (the command line computes "
            "larger ones)"
        )
    return topo


def hops_of(scenario: Scenario) -> MinHopTable:
    """The min-hop table of the scenario's topology (honouring its broken links)."""
    return _hops(scenario.source_key())


def checked(data) -> tuple[Scenario | None, str]:
    """(scenario, "") or (None, a message) for a store that came from the browser."""
    try:
        return scenario_of(data), ""
    except FabricPending as exc:
        return None, f"⏳ {str(exc)[:1].upper()}{str(exc)[1:]}."
    except VizcollError as exc:
        return None, f"⚠ The scenario could not be read: {exc}"
