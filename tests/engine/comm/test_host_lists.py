"""Communicators from MPI host lists and name lists, on fabrics named by their hosts (the CLI and the engine)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fabrics import REAL_FABRICS
from vizcoll.cli import main
from vizcoll.comm import file_lists, host_lists, parse_pattern
from vizcoll.errors import SpecError
from vizcoll.scenario import Scenario
from vizcoll.topology.io import read

CLUSTER = Path(__file__).resolve().parents[2] / "data" / "cluster"
OPEN_MPI = """# my job
node01 slots=4
node05 slots=2 max_slots=8   # two HCAs: the first one
node06.cluster.example.org slots=1
node02
"""


@pytest.fixture(scope="module")
def cluster():
    return read(CLUSTER / "ports.txt")


def test_an_open_mpi_hostfile_is_one_communicator_of_its_slots(cluster):
    lists = host_lists(cluster, OPEN_MPI, ppn=3)
    assert lists == [["node01"] * 4 + ["node05 mlx5_0"] * 2 + ["node06"] + ["node02"] * 3]  # node02: ppn


HCA2 = "0x0002c9030000b021"  # node05's second HCA (node05 mlx5_1), named by its port GUID


@pytest.mark.parametrize(
    "text",
    [
        f"node01:4\n{HCA2}:2\n",  # MPICH machinefile
        f"node01\nnode01\nNODE01\nnode01\n{HCA2}\n{HCA2}\n",  # PBS nodefile: a host once per core, any case
        f"node01:4,{HCA2}:2\n",  # comma-separated
        f"node01 slots=4\n{HCA2.upper().replace('X', 'x')} slots=2\n",  # Open MPI
    ],
)
def test_machinefiles_nodefiles_and_lists_place_the_same_processes(cluster, text):
    assert host_lists(cluster, text) == [["node01"] * 4 + ["node05 mlx5_1"] * 2]


def test_slurm_hostlists_and_the_hosts_pattern(cluster):
    assert host_lists(cluster, "node[01-04]") == [["node01", "node02", "node03", "node04"]]
    comms = parse_pattern("hosts:node[01-03],node06:2", cluster, ppn=1)
    assert comms.nprocs == 5 and len(comms) == 1
    assert [cluster.names[u] for u in comms.nodes(0).tolist()] == ["node01", "node02", "node03", "node06", "node06"]
    scenario = Scenario(spec="fat-tree:radix=4,levels=2", pattern="hosts:h[0-3] slots=2")
    assert scenario.communicators(scenario.topology()).nprocs == 8  # a scenario's pattern names no file


def test_a_host_the_fabric_lacks_is_named_with_close_names(cluster):
    with pytest.raises(
        SpecError,
        match=r"^job\.hosts, line 3: the fabric has no end node 'node07'; close names: "
        r"node06, node05 mlx5_1, node04$",
    ):
        host_lists(cluster, "node01\n\nnode07 slots=2\n", source="job.hosts")
    with pytest.raises(SpecError, match=r"line 1: the fabric has no end node '10\.1\.2\.3'$"):
        host_lists(cluster, "10.1.2.3:4")
    with pytest.raises(SpecError, match=r"line 1: the fabric has no end node 'leaf-3'"):  # a switch runs nothing
        host_lists(cluster, "leaf-3")


def test_json_name_lists_take_any_name_and_are_written_as_the_fabric_names_them(cluster):
    data = json.dumps({"communicators": [["node01 HCA-1", "NODE02"], ["0x0002c9030000c001", "node06"]]})
    assert file_lists(cluster, data, "comms.json") == [["node01", "node02"], ["node06", "node06"]]
    with pytest.raises(SpecError, match=r"^comms\.json: no node named 'node0254'; close names: .*node02"):
        file_lists(cluster, json.dumps([["node0254"]]), "comms.json")
    assert file_lists(cluster, "node01 slots=2\n", "job.hosts") == [["node01", "node01"]]


def test_the_command_line_reads_a_hostfile_as_the_pattern(tmp_path, capsys):
    hostfile = tmp_path / "hostfile"
    hostfile.write_text(OPEN_MPI)
    status = main(["comm", str(CLUSTER / "stanzas.txt"), "--pattern", str(hostfile), "--ppn", "2", "--list"])
    out = json.loads(capsys.readouterr().out)
    assert status == 0 and out["processes"] == 4 + 2 + 1 + 2 and out["communicators"] == 1
    assert out["rank_node"] == ["node01"] * 4 + ["node05 mlx5_0"] * 2 + ["node06"] + ["node02"] * 2
    hostfile.write_text("node01\nnode99 slots=2\n")
    assert main(["comm", str(CLUSTER / "stanzas.txt"), "--pattern", str(hostfile)]) == 2
    assert "line 2: the fabric has no end node 'node99'" in capsys.readouterr().err


def test_a_hostfile_on_a_real_cluster():
    path = REAL_FABRICS / "loginoff-topo.ibnd"
    if not path.exists():
        pytest.skip("no real fabric files")
    topo = read(path)
    comms = parse_pattern("hosts:stage[98-101]:2,atlas", topo)
    assert comms.nprocs == 9 and [topo.names[u] for u in comms.nodes(0)[-3:]] == ["stage101", "stage101", "atlas"]


def test_the_command_line_takes_name_lists_naming_hosts(tmp_path, capsys):
    lists = tmp_path / "comms.json"
    lists.write_text(json.dumps({"communicators": [["node01", "node02 HCA-1"], ["node06", "0x0002c9030000a790"]]}))
    status = main(["comm", str(CLUSTER / "stanzas.txt"), "--pattern", str(lists), "--list"])
    out = json.loads(capsys.readouterr().out)
    assert status == 0 and out["communicators"] == 2 and out["rank_node"] == ["node01", "node02", "node06", "node03"]
