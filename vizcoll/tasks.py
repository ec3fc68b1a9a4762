"""A sweep's independent runs as tasks, computed in this process or elsewhere (a Dask cluster) alike.

An experiment of many runs (:func:`vizcoll.barrier.benchmark.sweep`,
:func:`vizcoll.reduction.reliability.reliability_experiment`,
:func:`vizcoll.erasure.compare.compare`) splits its work into tasks
``(function, args)``: a module-level function and picklable arguments that
seed every random choice of the task, so a task gives the same result
wherever it runs. It hands the list to ``run``, a :data:`Runner` that returns
the results in the order of the list, and combines them itself; the default
:func:`in_process` computes each when it is asked for. The command line
passes a runner with a progress bar, or one that sends the tasks to Dask
(:mod:`vizcoll.commands.cluster`): the result is the same.

>>> list(in_process([(pow, (2, 10)), (max, (3, 7))]))
[1024, 7]
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

__all__ = ["Runner", "Task", "in_process", "computed"]

Task = tuple[Callable[..., Any], tuple]
Runner = Callable[[Sequence[Task]], Iterable]


def in_process(tasks: Sequence[Task]) -> Iterator:
    """The results of ``tasks`` in their order, each computed here when the caller asks for it."""
    return (computed(task) for task in tasks)


def computed(task: Task):
    """The result of one task."""
    function, args = task
    return function(*args)
