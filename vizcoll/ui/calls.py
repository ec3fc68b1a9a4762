"""Engine calls the pages share, memoised through :mod:`vizcoll.ui.cache` (keys are JSON of the inputs)."""

from __future__ import annotations

from vizcoll.scenario import Scenario
from vizcoll.topology.hops import MinHopTable, min_hops
from vizcoll.topology.model import Topology
from vizcoll.ui.cache import memo

__all__ = ["topology_of", "hops_of", "fabric", "broken_edits", "parse_broken"]


def _build(scenario_dict: dict) -> Topology:
    return Scenario.from_dict(scenario_dict).build()


def topology_of(scenario: Scenario) -> Topology:
    """The scenario's topology (communicators and view parameters do not change it)."""
    return memo(_build, scenario.to_dict() | {"communicators": {}, "params": {}})


def _hops(scenario_dict: dict) -> MinHopTable:
    return min_hops(_build(scenario_dict))


def hops_of(scenario: Scenario) -> MinHopTable:
    """The min-hop table of the scenario's topology (honouring its broken links)."""
    return memo(_hops, scenario.to_dict() | {"communicators": {}, "params": {}})


def parse_broken(text: str | None) -> list[int]:
    """Link ids from ``"3, 17 42"`` (commas, dots or spaces); raises VizcollError on anything else."""
    from vizcoll.errors import VizcollError

    tokens = (text or "").replace(",", " ").replace(".", " ").split()
    try:
        return sorted({int(t) for t in tokens})
    except ValueError:
        raise VizcollError(f"broken links must be link ids like 3, 17 — got {text!r}") from None


def broken_edits(ids: list[int]) -> list[dict]:
    return [{"op": "toggle_broken", "id": int(i)} for i in ids]


def fabric(spec: str, broken: list[int]) -> Scenario:
    """A scenario of a generator spec (or file) with some links broken; checks that it builds."""
    scenario = Scenario(spec=spec.strip(), edits=broken_edits(broken))
    topology_of(scenario)
    return scenario
