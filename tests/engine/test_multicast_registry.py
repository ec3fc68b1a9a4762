"""The registry of multicast routing algorithms is the one list: a registered algorithm shows up everywhere.

The toy algorithm mirrors CONTRIBUTING.md's walk-through "add a multicast routing algorithm".
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vizcoll import cli
from vizcoll.comm import parse_pattern
from vizcoll.errors import SpecError, VizcollError
from vizcoll.multicast import communicator_groups, route
from vizcoll.multicast.algorithms import ALGORITHMS, REGISTRY, MulticastAlgorithm, algorithm, register, unregister
from vizcoll.multicast.minhop import minhop_tree
from vizcoll.multicast.state import RoutingState, TreeParts
from vizcoll.scenario import Scenario
from vizcoll.ui.pages.multicast import _model as model
from vizcoll.ui.pages.multicast._views import algo_options

PACKAGE = Path(__file__).resolve().parents[2] / "vizcoll"
SPEC, PATTERN = "fat-tree:radix=4,levels=3", "grid2d:4x4"


def toy_tree(st: RoutingState, root_row: int, members, gid: int) -> TreeParts:
    """The tree of group ``gid`` below the switch ``st.switches[root_row]``."""
    return minhop_tree(st, root_row, members, gid)


@pytest.fixture
def toy():
    """TOY-MC registered for one test, and unregistered after it."""
    entry = register(MulticastAlgorithm("toy", "TOY-MC", toy_tree, description="MINIHOP-MC's trees, renamed"))
    try:
        yield entry
    finally:
        unregister("toy")
    assert "toy" not in ALGORITHMS


def _algo_choices():
    """The choices of ``mcast --algo`` in a freshly built parser."""
    parser = cli.build_parser()
    subparsers = next(a for a in parser._actions if a.dest == "command")  # argparse keeps them private
    return subparsers.choices["mcast"]._option_string_actions["--algo"].choices


def test_a_registered_algorithm_routes_like_its_builder(toy):
    scenario = Scenario(spec=SPEC)
    topo = scenario.topology()
    groups = communicator_groups(parse_pattern(PATTERN, topo))
    mine, reference = route(topo, groups, "toy").to_dict(), route(topo, groups, "minhop").to_dict()
    for result in (mine, reference):
        result.pop("runtime_s"), result.pop("algo")
    assert mine == reference and algorithm("toy") is toy and ALGORITHMS[-1] == "toy"


def test_a_registered_algorithm_is_in_the_cli(toy, capsys, tmp_path):
    assert "toy" in _algo_choices()
    assert cli.main(["mcast", SPEC, "--pattern", PATTERN, "--algo", "toy"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["algo"] == "toy" and out["groups"] == 8
    dump = tmp_path / "opensm.mcfdbs"
    assert cli.main(["mcast", SPEC, "--pattern", PATTERN, "--algo", "minhop", "--dump-mcfdbs", str(dump)]) == 0
    capsys.readouterr()
    assert cli.main(["mcast-import", SPEC, str(dump), "--compare", "toy,minhop"]) == 0
    compared = json.loads(capsys.readouterr().out)["compare"]
    assert compared["toy"] == compared["minhop"] and compared["toy"]["max_efi"] > 0


def test_a_registered_algorithm_is_on_the_page(toy):
    assert {"label": "toy", "value": "toy"} in algo_options(False, b=True)
    assert algo_options(True)[-1] == {"label": "toy", "value": "toy"}
    scenario = Scenario(spec=SPEC)
    topo = scenario.topology()
    assert model.read_params({"a": "toy", "b": "toy"}, scenario, topo, 0) == {
        "a": "toy",
        "b": "toy",
        "part": None,
        "group": None,
        "compare": "",
    }
    stored = scenario.with_params(model.PAGE, {**model.DEFAULTS, "b": "toy"})
    assert model.page_state(stored)[2]["b"] == "toy"  # kept, not replaced by the default


def test_an_unregistered_algorithm_is_refused_everywhere(capsys):
    assert "toy" not in ALGORITHMS and "toy" not in _algo_choices()
    topo = Scenario(spec=SPEC).topology()
    for bad in ("toy", "FULB", "", None):
        with pytest.raises(SpecError, match=r"unknown multicast algorithm .*; choose one of minhop, minhop-new, "):
            route(topo, [[topo.index("h0"), topo.index("h1")]], bad)
    with pytest.raises(SystemExit):
        cli.main(["mcast", SPEC, "--pattern", PATTERN, "--algo", "toy"])
    assert "invalid choice: 'toy'" in capsys.readouterr().err
    with pytest.raises(VizcollError, match="unknown algorithm B 'toy'"):
        model.read_params({"a": "fulb", "b": "toy"}, Scenario(spec=SPEC), topo, 0)
    with pytest.raises(ValueError, match="registered already"):
        register(MulticastAlgorithm("fulb", "FULB-MC again", toy_tree))
    assert REGISTRY["fulb"].label == "FULB-MC"
