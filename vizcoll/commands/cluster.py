"""``--dask ADDRESS`` and ``--workers N``: where a sweep command computes its tasks, with a progress bar.

A sweep (:mod:`vizcoll.tasks`) runs its tasks in this process, one by one,
unless ``--dask tcp://HOST:PORT`` sends them to a running Dask scheduler (its
workers need vizcoll and its packages) or ``--workers N`` to a cluster of
``N`` worker processes on this machine, started for the run. Results come
back in the order of the tasks, so the JSON is the local run's plus
``"dask": {"scheduler", "workers", "tasks"}`` (the workers connected when the
sweep ended). Dask is imported here only, and only then: the command line and
the app run without it. A bar on stderr counts the tasks done (tqdm, silent
when stderr is not a terminal).
"""

from __future__ import annotations

import argparse
import asyncio
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import partial

from tqdm import tqdm

from vizcoll.errors import SpecError
from vizcoll.tasks import Runner, Task, in_process

__all__ = ["INSTALL", "MAX_WORKERS", "TIMEOUT", "add_cluster", "on_cluster"]

MAX_WORKERS = 256
TIMEOUT = 10
"""Seconds to wait for a scheduler to answer."""
INSTALL = 'pip install "vizcoll[dask]" (in the project folder: pip install ".[dask]")'
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
            run = _OnDask(client, bar)
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

    def __init__(self, client, bar: tqdm):
        self.client, self.bar, self.tasks = client, bar, 0

    def __call__(self, tasks: Sequence[Task]) -> list:
        from distributed import as_completed

        futures = [self.client.submit(function, *args, pure=False) for function, args in tasks]
        self.tasks += len(futures)
        _more(self.bar, len(futures))
        order = {future.key: i for i, future in enumerate(futures)}
        results = [None] * len(futures)
        for future, result in as_completed(futures, loop=self.client.loop, with_results=True):
            results[order[future.key]] = result
            self.bar.update()
        return results


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
