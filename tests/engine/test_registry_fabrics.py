"""The registries of fabric generators (vizcoll.topology.generators.GENERATORS) and of communication patterns
(vizcoll.comm.patterns.PATTERNS): a toy entry registered once shows in every consumer, and no module outside its
engine package spells a kind as a lookup name or a spec prefix."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import numpy as np
import pytest
from dash import dcc

from tests.callback_context import find_component
from tests.source_scan import docstring_ids
from vizcoll.cli import main
from vizcoll.comm import PATTERNS, compute_nodes, from_lists, parse_pattern, pattern_examples, pattern_help
from vizcoll.comm.patterns import Pattern
from vizcoll.errors import SpecError, VizcollError
from vizcoll.scenario import Scenario
from vizcoll.topology import generators
from vizcoll.topology.building import build, hosts_below, positive, stack_links
from vizcoll.topology.generators import GENERATORS, Generator, from_spec, parse_spec, spec_size
from vizcoll.topology.model import Topology
from vizcoll.ui.models import rails as rails_model
from vizcoll.ui.pages.topology import _model as topology_model
from vizcoll.ui.pages.topology import page as topology_page

PACKAGE = Path(__file__).resolve().parents[2] / "vizcoll"
RING, PAIRS = "ring", "pairs"
BUILT_IN_EXAMPLES = ["fat-tree", "pruned-fat-tree", "sunway-supernode", "torus", "dragonfly", "mesh", "rail-fat-tree"]
BUILT_IN_EXAMPLES += ["empty"]  # the fabric menu, in its order ("grid", the mesh's other name, has no example)


def ring(n: int = 4) -> Topology:
    """The toy generator: ``n`` switches in a ring (port 1 to the next, port 2 from the previous), an end node on
    each one's port 3."""
    positive(n=n)
    switches = np.arange(n)
    _, host_links = hosts_below(switches, 1, 3, n)
    names = [f"sw{i}" for i in range(n)] + [f"h{i}" for i in range(n)]
    return build(
        names,
        np.r_[np.zeros(n), np.ones(n)],
        np.r_[np.full(n, 3), np.ones(n)],
        stack_links((switches, 1, (switches + 1) % n, 2), host_links),
        {"generator": f"ring:n={n}"},
        level=np.r_[np.ones(n), np.zeros(n)],
    )


def pairs(topo: Topology, rest: str, pattern: str, ppn: int, order: str, seed: int):
    """The toy pattern ``pairs:N``: N communicators of two consecutive compute nodes each."""
    names = [topo.names[u] for u in compute_nodes(topo)]
    count = int(rest)
    if not 1 <= count <= len(names) // 2:
        raise SpecError(f"{pattern!r}: at most {len(names) // 2} pairs")
    return from_lists(topo, [names[2 * i : 2 * i + 2] for i in range(count)], label=pattern)


@pytest.fixture
def toys():
    """The toy generator and the toy pattern, registered for one test, then removed."""
    generator = generators.register(Generator(RING, "ring of switches", ring, "ring:n=N", "ring:n=4"))
    pattern = PATTERNS.register(Pattern(PAIRS, "pairs of consecutive end nodes", pairs, "pairs:N", "pairs:2"))
    try:
        yield generator, pattern
    finally:
        generators.unregister(RING)
        PATTERNS.unregister(PAIRS)


