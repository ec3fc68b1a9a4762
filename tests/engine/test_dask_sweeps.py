"""The sweep commands on Dask (``--dask``, ``--workers``): a real scheduler and workers give the local JSON."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from vizcoll.cli import main
from vizcoll.commands import cluster
from vizcoll.errors import SpecError

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


def dask_env(vizcoll: bool = True) -> dict:
    """This environment with the project folder first on PYTHONPATH, or (``vizcoll=False``) not on it."""
    paths = [path for path in os.environ.get("PYTHONPATH", "").split(os.pathsep) if path]
    paths = [path for path in paths if Path(path).resolve() != ROOT]
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), *paths] if vizcoll else paths)}


def imports_vizcoll(env: dict, cwd: str) -> bool:
    """Whether a Python started in ``cwd`` with ``env`` can import vizcoll."""
    done = subprocess.run([sys.executable, "-c", "import vizcoll"], env=env, cwd=cwd, capture_output=True)
    return done.returncode == 0


def start_cluster(workers: int, vizcoll: bool = True, without: int = 0) -> tuple[str, list[subprocess.Popen]]:
    """A ``dask scheduler`` and ``workers`` one-thread ``dask worker`` processes on loopback (no nanny, so a
    killed worker stays dead); they stop by themselves if the tests die (idle scheduler, worker lifetime).
    ``vizcoll=False`` starts them outside the project folder, without it on PYTHONPATH, and ``without`` more
    workers start so whatever ``vizcoll``."""
    from distributed import Client

    port = free_port()
    address = f"tcp://127.0.0.1:{port}"

    def quiet(vizcoll: bool) -> dict:
        cwd = None if vizcoll else tempfile.gettempdir()  # `python -m` puts its folder on the path
        return {"env": dask_env(vizcoll), "cwd": cwd, "stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}

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
            **quiet(vizcoll),
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
            **quiet(vizcoll and i < workers),
        )
        for i in range(workers + without)
    ]
    try:
        with Client(address, timeout=30, set_as_default=False) as client:
            client.wait_for_workers(workers + without, timeout=60)
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


def test_a_scheduler_that_cannot_import_vizcoll_is_a_one_line_error():
    """A scheduler and worker started outside the project: the command says, in one line, where to install it."""
    if imports_vizcoll(dask_env(vizcoll=False), tempfile.gettempdir()):
        pytest.skip("vizcoll is installed: every process can import it")
    address, procs = start_cluster(1, vizcoll=False)
    command = [sys.executable, "-m", "vizcoll", "barrier-sweep", "--sizes", "4", "--rates", "0", "--dask", address]
    try:
        done = subprocess.run(command, cwd=ROOT, env=dask_env(), capture_output=True, text=True, timeout=60)
    finally:
        stop(procs)
    assert done.returncode == 2 and done.stdout == "" and "Traceback" not in done.stderr
    assert done.stderr == (
        f"vizcoll: error: the Dask cluster at {address} cannot import vizcoll (No module named 'vizcoll'); "
        f"{cluster.ELSEWHERE}\n"
    )


def test_a_worker_that_cannot_import_vizcoll_is_a_one_line_error():
    """A scheduler and a worker with vizcoll, one worker without: before a task is sent, the command names it."""
    from distributed import Client

    if imports_vizcoll(dask_env(vizcoll=False), tempfile.gettempdir()):
        pytest.skip("vizcoll is installed: every process can import it")
    address, procs = start_cluster(1, without=1)
    command = [sys.executable, "-m", "vizcoll", "barrier-sweep", "--sizes", "4", "--rates", "0", "--dask", address]
    try:
        with Client(address, set_as_default=False) as watcher:
            stranger = next(worker for worker, pid in watcher.run(os.getpid).items() if pid == procs[2].pid)
        start = time.monotonic()
        done = subprocess.run(command, cwd=ROOT, env=dask_env(), capture_output=True, text=True, timeout=60)
        seconds = time.monotonic() - start
        with Client(address, set_as_default=False) as watcher:
            workers = len(watcher.nthreads())
    finally:
        stop(procs)
    assert done.returncode == 2 and done.stdout == "" and "Traceback" not in done.stderr
    assert done.stderr == (
        f"vizcoll: error: Dask worker {stranger} of the cluster at {address} cannot import vizcoll "
        f"(No module named 'vizcoll'); {cluster.ELSEWHERE}\n"
    )
    assert seconds < 20 and workers == 2  # no task was sent: the worker is still there


def test_more_than_three_workers_without_vizcoll_are_counted():
    """The message names three workers (in order) and counts the others; a worker that could not answer (an
    exception: it left meanwhile) or found vizcoll (its ModuleSpec) is not named."""

    class Answers:
        def run_on_scheduler(self, function, *args, **kwargs):
            return function(*args)

        def run(self, function, *args, **kwargs):
            found = function(*args)
            return {f"tcp://10.0.0.{i}:1": None for i in range(9, 3, -1)} | {
                "tcp://10.0.0.2:1": OSError(),
                "tcp://10.0.0.3:1": found,
            }

    with pytest.raises(SpecError) as error:
        cluster._find_vizcoll(Answers(), "tcp://10.0.0.1:8786")
    assert str(error.value).startswith(
        "Dask workers tcp://10.0.0.4:1, tcp://10.0.0.5:1, tcp://10.0.0.6:1 and 3 more of the cluster at "
        "tcp://10.0.0.1:8786 cannot import vizcoll (No module named 'vizcoll'); "
    )


def test_workers_that_do_not_answer_are_an_error_within_the_timeout(capsys, monkeypatch):
    """A stopped worker never answers: the command says so after TIMEOUT seconds instead of waiting forever."""
    monkeypatch.setattr(cluster, "TIMEOUT", 1)
    address, procs = start_cluster(1)
    try:
        os.kill(procs[1].pid, signal.SIGSTOP)
        start = time.monotonic()
        status, _, err = run(capsys, ["barrier-sweep", "--sizes", "4", "--rates", "0", "--dask", address])
        seconds = time.monotonic() - start
    finally:
        stop(procs)
    assert status == 2 and seconds < 5
    assert err == f"vizcoll: error: the workers of the Dask scheduler at {address} did not all answer within 1 s\n"


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
