"""The command line ``python -m vizcoll`` (run in-process through ``main`` except one subprocess)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from vizcoll import cli
from vizcoll.cli import main
from vizcoll.topology import from_spec
from vizcoll.topology import io as topo_io

ROOT = Path(__file__).resolve().parents[2]


def run(capsys, *argv):
    """Exit status, parsed stdout (or raw text) and stderr of one CLI call."""
    status = main(list(argv))
    out, err = capsys.readouterr()
    try:
        return status, json.loads(out), err
    except json.JSONDecodeError:
        return status, out, err


def test_topo_info_subprocess():
    proc = subprocess.run(
        [sys.executable, "-m", "vizcoll", "topo", "info", "fat-tree:radix=40,levels=3"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    info = json.loads(proc.stdout)
    assert {k: info[k] for k in ("switches", "endpoints", "links", "max_ports")} == {
        "switches": 2000,
        "endpoints": 16000,
        "links": 48000,
        "max_ports": 40,
    }
    assert info["broken_links"] == 0 and info["nodes"] == 18000
    assert info["generator"] == "fat-tree:radix=40,levels=3"


@pytest.mark.parametrize(
    ("spec", "endpoints", "switches"),
    [("torus:30x20x20,hosts=2", 24000, 12000), ("dragonfly:a=18,p=9,h=9", 26406, 2934)],
)
def test_topo_info_paper_topologies(capsys, spec, endpoints, switches):
    status, info, err = run(capsys, "topo", "info", spec)
    assert status == 0 and err == ""
    assert info["endpoints"] == endpoints and info["switches"] == switches


def test_comm_summary(capsys):
    status, out, _ = run(capsys, "comm", "fat-tree:radix=4,levels=2", "--pattern", "grid2d:4x4", "--ppn", "2")
    assert status == 0
    assert out["communicators"] == 8 and out["processes"] == 16
    assert out["sizes"] == {"4": 8}
    assert out["nodes_used"] == 8 and out["pattern"] == "grid2d:4x4"
    assert "members" not in out


def test_comm_list(capsys):
    status, out, _ = run(capsys, "comm", "fat-tree:radix=4,levels=2", "--pattern", "hier:3", "--list")
    assert status == 0
    assert out["members"] == [[0, 1, 2], [3, 4, 5], [6, 7], [0, 3, 6]]
    assert out["rank_node"] == [f"h{i}" for i in range(8)]
    assert out["sizes"] == {"2": 1, "3": 3}


def test_comm_random_order_and_seed(capsys):
    argv = ["comm", "fat-tree:radix=4,levels=2", "--pattern", "random:2", "--order", "random", "--list"]
    _, first, _ = run(capsys, *argv, "--seed", "1")
    _, again, _ = run(capsys, *argv, "--seed", "1")
    _, other, _ = run(capsys, *argv, "--seed", "2")
    assert first == again
    assert sorted(first["rank_node"]) == sorted(f"h{i}" for i in range(8))
    assert (first["rank_node"], first["members"]) != (other["rank_node"], other["members"])


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["comm", "fat-tree:radix=4,levels=2", "--pattern", "grid2d:256x160"],
            "grid2d:256x160 needs 40960 processes but fat-tree:radix=4,levels=2 has 8 end nodes x ppn 1",
        ),
        (["comm", "fat-tree:radix=4,levels=2", "--pattern", "grid2d:4xq"], "a grid dimension in 'grid2d:4xq'"),
        (["comm", "fat-tree:radix=4,levels=2", "--pattern", "hier:2", "--ppn", "0"], "ppn"),
        (["topo", "info", "fat-tree:radix=5"], "radix must be an even number"),
        (["topo", "info", "moebius:3"], "unknown topology 'moebius'"),
    ],
)
def test_user_errors_exit_2_with_one_line(capsys, argv, message):
    status, out, err = run(capsys, *argv)
    assert status == 2 and out == ""
    assert err.startswith("vizcoll: error: ") and message in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_error_in_subprocess_has_no_traceback():
    proc = subprocess.run(
        [sys.executable, "-m", "vizcoll", "comm", "fat-tree:radix=4,levels=2", "--pattern", "nowhere.json"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == "vizcoll: error: cannot read nowhere.json: No such file or directory\n"


def test_bad_usage_exits_2(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["comm", "fat-tree:radix=4,levels=2"])
    assert exc.value.code == 2
    assert "--pattern" in capsys.readouterr().err


def test_a_registered_command_is_available(capsys, monkeypatch):
    def setup(parser):
        parser.add_argument("--times", type=int, default=1)

    monkeypatch.setitem(
        cli.COMMANDS,
        "topo double",
        cli.Command(
            "topo double",
            "twice the end nodes",
            lambda a: {"n": 2 * a.times * len(cli.load_topology(a.spec).endpoints)},
            (cli.add_topology, setup),
        ),
    )
    status, out, _ = run(capsys, "topo", "double", "fat-tree:radix=4,levels=2", "--times", "3")
    assert status == 0 and out == {"n": 48}


# ---------------------------------------------------------------- topo export
@pytest.mark.parametrize("fmt", ["json", "graphml", "ibsim", "ibnetdiscover"])
def test_topo_export_round_trip(capsys, tmp_path, fmt):
    path = tmp_path / f"t.{fmt}"
    status, out, err = run(capsys, "topo", "export", "fat-tree:radix=4,levels=2", "--format", fmt, "-o", str(path))
    assert status == 0, err
    assert out["path"] == str(path) and out["nodes"] == 14 and out["links"] == 16
    back = topo_io.read(str(path))
    assert len(back.endpoints) == 8 and len(back.switches) == 6 and back.n_links == 16
    status, info, _ = run(capsys, "topo", "info", str(path))
    assert status == 0 and info["endpoints"] == 8 and info["links"] == 16


def test_topo_export_to_stdout(capsys):
    status, out, _ = run(capsys, "topo", "export", "fat-tree:radix=4,levels=2", "--format", "json")
    expected = topo_io.dumps(from_spec("fat-tree:radix=4,levels=2"), "json")
    assert status == 0 and out == json.loads(expected)


def test_topo_export_unknown_format(capsys, tmp_path):
    status, _, err = run(
        capsys, "topo", "export", "fat-tree:radix=4,levels=2", "--format", "dot", "-o", str(tmp_path / "t.dot")
    )
    assert status == 2 and "unknown format 'dot'" in err and not (tmp_path / "t.dot").exists()


@pytest.mark.parametrize(
    "name, fmt",
    [
        ("ports.txt", "ibnetdiscover-ports"),
        ("ports-s.txt", "ibnetdiscover-ports"),
        ("iblinkinfo.txt", "iblinkinfo"),
        ("iblinkinfo-l.txt", "iblinkinfo"),
        ("stanzas.txt", "ibnetdiscover"),
    ],
)
def test_topo_info_reads_what_the_real_tools_print_and_says_the_format(capsys, name, fmt):
    path = Path(__file__).resolve().parents[1] / "data" / "cluster" / name
    status, info, _ = run(capsys, "topo", "info", str(path))
    assert status == 0 and (info["switches"], info["endpoints"], info["links"]) == (5, 9, 22)  # cluster.net's
    assert info["format"] == fmt


def test_topo_info_of_a_slurm_topology_conf_with_no_telling_name(capsys, tmp_path):
    path = tmp_path / "upload.txt"  # not topology.conf: the content tells
    path.write_text(
        "# two leaves\tand a root\nSwitchName=s0\tNodes=node[01-04]\nSwitchName=s1  Nodes=node[05-08]\n"
        "SwitchName=root Switches=s[0-1]"
    )
    status, info, _ = run(capsys, "topo", "info", str(path))
    assert status == 0 and (info["switches"], info["endpoints"], info["links"]) == (3, 8, 10)
    assert info["format"] == "slurm"


def test_every_command_group_is_in_the_module_load_imports():
    """A command line imports the one module :data:`vizcoll.commands.MODULES` names for its group (else the module
    named as the group); that module registers the group's commands."""
    from vizcoll import commands

    commands.load_all()
    for name, cmd in commands.COMMANDS.items():
        group = name.partition(" ")[0]
        assert cmd.run.__module__ == f"vizcoll.commands.{commands.MODULES.get(group, group)}", name


