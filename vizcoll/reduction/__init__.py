"""Reductions: static algorithms (binomial, MST, Rabenseifner) and the paper's task-based,
fault-tolerant Master/Worker reduction (the task-parallel reduction paper), all as replayable timelines.

- :class:`ReductionRun`: what a caller asks for (processes, size, root, arrival, speeds, kill, ...);
- :func:`simulate_task_reduction`, :func:`simulate_binomial`, :func:`simulate_mst`,
  :func:`simulate_rabenseifner`: ``(timeline, figures)`` of a :class:`ReductionRun`, with the same figure keys;
- :data:`FAULT_LOCATIONS` / :data:`LOCATION_ALIASES`: the names ``kill`` accepts;
- :func:`reliability_experiment`: the paper's fault experiment (98.43 %);
- the task-based reduction: the model and entry points in :mod:`vizcoll.reduction.task`,
  its event handlers (:class:`~vizcoll.reduction.task_sim.TaskRun`, on the shared event
  core :mod:`vizcoll.sim.engine`) in :mod:`vizcoll.reduction.task_sim`, its messages,
  tasks and per-reduction state in :mod:`vizcoll.reduction.task_state`;
- schedules and α-β-γ costs in :mod:`vizcoll.reduction.static`, machine times in
  :class:`ReductionParams` (calibrated defaults :data:`C1`), node speeds in
  :mod:`vizcoll.reduction.env`.

References: [FTRED18]; [THAKUR05]; [CHAN04]; [CHAN07] (keys: ``docs/papers.md``).
"""

from vizcoll.reduction.common import ReductionRun
from vizcoll.reduction.env import Environment, interference
from vizcoll.reduction.params import C1, ReductionParams
from vizcoll.reduction.reliability import reliability_experiment
from vizcoll.reduction.static import (
    binomial_cost,
    binomial_schedule,
    mst_cost,
    mst_schedule,
    rabenseifner_cost,
    rabenseifner_schedule,
    task_cost,
)
from vizcoll.reduction.static_sim import simulate_binomial, simulate_mst, simulate_rabenseifner, simulate_static
from vizcoll.reduction.task import FAULT_LOCATIONS, LOCATION_ALIASES, place_fault, simulate_task_reduction

__all__ = [
    "C1",
    "FAULT_LOCATIONS",
    "LOCATION_ALIASES",
    "Environment",
    "ReductionParams",
    "ReductionRun",
    "binomial_cost",
    "binomial_schedule",
    "interference",
    "mst_cost",
    "mst_schedule",
    "place_fault",
    "rabenseifner_cost",
    "rabenseifner_schedule",
    "reliability_experiment",
    "simulate_binomial",
    "simulate_mst",
    "simulate_rabenseifner",
    "simulate_static",
    "simulate_task_reduction",
    "task_cost",
]
