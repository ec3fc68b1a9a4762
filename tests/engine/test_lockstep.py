"""Two runs on one clock (vizcoll.sim.lockstep): the side-by-side player's steps, each run's position, the parting."""

from __future__ import annotations

import json

import numpy as np
import pytest

from vizcoll.barrier.algorithms import run_barriers
from vizcoll.barrier.network import break_links
from vizcoll.errors import VizcollError
from vizcoll.sim.events import Event
from vizcoll.sim.lockstep import lockstep
from vizcoll.sim.timeline import Timeline
from vizcoll.topology.generators import mesh


def run(times, release_at=None, unit="") -> Timeline:
    events = [Event(t, "send", label=f"message at {t}") for t in times]
    if release_at is not None:
        events.append(Event(release_at, "release", label=f"released at {release_at}"))
    return Timeline(events=sorted(events, key=lambda e: e.t), time_unit=unit)


def test_the_steps_are_both_runs_times_and_each_side_shows_its_last_step_at_or_before_them():
    a, b = run([0, 1], release_at=3), run([0, 2, 3], release_at=5)
    ls = lockstep(a, b, ("A", "B"))
    assert [ls.timeline.time_at(s) for s in range(ls.timeline.n_steps)] == [0, 1, 2, 3, 5]
    assert ls.positions == ([0, 1, 2, 2, 3, 3], [0, 1, 1, 2, 3, 4])
    assert ls.timeline.caption(0) == "A: message at 0; B: message at 0"
    assert ls.timeline.caption(3) == "A: released at 3; B: message at 3"
    assert [(m["step"], m["kinds"]) for m in ls.timeline.key_moments()] == [(3, ["release"]), (4, ["release"])]


def test_they_part_where_one_has_a_key_moment_the_other_has_not():
    a, b = run([0, 1], release_at=3), run([0, 2, 3], release_at=5)
    parting = lockstep(a, b, ("A", "B")).parting
    assert parting["position"] == 4
    assert parting["text"] == "step 4 (t = 3): A first: barrier release; B is still at: message at 3"
    assert lockstep(b, a, ("B", "A")).parting["text"].startswith("step 4 (t = 3): A first: barrier release")


def test_same_key_moments_part_where_the_first_run_ends_and_equal_runs_never_part():
    a, b = run([0, 1], release_at=2), run([0, 1, 4], release_at=2)
    assert lockstep(a, b, ("A", "B")).parting["text"].startswith("step 3 (t = 2): A first: the run ends; B is still")
    assert lockstep(a, a, ("A", "A again")).parting is None


def test_runs_on_other_clocks_or_of_one_name_are_refused():
    with pytest.raises(VizcollError, match="different units"):
        lockstep(run([0], unit="ns"), run([0], unit="ms"), ("A", "B"))
    with pytest.raises(VizcollError, match="choose another run"):
        lockstep(run([0]), run([1]), ("tree", "tree"))


def test_a_dlct_and_a_tree_barrier_on_one_broken_grid_keep_their_own_states():
    topo = mesh((8, 8), neighbors=8, hosts=0)
    break_links(topo, 0.1, 3)
    runs = [run_barriers(topo, algo, barriers=3, record=True)[0] for algo in ("dlct", "tree")]
    ls = lockstep(*runs, ("DLCT", "Tree"))
    axis = np.array([ls.timeline.time_at(s) for s in range(ls.timeline.n_steps)])
    for tl, positions in zip(runs, ls.positions, strict=True):
        own = np.array([tl.time_at(s) for s in range(tl.n_steps)])
        assert positions[-1] == tl.n_steps  # each run plays to its end
        shown = np.array(positions[1:]) - 1  # the own step each side-by-side step shows (-1: the initial state)
        assert (np.where(shown >= 0, own[np.maximum(shown, 0)], -np.inf) <= axis).all()  # never ahead of the clock
        nxt = np.minimum(shown + 1, tl.n_steps - 1)
        assert ((own[nxt] > axis) | (shown == tl.n_steps - 1)).all()  # nor behind it
        assert tl.state_at(int(shown[-1])) == tl.final_state
    assert ls.timeline.n_steps == len(np.unique(np.r_[[r.time_at(s) for r in runs for s in range(r.n_steps)]]))
    releases = {name: [m for m in ls.timeline.key_moments() if m["label"].startswith(name)] for name in ls.names}
    assert all(len(found) == 6 for found in releases.values())  # 3 releases and 3 completions each
    first = {name: found[0]["step"] for name, found in releases.items()}  # each run's first release
    faster = min(first, key=first.get)
    assert first["DLCT"] != first["Tree"]
    assert ls.parting["position"] == first[faster] + 1
    assert ls.parting["text"].split(": ", 1)[1].startswith(f"{faster} first: barrier release;")
    assert json.loads(json.dumps(ls.to_dict()))["run_steps"] == [r.n_steps for r in runs]


def test_the_efi_builds_up_group_by_group_to_the_routings_own_and_the_two_part_where_one_peaks():
    """The FULB-MC paper's teaching example (a pruned fat tree with 4 paths, a 16×8 grid of communicators, 2
    processes per node): MINIHOP-MC-new reaches a largest EFI of 8, FULB-MC 3."""
    from vizcoll.comm import parse_pattern
    from vizcoll.multicast import route_communicators
    from vizcoll.multicast.buildup import efi_at, efi_buildup
    from vizcoll.topology.generators import from_spec

    topo = from_spec("pruned-fat-tree:pods=4,leaves=4,hosts=4,spines=4,up=4,paths=4")
    comms = parse_pattern("grid2d:16x8", topo, ppn=2)
    runs = {algo: route_communicators(topo, comms, algo) for algo in ("minhop-new", "fulb")}
    built = {algo: efi_buildup(topo, result, algo) for algo, result in runs.items()}
    for algo, tl in built.items():
        assert (efi_at(topo, tl, tl.n_steps - 1) == runs[algo].efi).all()
        assert (efi_at(topo, tl, -1) == 0).all()
        peaks = [int(m["label"].rsplit("→ ", 1)[1]) for m in tl.key_moments()]
        assert peaks == list(range(1, int(runs[algo].efi.max()) + 1))  # one key moment per rise of the largest
    assert [tl.summary["max_efi"] for tl in built.values()] == [8, 3]
    ls = lockstep(built["minhop-new"], built["fulb"], ("MINIHOP-MC-new", "FULB-MC"))
    assert ls.positions[0] == ls.positions[1] == list(range(ls.timeline.n_steps + 1))  # one group a step, both
    assert ls.parting["text"].startswith("step 20 (t = 20): MINIHOP-MC-new first: largest EFI rises; FULB-MC")
