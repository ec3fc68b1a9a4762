"""The sweep commands on Dask (``--dask``, ``--workers``): a real scheduler and workers give the local JSON."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from vizcoll.cli import main
from vizcoll.commands import cluster

pytest.importorskip("distributed")

ROOT = Path(__file__).resolve().parents[2]
SWEEPS = {
    "barrier-sweep": ["--sizes", "4,6", "--rates", "0,0.3", "--seeds", "2"],
    "reduce-reliability": ["--procs", "24", "--runs", "150", "--size", "1000000", "--seed", "2"],
    "erasure-compare": ["--n", "10", "--k", "6", "--dcs", "5"],  # replication cannot be built; FMEL at 2 D
}
KILLED_SWEEP = ["barrier-sweep", "--sizes", "8,10", "--rates", "0,0.2,0.4", "--seeds", "2", "--algos", "tree,dlct+tree"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_cluster(workers: int) -> tuple[str, list[subprocess.Popen]]:
    """A ``dask scheduler`` and ``workers`` one-thread ``dask worker`` processes on loopback (no nanny, so a
    killed worker stays dead); they stop by themselves if the tests die (idle scheduler, worker lifetime)."""
    from distributed import Client

    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    quiet = {"env": env, "stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    dask = [sys.executable, "-m"]
    procs = [
        subprocess.Popen(
            [
                *dask,
                "distributed.cli.dask_scheduler",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--no-dashboard",
                "--idle-timeout",
                "120s",
            ],
            **quiet,
        )
    ]
    procs += [
        subprocess.Popen(
            [
                *dask,
                "distributed.cli.dask_worker",
                address,
                "--nthreads",
                "1",
                "--no-nanny",
                "--no-dashboard",
                "--lifetime",
                "300s",
                "--death-timeout",
                "20s",
            ],
            **quiet,
        )
        for _ in range(workers)
    ]
    try:
        with Client(address, timeout=30, set_as_default=False) as client:
            client.wait_for_workers(workers, timeout=60)
    except BaseException:
        stop(procs)
        raise
    return address, procs


def stop(procs: list[subprocess.Popen]) -> None:
    for proc in procs:
        proc.kill()
        proc.wait()


@pytest.fixture(scope="module")
def scheduler():
    """The address of a scheduler with two workers, shared by the tests that do not kill one."""
    address, procs = start_cluster(2)
    yield address
    stop(procs)


def run(capsys, argv: list[str]) -> tuple[int, dict, str]:
    status = main(argv)
    out, err = capsys.readouterr()
    return status, json.loads(out) if status == 0 else {}, err


def without_timing(result: dict) -> dict:
    """The JSON minus its timing fields (the FMEL search's seconds)."""
    if (result.get("fmel_search") or {}).get("stats"):
        result["fmel_search"]["stats"].pop("seconds")
    return result


@pytest.mark.parametrize("name", list(SWEEPS))
def test_a_sweep_on_a_dask_scheduler_gives_the_local_json(capsys, scheduler, name):
    _, local, err = run(capsys, [name, *SWEEPS[name]])
    assert err == ""  # the progress bar is silent off a terminal
    status, remote, err = run(capsys, [name, *SWEEPS[name], "--dask", scheduler])
    assert status == 0, err
    dask = remote.pop("dask")
    assert json.dumps(without_timing(remote), sort_keys=True) == json.dumps(without_timing(local), sort_keys=True)
    assert dask["scheduler"] == scheduler and dask["workers"] == 2 and dask["tasks"] > 2
    assert "dask" not in local


def test_a_local_cluster_of_two_workers_gives_the_local_json(capsys):
    argv = ["barrier-sweep", *SWEEPS["barrier-sweep"]]
    _, local, _ = run(capsys, argv)
    status, remote, err = run(capsys, [*argv, "--workers", "2"])
    assert status == 0, err
    dask = remote.pop("dask")
    assert remote == local
    assert dask["scheduler"].startswith("tcp://127.0.0.1:") and dask["workers"] == 2 and dask["tasks"] == 8


def test_a_worker_killed_mid_sweep_changes_nothing(capsys, monkeypatch):
    """After the first task is done, a worker computing another is killed: Dask computes it again elsewhere."""
    from distributed import Client

    _, local, _ = run(capsys, KILLED_SWEEP)
    address, procs = start_cluster(2)
    killed = []
    try:
        with Client(address, set_as_default=False) as watcher:
            pids = watcher.run(os.getpid)

            class KillingBar(cluster.tqdm):
                def update(self, n=1):
                    if not killed:
                        busy = [worker for worker, keys in watcher.processing().items() if keys] or list(pids)
                        killed.append(busy[0])
                        os.kill(pids[busy[0]], signal.SIGKILL)
                    return super().update(n)

            monkeypatch.setattr(cluster, "tqdm", KillingBar)
            status, remote, err = run(capsys, [*KILLED_SWEEP, "--dask", address])
    finally:
        stop(procs)
    assert status == 0, err
    assert killed and remote.pop("dask")["workers"] == 1
    assert remote == local


def test_without_dask_the_options_say_how_to_install_it(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed raises ImportError
    status, _, err = run(capsys, ["barrier-sweep", "--sizes", "4", "--workers", "2"])
    assert status == 2 and err == f"vizcoll: error: --dask and --workers need Dask: {cluster.INSTALL}\n"


def test_an_unreachable_scheduler_is_an_error_within_the_timeout(capsys, monkeypatch):
    monkeypatch.setattr(cluster, "TIMEOUT", 1)
    address = f"tcp://127.0.0.1:{free_port()}"  # nothing listens there
    start = time.monotonic()
    status, _, err = run(capsys, ["erasure-compare", "--n", "6", "--k", "2", "--dcs", "3", "--dask", address])
    assert time.monotonic() - start < 5
    assert status == 2 and err == f"vizcoll: error: could not connect to a Dask scheduler at {address} within 1 s\n"


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (["--workers", "0"], "--workers must be in 1..256, got 0"),
        (["--workers", "257"], "--workers must be in 1..256, got 257"),
        (["--dask", "10.0.0.5:8786"], "--dask takes a scheduler address tcp://HOST:PORT"),
        (["--dask", "tcp://10.0.0.5"], "--dask takes a scheduler address tcp://HOST:PORT"),
        (["--dask", "tcp://10.0.0.5:70000"], "--dask takes a scheduler address tcp://HOST:PORT"),
    ],
)
def test_bad_options_are_clear_errors(capsys, option, message):
    status, _, err = run(capsys, ["reduce-reliability", "--runs", "10", *option])
    assert status == 2 and err.startswith(f"vizcoll: error: {message}")


def test_both_options_at_once_are_refused(capsys):
    with pytest.raises(SystemExit):
        main(["barrier-sweep", "--workers", "2", "--dask", "tcp://127.0.0.1:8786"])
    assert "not allowed with argument" in capsys.readouterr().err
