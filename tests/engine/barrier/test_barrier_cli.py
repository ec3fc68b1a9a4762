"""``python -m vizcoll barrier --topology SPEC --broken LABEL``: the barrier on any fabric, run in-process."""

import json

from vizcoll.barrier.algorithms import run_barriers
from vizcoll.cli import main
from vizcoll.topology.generators import from_spec, mesh

FAT = "fat-tree:radix=4,levels=3"
FAT_BREAK = "edge0.0[4]-agg0.1[1]"


def run(capsys, *argv):
    """Exit status, parsed stdout (None when empty) and stderr of one CLI call."""
    status = main(["barrier", *argv])
    out, err = capsys.readouterr()
    return status, json.loads(out) if out else None, err


def test_a_fat_tree_with_a_broken_link_runs_on_every_end_node(capsys):
    status, out, err = run(capsys, "--topology", FAT, "--broken", FAT_BREAK, "--algo", "ms")
    assert status == 0 and err == ""
    assert out["model"] == "min-hop routes among the end nodes" and out["processors"] == 16
    assert out["broken_links"] == 1 and out["completed"] and out["messages"] == 3 * 2 * 15
    topo = from_spec(FAT)
    topo.set_broken(int(topo.link_id[topo.find_link(FAT_BREAK)]))
    _, figures = run_barriers(topo, "ms", participants=topo.endpoints.tolist(), record=False)
    assert out["time"] == figures["time"] and out["hops"] == figures["hops"]
    # dissemination: N ceil(log2 N) messages per barrier; --broken is repeatable
    status, out, _ = run(
        capsys,
        "--topology",
        FAT,
        "--broken",
        FAT_BREAK,
        "--broken",
        "edge3.1[3]-agg3.0[2]",
        "--algo",
        "dissemination",
        "--barriers",
        "2",
    )
    assert status == 0 and out["broken_links"] == 2 and out["messages"] == 2 * 16 * 4


def test_cutting_an_end_node_off_is_reported_not_an_error(capsys):
    status, out, _ = run(
        capsys, "--topology", "fat-tree:radix=4,levels=2", "--broken", "h0[1]-leaf0[1]", "--algo", "tree"
    )
    assert status == 0 and out["time"] is None and out["dead_ends"] > 0
    assert "cut the network into 2 parts" in out["failure"]


def test_a_mesh_spec_runs_the_papers_grid_model_with_its_breaks(capsys):
    status, out, _ = run(
        capsys, "--topology", "mesh:4x4,neighbors=8,hosts=0", "--broken", "sw0-0[1]-sw0-1[2]", "--algo", "dlct"
    )
    assert status == 0 and out["model"] == "grid" and out["k"] == [[6], [0], [0]] and out["time"] == 1.076
    # the same run through the old options: --size gives the same grid
    topo = mesh((4, 4), neighbors=8, hosts=0)
    topo.set_broken(0)
    assert run_barriers(topo, "dlct", record=False)[1]["time"] == out["time"]
    status, out, _ = run(capsys, "--size", "4", "--broken", "sw0-0[1]-sw0-1[2]", "--algo", "dlct")
    assert status == 0 and out["k"] == [[6], [0], [0]] and out["model"] == "grid"


def test_the_old_options_still_work(capsys):
    status, out, _ = run(capsys, "--size", "4", "--algo", "dlct", "--break-rate", "0.2", "--seed", "1")
    assert status == 0 and out["completed"] and out["processors"] == 16 and out["model"] == "grid"
    status, out, _ = run(capsys, "--algo", "ms")
    assert status == 0 and out["processors"] == 64  # the default 8x8 grid


def test_errors_are_one_line_with_status_2(capsys):
    for argv, words in [
        (("--topology", FAT, "--algo", "dlct"), "DLCT needs a grid of processors"),
        (
            ("--topology", "fat-tree:radix=64,levels=3", "--algo", "dissemination", "--barriers", "20"),
            "20 barriers of dissemination send 20,971,520 messages, more than the simulation's limit",
        ),
        (("--size", "4", "--pattern", "grid2d:2x2"), "give --topology too"),
        (("--topology", FAT, "--pattern", "grid2d:4x4", "--comm", "9", "--algo", "ms"), "communicator 9 does not"),
        (
            ("--topology", FAT, "--broken", "edge0.0[9]-agg0.1[1]", "--algo", "ms"),
            "--broken edge0.0[9]-agg0.1[1]: the fabric has no such link",
        ),
        (("--topology", FAT, "--broken", "edge0.0", "--algo", "ms"), "a link is named like"),
        (("--topology", FAT, "--size", "4", "--algo", "ms"), "give one of them"),
        (("--topology", "mesh:4x4,hosts=0,neighbors=8", "--broken", "sw0-0[9]-sw0-1[2]"), "no such link"),
        (("--topology", "nonsense:3", "--algo", "ms"), "unknown topology"),
    ]:
        status, out, err = run(capsys, *argv)
        assert status == 2 and out is None and words in err and err.count("\n") == 1, (argv, err)