def run(capsys, *argv) -> tuple[int, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out + captured.err


def test_a_registered_generator_builds_from_its_spec(toys):
    topo = from_spec("ring:n=4")
    assert (topo.n_nodes, topo.n_links, topo.meta["generator"]) == (8, 8, "ring:n=4")
    assert parse_spec("ring:n=5") == (RING, {"n": 5}) and spec_size("ring:n=5") == (10, 10)
    assert generators.syntax().endswith(", ring:n=N")
    with pytest.raises(SpecError, match=r"ring does not take radix; it takes n"):
        from_spec("ring:radix=4")
    with pytest.raises(SpecError, match=r"choose one of fat-tree, .*, empty, ring \(a topology file"):
        from_spec("moebius:3")


def test_a_registered_generator_is_a_spec_of_the_command_line(toys, capsys):
    status, out = run(capsys, "topo", "info", "ring:n=4")
    info = json.loads(out)
    assert status == 0 and (info["switches"], info["endpoints"], info["generator"]) == (4, 4, "ring:n=4")


def test_a_registered_generator_is_an_example_of_the_topology_page(toys):
    scenario = Scenario(spec="ring:n=4")
    section = topology_page._fabric_section(scenario)
    dropdown = find_component(section, topology_page.TOPO_GENERATOR)
    assert dropdown.options == [*BUILT_IN_EXAMPLES, RING]
    assert dropdown.value == RING and topology_model.example_of(scenario) == RING
    assert find_component(section, topology_page.TOPO_SPEC_HELP).children == "Defaults: ring:n=4"
    chosen = topology_page.scenario_after(topology_page.TOPO_GENERATOR, Scenario(), {"generator": RING})
    assert chosen.spec == "ring:n=4" and chosen.topology().n_nodes == 8
    assert ("ring:n=4", scenario) in topology_page.examples()


def test_a_registered_generator_and_pattern_are_on_the_help_page(toys):
    from app import create_app
    from tests.ui.layouts import walk
    from vizcoll.ui.pages.help import page as help_page

    create_app()
    section = next(c for c, _ in walk(help_page.layout()) if getattr(c, "id", None) == "help-topology")
    assert "ring:n=4" in [link.children for link, _ in walk(section) if isinstance(link, dcc.Link)]
    # the /help page names no pattern kind: its guide's one pattern ("such as grid2d:4x4") is an example


def test_a_registered_pattern_builds_communicators(toys):
    topo = from_spec("torus:3x3")
    comms = parse_pattern("pairs:2", topo)
    assert (len(comms), comms.sizes(), comms.label) == (2, {2: 2}, "pairs:2")
    assert parse_pattern("PAIRS:1", topo).sizes() == {2: 1}  # kinds are read in any case, as the built-in ones
    with pytest.raises(SpecError, match=r"unknown communication pattern 'ring:4'; use grid2d:RxC, .*, pairs:N or a"):
        parse_pattern("ring:4", topo)
    assert Scenario(spec="ring:n=4", pattern="pairs:2").communicators(from_spec("ring:n=4")).sizes() == {2: 2}
    assert rails_model._built_in("pairs:2") == "pairs:2"
    with pytest.raises(VizcollError, match=r"use grid2d, grid3d, random, hier, hosts, pairs"):
        rails_model._built_in("rings:2")


def test_a_registered_pattern_is_a_pattern_of_the_command_line(toys, capsys):
    status, out = run(capsys, "comm", "ring:n=4", "--pattern", "pairs:2")
    assert status == 0 and json.loads(out)["sizes"] == {"2": 2}
    status, out = run(capsys, "barrier", "--topology", "ring:n=4", "--pattern", "pairs:2", "--algo", "ms")
    assert status == 0 and json.loads(out)
    with pytest.raises(SystemExit):
        main(["barrier", "--help"])
    assert "pairs:N or a file" in " ".join(capsys.readouterr().out.split())


def test_a_registered_pattern_is_in_the_comm_commands_help(toys, capsys):
    with pytest.raises(SystemExit):
        main(["comm", "--help"])
    assert "pairs:N or a file" in " ".join(capsys.readouterr().out.split())


def test_a_registered_pattern_is_in_the_topology_pages_placeholder(toys):
    pattern_box = find_component(topology_page._communicators_section(Scenario()), topology_page.TOPO_PATTERN)
    assert (
        pattern_box.placeholder
        == pattern_examples()
        == "grid2d:4x4, random:4,size=4, hier:4, hosts:node[01-16], pairs:2"
    )


def test_the_built_in_texts_are_generated_unchanged():
    assert pattern_help() == (
        "grid2d:RxC, grid3d:AxBxC, random:GROUPS[,size=S][,seed=N], hier:GROUPSIZE, hier:attr=NAME, "
        "hosts:node[01-16] or a file: JSON end-node name lists or a host list (MPI hostfile, machinefile)"
    )
    assert list(topology_model.example_specs()) == BUILT_IN_EXAMPLES
    assert topology_model.spec_help("torus") == "Defaults: torus:4x4x4,hosts=1"
    assert topology_model.spec_help(None) == "A topology read from a file."


def test_a_name_taken_already_is_a_value_error():
    with pytest.raises(ValueError, match="fabric generator 'fat-tree' is registered already"):
        generators.register(Generator("fat-tree", "again", ring, "fat-tree:n=N"))
    with pytest.raises(ValueError, match="communication pattern 'grid2d' is registered already"):
        PATTERNS.register(Pattern("grid2d", "again", pairs, "grid2d:N"))
    assert GENERATORS["fat-tree"].build is generators.fat_tree and PATTERNS["grid2d"].label.startswith("rows")


# ---------------------------------------------------------------- names spelled outside their engine package
WORDS = {
    "empty": "an empty record, figure or communicator of treft/, faults/ and comm/",
    "grid": "the barrier's processor grid and grid communicators (comm/splits.py's 'grid:' labels)",
    "random": "the placement order (vizcoll.comm.ORDERS) and random breaks",
    "hosts": "a generator's parameter (hosts=H) and a GraphML attribute",
}
"""Registered names that are also ordinary words, which the code spells in other senses: the scan skips them."""
PRESET = "a preset: one fabric and its communicators as data (like a file's name), which a new kind need not join"
ALLOWED = {
    "vizcoll/scenario.py": ("DEFAULT_SPEC, the default scenario's fabric", {"fat-tree:radix=4,levels=3"}),
    "vizcoll/ui/store.py": ("DEFAULT_SCENARIO, the landing view", {"fat-tree:radix=4,levels=3", "grid2d:4x4"}),
    "vizcoll/ui/pages/trees/_model.py": (
        PRESET + " (the papers' machines)",
        {
            "fat-tree:radix=4,levels=3",
            "grid2d:4x4",
            "sunway-supernode",
            "pruned-fat-tree:preset=taihulight",
            "fat-tree:radix=64,levels=3",
            "hier:8,procs=65536",
        },
    ),
    "vizcoll/ui/pages/multicast/_model.py": (
        PRESET + " (the keys 'pruned-fat-tree' and 'dragonfly' are the presets' ids, which share links keep)",
        {
            "pruned-fat-tree",
            "pruned-fat-tree:pods=4,leaves=4,hosts=4,spines=4,up=4,paths=4",
            "grid2d:16x8",
            "dragonfly",
            "dragonfly:a=4,p=2,h=2",
            "grid2d:12x6",
            "pruned-fat-tree:preset=taihulight",
            "grid3d:40x32x32",
            "fat-tree:radix=64,levels=3",
            "grid3d:64x32x32",
            "grid2d:1024x64",
        },
    ),
    "vizcoll/ui/pages/barrier/_model.py": (
        "the DLCT paper's grid drawn as a mesh (mesh:RxC); the barrier page's rework of issue 49 owns this file",
        {"mesh", "mesh:"},
    ),
}
"""Files that may spell a kind, with the reason and the constants each may spell."""


def kind_spellings(path: Path, names: set[str]) -> list[str]:
    """The string constants of ``path`` (docstrings left out, f-strings' pieces in) equal to one of ``names`` or
    starting with ``name:`` (a spec or a pattern of that kind)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = docstring_ids(tree)
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
        and (node.value in names or (":" in node.value and node.value.partition(":")[0] in names))
    ]


@pytest.mark.parametrize("package, registry", [("topology", GENERATORS), ("comm", PATTERNS)])
def test_a_kind_is_spelled_only_in_its_engine_package(package, registry):
    """A module outside the package reads the registry (``GENERATORS``, ``PATTERNS``, an entry's fields), so that
    a new kind joins every list; the presets of :data:`ALLOWED` are data, and :data:`WORDS` other meanings."""
    names = set(registry) - set(WORDS)
    assert len(names) >= 3
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        where = str(path.relative_to(PACKAGE.parent))
        spelled = set(kind_spellings(path, names)) - ALLOWED.get(where, ("", set()))[1]
        if path.relative_to(PACKAGE).parts[0] != package and spelled:
            found[where] = spelled
    assert found == {}
    inside = [hit for path in sorted((PACKAGE / package).rglob("*.py")) for hit in kind_spellings(path, names)]
    assert set(inside) >= names  # the scan finds every name where it is spelled: its registration


def test_the_allowed_spellings_have_reasons():
    assert all(reason and spelled for reason, spelled in ALLOWED.values()) and all(WORDS.values())
