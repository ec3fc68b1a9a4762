"""``--dask ADDRESS`` and ``--workers N``: where a sweep command computes its tasks, with a progress bar.

A sweep (:mod:`vizcoll.tasks`) runs its tasks in this process, one by one,
unless ``--dask tcp://HOST:PORT`` sends them to a running Dask scheduler (its
workers need vizcoll and its packages) or ``--workers N`` to a cluster of
``N`` worker processes on this machine, started for the run. Results come
back in the order of the tasks, so the JSON is the local run's plus
``"dask": {"scheduler", "workers", "tasks"}`` (the workers connected when the
sweep ended). Before the first task, the scheduler and the workers connected
are asked whether they find vizcoll: one that does not (the scheduler unpickles
the tasks, a worker exits at its first) is an error of one line, and so are
workers that do not all answer within :data:`TIMEOUT`. Dask is imported here
only, and only then: the command line and the app run without it. A bar on
stderr counts the tasks done (tqdm, silent when stderr is not a terminal).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import partial

from tqdm import tqdm

from vizcoll.errors import SpecError
from vizcoll.tasks import Runner, Task, in_process

__all__ = ["ELSEWHERE", "INSTALL", "MAX_WORKERS", "TIMEOUT", "add_cluster", "on_cluster"]

MAX_WORKERS = 256
TIMEOUT = 10
"""Seconds to wait for a scheduler, then its workers, to answer."""
INSTALL = 'pip install "vizcoll[dask]" (in the project folder: pip install ".[dask]")'
ELSEWHERE = (
    "install vizcoll where the scheduler and the workers run"
    " (python -m pip install /path/to/vizcoll, or start them with PYTHONPATH=/path/to/vizcoll)"
)
_NO_VIZCOLL = re.compile(r"No module named 'vizcoll(\.[\w.]+)?'")
_ADDRESS = re.compile(r"tcp://(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):(\d{1,5})")


def add_cluster(parser: argparse.ArgumentParser) -> None:
    """The options ``--dask ADDRESS`` and ``--workers N`` (one of them at most)."""
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "--dask",
        metavar="ADDRESS",
        help="compute the runs on the Dask scheduler at ADDRESS, tcp://HOST:PORT (needs dask)",
    )
    where.add_argument(
        "--workers",
        type=int,
        metavar="N",
        help=f"compute the runs on a Dask cluster of N processes on this machine, 1..{MAX_WORKERS} (needs dask)",
    )


def on_cluster(args: argparse.Namespace, experiment: Callable[[Runner], dict]) -> dict:
    """``experiment(run)`` with the runner the options of :func:`add_cluster` choose (with Dask, the result
    gets ``"dask": {"scheduler", "workers", "tasks"}``); one progress bar counts all its tasks."""
    with tqdm(total=0, desc=args.command, unit="task", file=sys.stderr, disable=not sys.stderr.isatty()) as bar:
        if args.dask is None and args.workers is None:
            return experiment(partial(_here, bar))
        with _client(args.dask, args.workers) as (client, address):
            _find_vizcoll(client, address)
            run = _OnDask(client, bar, address)
            result = experiment(run)
            return result | {"dask": {"scheduler": address, "workers": len(client.nthreads()), "tasks": run.tasks}}


def _here(bar: tqdm, tasks: Sequence[Task]) -> Iterator:
    """The runner of a local run: :func:`~vizcoll.tasks.in_process`, advancing the bar."""
    _more(bar, len(tasks))
    for result in in_process(tasks):
        bar.update()
        yield result


def _more(bar: tqdm, tasks: int) -> None:
    """Count ``tasks`` more on the bar."""
    bar.total += tasks
    bar.refresh()


class _OnDask:
    """A runner that submits the tasks to a Dask client; the bar advances as they finish, in any order."""

    def __init__(self, client, bar: tqdm, address: str):
        self.client, self.bar, self.address, self.tasks = client, bar, address, 0

    def __call__(self, tasks: Sequence[Task]) -> list:
        from distributed import as_completed

        futures = [self.client.submit(function, *args, pure=False) for function, args in tasks]
        self.tasks += len(futures)
        _more(self.bar, len(futures))
        order = {future.key: i for i, future in enumerate(futures)}
        results = [None] * len(futures)
        try:
            for future, result in as_completed(futures, loop=self.client.loop, with_results=True):
                results[order[future.key]] = result
                self.bar.update()
        except Exception as exc:
            missing = _no_vizcoll(exc)
            if missing is None:
                raise
            raise SpecError(
                f"the Dask cluster at {self.address} cannot import vizcoll ({missing}); {ELSEWHERE}"
            ) from None
        return results


def _find_vizcoll(client, address: str) -> None:
    """SpecError if the scheduler or a worker connected does not find vizcoll, or if they do not all answer
    within :data:`TIMEOUT` (Client.run has no timeout of its own: ``callback_timeout`` is Client.sync's).

    They run :func:`importlib.util.find_spec`, which any Python unpickles (by reference, from the standard
    library); it answers None exactly when vizcoll is not found, and None comes back whatever the pickling of a
    ModuleSpec. A worker's other answers, an exception included (a worker that left meanwhile), count as found:
    the sweep then runs as before. The packages vizcoll imports are not checked, nor the workers that join later."""
    missing = f"cannot import vizcoll (No module named 'vizcoll'); {ELSEWHERE}"
    try:
        spec = client.run_on_scheduler(importlib.util.find_spec, "vizcoll", callback_timeout=TIMEOUT)
    except TimeoutError:
        raise SpecError(f"the Dask scheduler at {address} did not answer within {TIMEOUT} s") from None
    if spec is None:
        raise SpecError(f"the Dask cluster at {address} {missing}")
    try:
        found = client.run(importlib.util.find_spec, "vizcoll", on_error="return", callback_timeout=TIMEOUT)
    except TimeoutError:
        raise SpecError(
            f"the workers of the Dask scheduler at {address} did not all answer within {TIMEOUT} s"
        ) from None
    lost = sorted(worker for worker, answer in found.items() if answer is None)
    if lost:
        named = ", ".join(lost[:3]) + (f" and {len(lost) - 3} more" if len(lost) > 3 else "")
        workers = "worker" if len(lost) == 1 else "workers"
        raise SpecError(f"Dask {workers} {named} of the cluster at {address} {missing}")


def _no_vizcoll(exc: BaseException) -> str | None:
    """``No module named 'vizcoll...'`` if ``exc`` or an exception in its chain says so, else None (the scheduler
    raises a RuntimeError from the ModuleNotFoundError; an exception it cannot pickle arrives as its repr)."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if found := _NO_VIZCOLL.search(str(exc)):
            return found[0]
        exc = exc.__cause__ or exc.__context__
    return None


def _check(address: str | None, workers: int | None) -> None:
    """SpecError for a number of workers out of 1..MAX_WORKERS or an address that is not tcp://HOST:PORT."""
    if workers is not None and not 1 <= workers <= MAX_WORKERS:
        raise SpecError(f"--workers must be in 1..{MAX_WORKERS}, got {workers}")
    if address is not None:
        match = _ADDRESS.fullmatch(address)
        if match is None or not 1 <= int(match[2]) <= 65535:
            raise SpecError(
                f"--dask takes a scheduler address tcp://HOST:PORT (e.g. tcp://10.0.0.5:8786), got {address!r}"
            )


@contextmanager
def _client(address: str | None, workers: int | None) -> Iterator:
    """``(client, scheduler address)`` of the scheduler at ``address`` or of a local cluster of ``workers``."""
    _check(address, workers)
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise SpecError(f"--dask and --workers need Dask: {INSTALL}") from None
    if workers is not None:  # its HTTP server on a free port: 8787 may be taken
        with (
            LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster,
            Client(cluster, set_as_default=False) as client,
        ):
            yield client, cluster.scheduler_address
        return
    _reach(address)
    with Client(address, timeout=TIMEOUT, set_as_default=False) as client:
        if not client.nthreads():
            print(f"vizcoll: waiting for Dask workers to join {address}", file=sys.stderr)
        yield client, address


def _reach(address: str) -> None:
    """SpecError unless a Dask scheduler answers at ``address`` within :data:`TIMEOUT` (a client that fails to
    connect would linger for 20 s; a service that is not Dask can answer anything)."""
    from distributed.comm import connect

    async def probe() -> None:
        comm = await connect(address, timeout=TIMEOUT)
        await comm.close()

    try:
        asyncio.run(asyncio.wait_for(probe(), TIMEOUT + 1))
    except Exception:  # refused, timed out, or not a Dask scheduler (its answer cannot be read)
        raise SpecError(f"could not connect to a Dask scheduler at {address} within {TIMEOUT} s") from None