def test_kopt_imports_neither_the_barrier_nor_multicast():
    code = (
        "import sys\nfrom vizcoll.cli import build_parser\nbuild_parser(['kopt', '--P', '8'])\n"
        "print(sorted(m for m in ('vizcoll.barrier', 'vizcoll.multicast', 'vizcoll.commands.goal')"
        " if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "[]"


def test_topo_links_lists_the_links_named_like_find(capsys):
    status, out, _ = run(capsys, "topo", "links", "fat-tree:radix=4,levels=3", "--find", "edge0.0 agg", "--limit", "1")
    assert status == 0
    assert out == {
        "query": "edge0.0 agg",
        "total": 2,
        "links": [{"label": "edge0.0[3]-agg0.0[1]", "a": "edge0.0", "b": "agg0.0", "broken": False}],
    }
    status, _, err = run(capsys, "topo", "links", "fat-tree:radix=4,levels=3", "--limit", "-1")
    assert status != 0 and "--limit" in err


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--port", "0"], "argument --port: a port is a number from 1 to 65535, not 0"),
        (["--port", "http"], "argument --port: a port is a number from 1 to 65535, not http"),
        (["--workers", "1000"], "argument --workers: --workers is a number from 1 to 64, not 1000"),
    ],
)
def test_serve_refuses_a_port_or_a_worker_count_out_of_range_before_it_starts(argv, said, capsys):
    with pytest.raises(SystemExit) as stop:
        main(["serve", *argv])
    assert stop.value.code == 2 and said in capsys.readouterr().err
