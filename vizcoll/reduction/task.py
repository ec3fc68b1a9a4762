"""The paper's task-parallel, fault-tolerant Master/Worker reduction as a discrete-event simulation.

**Reduction (steps 1–6).** Every worker Wi, when it calls reduce, sends the
reduction message ``(Wi, Pi = {i})`` to the master (θ). The master handles
messages one at a time (λ each) and puts them in the queue Q of their
reduction instance. The scheduler S takes two messages at a time and makes a
task ``(Wi, Pi, Wj, Pj)``, sent (θ) to one of the two:

1. if one of them is a *known failed* process: to the other (recovery step 4;
   an unflagged message of a failed process is fault location 1 instead);
2. else if one is the root: to the root (so the result ends on the root);
3. else if exactly one carries the fault-tolerance flag: to that one;
4. else to the one whose last task took less time (performance counters).
   *The paper is silent on ties, on processes without a finished task yet
   and on concurrent reductions:* an unknown counter counts as the mean of
   the known ones; with concurrent reductions a process's counter is
   multiplied by ``1 + its unfinished tasks`` (within one reduction a process
   whose message is in Q has none, so this is the paper's rule); a tie goes
   to the process with fewer unfinished tasks, then to the process of the
   second message, which gives the paper's Fig. 4: with arrival order
   0, 3, 1, 2 and root 1, tasks (0,3) → 3, (1,2) → 1, (1,3) → 1.

The worker reads the other's data with a one-sided get (a request and a reply:
``2α + n·β``; only the reader's speed matters, the other CPU takes no part,
while a two-sided MPI message is as slow as the slower end), reduces it with
the user's operation (``n·γ`` at its own speed) and sends ``(Wi, Pi ∪ Pj)``
back to S. When a message with all ``p`` processes reaches S the reduction is
done, and a 4-byte "done" is broadcast (``⌈log p⌉·(α + 4β)``).

**Fault tolerance (section 3).** When a worker calls reduce its original data
is copied to its local disk and to the disk of ``W(i+1) mod p`` (eq. 4, an image
in the source: the neighbor is the natural reading), asynchronously: the
copy reaches the neighbor ``α + n·β`` later (from then on a failure of Wi
cannot lose it) and is on its disk, readable, ``n·disk_beta`` after that.
The master pings every ``ping_period``; a process that died at ``T`` misses
the first ping at or after ``T`` and is declared failed ``ping_timeout``
later (every worker is told).
The master then locates the fault (Fig. 5; Wi got the task, Wj supplies data):

- ``sending-task`` (1): S finds Wi failed when sending it the task (Wi died
  before the task reached it, or its message is still waiting in Q);
- ``executing-task`` (2): Wi dies while executing the task;
- ``fetching-data`` (3): Wj dies while Wi is fetching its data.

and applies recovery steps 1–5 exactly: (1) for 1 or 2 ``M = Mj, P = Pi``, for
3 ``M = Mi, P = Pj``; (2) M goes back into Q; (3) P is split into single-process
messages ``(Pk, {Pk})`` with the fault-tolerance flag, put into Q; (4) the
scheduling rules above; (5) a worker handling a flagged process reads that
process's *original* data: its own local disk first, else the process's local
disk, else (failed process) the remote replica. Each step takes the master
λ, so a student can step through them.

A failure that hits nothing (the process's data was already reduced into
another's) needs no recovery. It is **unrecoverable** when the failed process's
original data is needed but it died before its copy reached the remote node
(or before it called reduce): its own disk died with it, so no live process
holds its data, and the reduction ends with ``unrecoverable = True`` and the
``fault``'s ``reason`` (who died when, which copy had not arrived).

*Also not in the paper (design choices):* the master itself never fails; the
replica traffic takes time but does not compete with the reduction for the
network; a failed root's data is recovered like any other and the result then
ends on a live worker (``result_at``); only one process is killed per run.

*Code:* the entry points are here; every step above is a small event handler of
:class:`~vizcoll.reduction.task_sim.TaskRun`, run by the shared event core
:mod:`vizcoll.sim.engine` (events at equal times in scheduling order); the
messages, tasks and per-reduction state are in :mod:`vizcoll.reduction.task_state`.

References: [FTRED18, steps 1–6] (keys: ``docs/papers.md``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from vizcoll.errors import SpecError
from vizcoll.reduction.common import ReductionRun, make_setup, mib, rank_name
from vizcoll.reduction.static import task_cost
from vizcoll.reduction.task_sim import TaskRun
from vizcoll.reduction.task_state import FAULT_LOCATIONS, LOCATION_ALIASES, TASK_LEGEND
from vizcoll.sim.timeline import Timeline

__all__ = [
    "FAULT_LOCATIONS",
    "LOCATION_ALIASES",
    "TASK_LEGEND",
    "place_fault",
    "simulate_task_reduction",
    "task_figures",
    "task_run",
    "TaskRun",
]


# ---------------------------------------------------------------------- placing a fault at a named location
def _windows(run: TaskRun, location: str) -> list[tuple[int, float, float, float]]:
    """Candidate kills for ``location`` in a fault-free run: (victim, window start, window end, time the
    victim's copy reaches its neighbor)."""
    out = []
    red = run.reds[0]
    for task in run.all_tasks:
        if task.red != 0 or task.reduced is None:
            continue
        if location == "fetching-data":
            victim, a, b = task.other.sender, task.fetch_start, task.fetch_end
        elif location == "executing-task":
            victim, a, b = task.assignee, task.received, task.reduced
        else:
            victim, a, b = task.assignee, task.mine.sent_at, task.sent
        if victim != red.root and b > a:
            out.append((victim, a, b, red.remote_sent[victim]))
    return out


def place_fault(
    location: str, reduction: ReductionRun, counters: str | Mapping[int, float] | None = None
) -> tuple[int, float]:
    """``(rank, time)`` of a kill that lands in ``location``: the first task (not on the root) whose
    window for that location ends after the victim's remote replica exists (a recoverable fault),
    killed in the middle of what is left of the window; if none does, the last window (unrecoverable).
    ``reduction``'s own ``kill`` is left out: the windows are those of the fault-free run."""
    return _place(location, reduction, counters)[:2]


def _place(location: str, reduction: ReductionRun, counters) -> tuple[int, float, bool]:
    """:func:`place_fault` and whether its window ends after the victim's replica exists."""
    location = LOCATION_ALIASES.get(location, location)
    if location not in FAULT_LOCATIONS:
        names = ", ".join(FAULT_LOCATIONS + tuple(LOCATION_ALIASES))
        raise SpecError(f"unknown fault location {location!r}; choose (rank, time) or one of {names}")
    run = TaskRun(make_setup(replace(reduction, kill=None)), record=False, counters=counters).run()
    windows = _windows(run, location)
    if not windows:
        raise SpecError(f"no task of this run has a {location} window away from the root (too few processes?)")
    for victim, a, b, replica in windows:
        if b > replica:
            lo = max(a, replica)
            return victim, lo + (b - lo) / 2, True
    victim, a, b, _ = windows[-1]
    return victim, a + (b - a) / 2, False


# ---------------------------------------------------------------------- public entry points
def task_run(
    reduction: ReductionRun, record: bool = True, counters: str | Mapping[int, float] | None = None
) -> TaskRun:
    """Run the simulation and return the :class:`TaskRun` itself (arguments of :func:`simulate_task_reduction`)."""
    reduction = replace(reduction, slow=list(reduction.slow), interference=list(reduction.interference))
    kill, requested, after_copy = reduction.kill, None, None
    if isinstance(kill, str):
        requested = LOCATION_ALIASES.get(kill, kill)
        rank, time, after_copy = _place(kill, reduction, counters)
        reduction = replace(reduction, kill=(rank, time))
    run = TaskRun(make_setup(reduction), record=record, counters=counters)
    run.requested, run.after_copy = requested, after_copy
    return run.run()


def simulate_task_reduction(
    reduction: ReductionRun, record: bool = True, counters: str | Mapping[int, float] | None = None
) -> tuple[Timeline, dict]:
    """Simulate the paper's task-parallel, fault-tolerant Master/Worker reduction; returns ``(timeline, figures)``.

    Every worker sends its reduction message to the master, whose scheduler pairs two messages into a task sent to
    one of the two (known failed process, root, fault-tolerance flag, performance counters: steps 1–6); the worker
    fetches the other's data with a one-sided get, reduces it and reports back. Original data is replicated to the
    local disk and to the next worker's; a killed process is detected by pings, its fault located (``sending-task``,
    ``executing-task``, ``fetching-data``) and repaired by recovery steps 1–5, unless its data was still needed
    before its replica arrived (unrecoverable). See the module docstring for the rules and the choices the paper
    leaves open.

    Parameters
    ----------
    reduction : ReductionRun
        The processes, data, root, arrival order, node speeds (slow processes, interference episodes), kill
        (``(rank, time)`` or a fault location: ``sending-task``, ``executing-task``, ``fetching-data``, aliases
        ``before-task``, ``after-result``, ``during-fetch``, placed by :func:`place_fault`), machine times,
        concurrent reductions and topology nodes of the run (the master sits on process 0's node).
    record : bool
        Build the timeline's events (False: only the figures, much faster).
    counters : "warm", mapping or None
        The performance counters at the start: None (no task done yet),
        ``"warm"`` (each process has just done one task at its speed at time
        0, as when reductions follow one another) or ``{rank: seconds}``.

    Returns
    -------
    (Timeline, dict)
        The replayable timeline and the figures: ``time`` (s, until the "done"
        broadcast or the failure report); ``messages`` (reduction messages,
        tasks and one-sided gets; pings, replica copies and the final broadcast
        are not counted), ``master_received``, ``master_sent``; ``result_ok``
        (the result equals the direct reduction of all inputs), ``completed``,
        ``recovered`` (a failure hit the reduction and was repaired),
        ``unrecoverable``; ``tasks`` (``{"pair": [i, j], "to": w}`` in formation
        order); ``fault`` (``rank``, ``time``, ``location``, ``detected_at``,
        ``remote_replica_at``, ``replica_holder``, ``reason``: why the run was
        unrecoverable, None otherwise); ``result_at``; ``rounds`` (height of the tree
        the tasks built); ``model_time`` (reconstructed eq. 3).

    Raises
    ------
    SpecError
        For a bad parameter: processes outside 2..4096, a size or rank out of range, an unknown operation or fault
        location, a malformed ``slow`` / ``interference`` / ``kill``, or a fault location the run cannot place.

    References
    ----------
    [FTRED18] Li Chao, Zhao Changhai, Yan Haihua, Liu Chao, Wen Jiamin, Wang Zengbo, "A fault tolerant
    high-performance reduction framework in complex environment", Journal of Beijing University of Aeronautics and
    Astronautics, 44(10): 2115–2124, 2018, DOI
    [10.13700/j.bh.1001-5965.2017.0786](https://doi.org/10.13700/j.bh.1001-5965.2017.0786). Steps 1–6, section 3
    (fault tolerance), Fig. 4–5.

    Examples
    --------
    >>> timeline, figures = simulate_task_reduction(ReductionRun(4, 1 << 20, arrival=[0, 3, 1, 2], root=1))
    >>> figures["completed"], figures["result_ok"], figures["tasks"]
    (True, True, [{'pair': [0, 3], 'to': 3}, {'pair': [1, 2], 'to': 1}, {'pair': [1, 3], 'to': 1}])
    >>> figures = simulate_task_reduction(ReductionRun(8, 1 << 20, kill="executing-task"), record=False)[1]
    >>> figures["fault"]["location"], figures["recovered"], figures["result_ok"]
    ('executing-task', True, True)
    """
    run = task_run(reduction, record, counters)
    return _timeline_and_figures(run)


def task_figures(run: TaskRun) -> dict:
    """The figures of a finished :class:`TaskRun`."""
    s = run.s
    completed = all(not red.failed for red in run.reds)
    oks = [not red.failed and s.data[red.idx].check(red.result) for red in run.reds]
    fault = None
    if s.kill:
        rank = s.kill[0]
        fault = {
            "rank": rank,
            "time": s.kill[1],
            "location": next((r.location for r in run.reds if r.location), None),
            "requested": getattr(run, "requested", None),
            "detected_at": run.detected_at,
            "remote_replica_at": _float(run.reds[0].remote_sent.get(rank)),
            "replica_holder": (rank + 1) % s.procs,
            "reason": _reason(run),
        }
    if any(red.end is None for red in run.reds):
        raise RuntimeError("a reduction neither finished nor failed (simulation bug)")
    control = run.counts["received"] + run.counts["sent"]
    return {
        "algo": "task",
        "procs": s.procs,
        "size": s.size,
        "root": s.roots[0],
        "reductions": len(run.reds),
        "time": float(max(red.end for red in run.reds)),
        "times": [float(red.end) for red in run.reds],
        "model_time": task_cost(s.procs, s.size, s.params),
        "messages": control + run.counts["fetches"],
        "data_messages": run.counts["fetches"],
        "control_messages": control,
        "master_received": run.counts["received"],
        "master_sent": run.counts["sent"],
        "bytes": run.counts["fetches"] * float(s.size),
        "rounds": run.reds[0].depth,
        "result_ok": completed and all(oks),
        "completed": completed,
        "recovered": completed and any(red.recovered for red in run.reds),
        "unrecoverable": not completed,
        "fault": fault,
        "tasks": list(run.formed),
        "result_at": [red.result_at for red in run.reds],
    }


def _reason(run: TaskRun) -> str | None:
    """Why the run could not be recovered (None when it was): whose data had no surviving copy, and, for a
    kill placed at a fault location, why it landed before the victim's copy."""
    lost = next((red.lost for red in run.reds if red.lost), None)
    if lost is None:
        return None
    reason = f"{lost}."
    if run.after_copy is False:
        where = run.requested
        reason += (
            f" The app places a {where} kill after its victim's copy has arrived when it can; in this run "
            f"every {where} window closes before its worker's copy arrives."
        )
    return reason


def _timeline_and_figures(run: TaskRun) -> tuple[Timeline, dict]:
    """The replay and the figures of a finished run (the timeline's summary is the figures dict itself)."""
    figures = task_figures(run)
    return _timeline(run, figures), figures


def _float(value) -> float | None:
    return None if value is None else float(value)


def _timeline(run: TaskRun, figures: dict) -> Timeline:
    s = run.s
    events = run.rec.sorted()
    if run.rec.on:
        events = _with_pings(run, events, figures["time"])
    workers = {rank_name(r): {"node": s.node(r), "kind": "worker"} for r in range(s.procs)}
    entities = {"master": {"node": s.node(0), "kind": "master"}, **workers}
    initial = {"master": "waiting", **dict.fromkeys(workers, "computing")}
    for red in run.reds:
        entities[run.qkey(red)] = {"node": -1, "kind": "queue", "reduction": red.idx}
        initial[run.qkey(red)] = "(empty)"
    roots = ", ".join(f"w{r}" for r in s.roots)
    return Timeline(
        title=f"Task-based reduction of {mib(s.size)} over {s.procs} workers (root {roots})",
        intro=_intro(run),
        initial_state=initial,
        events=events,
        entities=entities,
        legend=dict(TASK_LEGEND),
        summary=figures,
    )


def _intro(run: TaskRun) -> str:
    """The replay's first caption: the reduction, and when a failed worker's data can be rebuilt."""
    prm, n = run.s.params, run.s.size
    copy = (prm.alpha + n * prm.beta) * 1e3
    return (
        "Each worker tells the master when its data is ready; the master pairs ready workers into tasks, "
        "and one of the two fetches the other's data and reduces it. Slow workers never hold up the others. "
        "When a worker calls reduce, its original data is copied to its own disk and to the next worker's "
        f"(w(i+1)); {mib(n)} take {copy:,.2f} ms to get there, longer from a slow worker. If a worker fails "
        "while its data is still needed, the data is read back from that copy, provided the copy had arrived; "
        "if it had not (or the worker had not called reduce yet), no readable copy survives and the reduction "
        "cannot be recovered. A worker whose data was already reduced into another's loses nothing."
    )


def _with_pings(run: TaskRun, events: list, end: float) -> list:
    """Add one "ping" event per ping period up to ``end`` (at most 500), merged in time order."""
    period = run.s.params.ping_period
    pings = []
    for k in range(1, min(int(end / period), 500) + 1):
        t = k * period
        silent = [r for r, d in run.death.items() if d <= t]
        label = f"the master pings all {run.s.procs} workers: " + (
            ", ".join(f"w{r}" for r in silent) + " does not answer" if silent else "all answer"
        )
        pings.append((t, label))
    if not pings:
        return events
    from vizcoll.sim.timeline import Event

    merged = events + [Event(t, "ping", label=label) for t, label in pings]
    return sorted(merged, key=lambda e: e.t)
