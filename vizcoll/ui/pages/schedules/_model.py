"""The schedules page's model: LogGP parameters, the GOAL file the user opened, its problems, timing and replay.

A GOAL file (LogGOPSim's schedule format, :mod:`vizcoll.schedule.goal`) is
opened in the browser; its text stays in a page-local store of that tab (at
most :data:`MAX_GOAL_BYTES`, and :data:`MAX_RANKS` ranks), never in the
scenario or its share link, and it is read from the bytes the browser sent
(never from a path on the server). The page lists every problem with its line
(:func:`vizcoll.schedule.parse` + :func:`vizcoll.schedule.check.check`), times
the schedule with vizcoll's LogGP model as LogGOPSim does
(:func:`vizcoll.schedule.simulate`) and replays it on the scenario's fabric:
rank ``r`` runs where the scenario places its process ``r``
(``scenario.placement(topo, WORLD)``), each message drawn on the min-hop route
between the two nodes (:func:`vizcoll.schedule.replay.loggp_timeline`).

The LogGP parameters are the page's parameters (``scenario.params["schedules"]``,
:data:`DEFAULTS` = LogGOPSim's defaults), whole numbers from 0 to
:data:`MAX_PARAM`, checked on the server.
"""

from __future__ import annotations

import hashlib
import json
import re

from vizcoll import uploads
from vizcoll.barrier.dissemination import Dissemination
from vizcoll.errors import VizcollError
from vizcoll.scenario import WORLD, Scenario
from vizcoll.schedule import LogGP, barrier, dumps, loggp_timeline, parse, simulate
from vizcoll.schedule.check import check
from vizcoll.ui import store
from vizcoll.ui.cache import cached, peek
from vizcoll.ui.figures.topology import SMALL_LIMIT
from vizcoll.ui.forms import decode_upload, file_name, whole
from vizcoll.ui.limits import MAX_LOGGP, SCHEDULE_MAX_BYTES, SCHEDULE_MAX_DRAWN_MESSAGES, SCHEDULE_MAX_RANKS
from vizcoll.ui.store import hops_of, page_params, topology_of
from vizcoll.words import plural

__all__ = [
    "PAGE",
    "DEFAULTS",
    "FIELDS",
    "MAX_PARAM",
    "MAX_GOAL_BYTES",
    "MAX_RANKS",
    "MAX_DRAWN_MESSAGES",
    "MAX_PROBLEMS",
    "EXAMPLE_RANKS",
    "read_params",
    "shown_params",
    "stored_params",
    "goal_from_upload",
    "read_goal",
    "example_goal",
    "analysis",
    "replay_key",
    "replay",
    "replay_timeline",
    "scenario_of_key",
    "drawing_plan",
    "JOB_BYTES",
    "needs_job",
    "replay_of",
    "opened_goal",
    "MAX_OVERVIEW_MESSAGES",
]

PAGE = "schedules"
DEFAULTS = {"L": 2500, "o": 1500, "g": 1000, "G": 6, "O": 0, "S": 65535}
"""LogGOPSim's defaults (``LogGOPSim -L 2500 -o 1500 -g 1000 -G 6 -O 0 -S 65535``)."""
FIELDS = {
    "L": "L (latency)",
    "o": "o (CPU overhead per message)",
    "g": "g (NIC gap per message)",
    "G": "G (gap per byte)",
    "O": "O (overhead per byte)",
    "S": "S (eager up to, bytes)",
}
MAX_PARAM, MAX_GOAL_BYTES, MAX_RANKS = MAX_LOGGP, SCHEDULE_MAX_BYTES, SCHEDULE_MAX_RANKS  # reasons: ui.limits
MAX_DRAWN_MESSAGES = SCHEDULE_MAX_DRAWN_MESSAGES
MAX_OVERVIEW_MESSAGES = 65_536
"""Messages replayed on a large fabric's overview: all routed at once on the server (a small fraction of a second
for the 16,383 of a binomial reduce on TaihuLight, docs/design.md; in the background job for a large file), and
the frames sent to the browser hold
one entry per bundle and block lit in a step (23 kB for that reduce). A 2 MB GOAL file holds about 30,000."""
MAX_PROBLEMS = 200  # problems listed (the count says how many more)
JOB_BYTES = 256 * 1024
"""GOAL files of more bytes are checked, timed and replayed in a background job (progress bar, Cancel), smaller
ones in the request. Measured on two cores (the figures: docs/design.md): a 2 MB file (a dissemination barrier of
1,300 ranks, 28,600 operations) takes seconds, parsing the most, then LogGP, then the checks."""
EXAMPLE_RANKS = 16
_NUM_RANKS = re.compile(r"^[ \t]*num_ranks[ \t]+([0-9]+)", re.MULTILINE)


# ---------------------------------------------------------------- parameters (the browser is untrusted)
def read_params(values: dict) -> dict:
    """The LogGP parameters checked (whole numbers 0..MAX_PARAM); VizcollError names the first bad one."""
    out = {}
    for key, label in FIELDS.items():
        value = values.get(key)
        if value is None or value == "" or isinstance(value, bool):
            raise VizcollError(f"{label}: enter a whole number from 0 to {MAX_PARAM:,}")
        out[key] = whole(value, label, 0, MAX_PARAM)
    return out


def shown_params(scenario: Scenario) -> dict:
    """The parameters for the controls: each bad stored value replaced by its default (never raises)."""
    return store.shown_params(scenario, PAGE, DEFAULTS, read_params)


def stored_params(scenario: Scenario) -> dict:
    """The scenario's LogGP parameters checked (VizcollError on a forged value)."""
    return read_params(page_params(scenario, PAGE, DEFAULTS))


# ---------------------------------------------------------------- the GOAL file
def goal_from_upload(contents, filename) -> dict:
    """The page's store for an uploaded GOAL file: ``{"name", "text"}`` (VizcollError when it is unusable)."""
    raw = decode_upload(contents)
    if len(raw) > MAX_GOAL_BYTES:
        raise VizcollError(
            f"the page opens GOAL files up to {MAX_GOAL_BYTES >> 20} MB (this one has "
            f"{len(raw):,} bytes); check larger ones with python -m vizcoll goal check FILE"
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise VizcollError(f"the file is not UTF-8 text (byte {exc.start}): is it a GOAL file?") from None
    return {"name": file_name(filename)[:200], "text": text}


def read_goal(store) -> tuple[str, str]:
    """(file name, text) of the page's store, which came from the browser; VizcollError when it is malformed."""
    if not isinstance(store, dict) or not isinstance(store.get("text"), str):
        raise VizcollError("the browser sent a malformed GOAL file: open it again")
    text, name = store["text"], store.get("name")
    if len(text.encode("utf-8", "surrogatepass")) > MAX_GOAL_BYTES:
        raise VizcollError(f"the page opens GOAL files up to {MAX_GOAL_BYTES >> 20} MB")
    return (name[:200] if isinstance(name, str) and name else "GOAL file"), text


def opened_goal(store) -> dict:
    """The page's GOAL store, when a file was opened (VizcollError asks for one otherwise)."""
    if store is None:
        raise VizcollError("open a GOAL file first (or the example): the page has none")
    return store


def example_goal(scenario: Scenario) -> dict:
    """A dissemination barrier on the scenario's first processes (2 to :data:`EXAMPLE_RANKS`), as GOAL."""
    try:
        nprocs = scenario.placement(topology_of(scenario), WORLD).nprocs
    except VizcollError:
        nprocs = EXAMPLE_RANKS
    ranks = min(max(nprocs, 2), EXAMPLE_RANKS)
    name = Dissemination.name
    text = dumps(barrier(name, ranks), comment=f"written by vizcoll: {name} barrier, {ranks} ranks")
    return {"name": f"example: {name} barrier, {ranks} ranks", "text": text}


# ---------------------------------------------------------------- engine calls (cached)
def _too_many_ranks(text: str) -> str:
    match = _NUM_RANKS.search(text)
    if match and int(match[1]) > MAX_RANKS:
        return (
            f"num_ranks {int(match[1]):,}: the page reads schedules of up to {MAX_RANKS:,} ranks; check larger "
            "ones with python -m vizcoll goal check FILE"
        )
    return ""


_recent = uploads.MemoryStore(size=4)  # this process's last parses and runs by their content (a result of the key)


def _kept(key: str, make):
    """``make()``, or the value this process made last for ``key`` (a value is never changed by its users)."""
    value = _recent.get(key)
    if value is None:
        value = make()
        _recent.put(key, value)
    return value


def _digest(*parts) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode("utf-8", "surrogatepass")).hexdigest()


def _schedule(text: str):
    """(parsed file, every problem as plain dicts, its schedule when it has no error else None); the same
    objects for the same text while this process keeps them."""
    return _kept("schedule:" + _digest(text), lambda: _checked(text))


def _checked(text: str):
    parsed = parse(text)
    problems = list(parsed.problems)
    if parsed.schedule is not None and not parsed.errors:
        problems += check(parsed.schedule, parsed.lines)
    ok = parsed.schedule is not None and not any(p.severity == "error" for p in problems)
    plain = [{"line": p.line, "severity": p.severity, "message": p.message} for p in problems]
    return parsed, plain, parsed.schedule if ok else None


@cached
def analysis(text: str, params: dict) -> dict:
    """Problems, sizes and the LogGP timing of a GOAL text: ``{"problems", "ranks", "operations", "messages",
    "timing"}``; ``timing`` (``makespan``, ``host``, ``finish``) is None while the file has errors, and ``why``
    says why."""
    too_many = _too_many_ranks(text)
    if too_many:
        return {
            "problems": [{"line": 0, "severity": "error", "message": too_many}],
            "ranks": None,
            "operations": None,
            "messages": None,
            "timing": None,
            "why": too_many,
        }
    parsed, problems, schedule = _schedule(text)
    out = {
        "problems": problems,
        "ranks": parsed.schedule.num_ranks if parsed.schedule else None,
        "operations": parsed.schedule.n_ops if parsed.schedule else None,
        "messages": parsed.schedule.messages() if parsed.schedule else None,
        "timing": None,
        "why": "",
    }
    if schedule is None:
        out["why"] = "The file has errors (listed above): LogGOPSim would refuse it, crash or time it wrongly."
        return out
    try:
        result = _traced(text, params, schedule)
    except VizcollError as exc:
        out["why"] = f"⚠ {exc}"
        return out
    out["timing"] = {"makespan": result.makespan, "host": result.host, "finish": list(result.finish)}
    return out


def _traced(text: str, params: dict, schedule):
    """The traced LogGP run of ``schedule`` (the schedule of ``text``) under ``params``: the timing and the
    replay's messages from one run."""
    return _kept("run:" + _digest(text, params), lambda: simulate(schedule, LogGP(**params), trace=True))


def needs_job(text: str, params: dict) -> bool:
    """Whether a GOAL text waits for a background job: more than :data:`JOB_BYTES` and not analysed yet (once a
    job has, the views are drawn in the request)."""
    return len(text) > JOB_BYTES and peek(analysis, text, params) is None


def replay_key(scenario: Scenario) -> dict:
    """What the replay depends on besides the file and the parameters: the fabric and the processes."""
    return {"source": scenario.source_key(), "pattern": scenario.pattern, "ppn": scenario.ppn, "lists": scenario.lists}


def drawing_plan(scenario: Scenario, ranks: int, messages: int, any_size: bool = False) -> tuple[list[int] | None, str]:
    """The node of every rank when the schedule can be replayed on the scenario's fabric, else None and why.

    The replay is drawn node by node on a fabric of up to ``SMALL_LIMIT`` nodes (at most
    :data:`MAX_DRAWN_MESSAGES` messages); with ``any_size`` (the page) a larger fabric plays it on its overview
    (at most :data:`MAX_OVERVIEW_MESSAGES`)."""
    topo = topology_of(scenario)
    large = topo.n_nodes > SMALL_LIMIT
    if large and not any_size:
        return None, (
            f"The fabric has {topo.n_nodes:,} nodes: the replay is drawn node by node on fabrics up to "
            f"{SMALL_LIMIT:,} nodes (the page plays it on the fabric's overview)."
        )
    most = MAX_OVERVIEW_MESSAGES if large else MAX_DRAWN_MESSAGES
    if messages > most:
        where = "on the fabric's overview" if large else "node by node"
        return None, (
            f"The schedule has {messages:,} messages: the replay is drawn {where} for up to "
            f"{most:,} (the timing above is complete)."
        )
    try:
        placement = scenario.placement(topo, WORLD)
    except VizcollError as exc:
        return None, f"⚠ The scenario's processes cannot be placed: {exc}"
    if ranks > placement.nprocs:
        return None, (
            f"⚠ The schedule has {plural(ranks, 'rank')} but the scenario has "
            f"{plural(placement.nprocs, 'process')}: rank r runs where the scenario places process r, so "
            "there is nowhere to draw the others. Give the scenario more processes (communicators or "
            "processes per node on the Topology page); the timing above does not depend on it."
        )
    return [int(n) for n in placement.node[:ranks]], ""


@cached
def replay(text: str, params: dict, key: dict, nodes: list[int]) -> dict:
    """The replay of a GOAL text (without errors) on the scenario's fabric, rank ``r`` on ``nodes[r]``, as a
    timeline dict."""
    return replay_timeline(text, params, key, nodes).to_dict()


def replay_timeline(text: str, params: dict, key: dict, nodes: list[int]):
    """The replay (see :func:`replay`) as a :class:`~vizcoll.sim.timeline.Timeline`, computed."""
    scenario = scenario_of_key(key)
    _, _, schedule = _schedule(text)
    if schedule is None:
        raise VizcollError("the file has errors: nothing to replay")
    result = _traced(text, params, schedule)
    return loggp_timeline(schedule, result, nodes, topology_of(scenario), hops_of(scenario))


def scenario_of_key(key: dict) -> Scenario:
    """The scenario of a :func:`replay_key`."""
    return Scenario(**key["source"], pattern=key["pattern"], ppn=key["ppn"], lists=key["lists"])


def replay_of(scenario: Scenario, goal, any_size: bool = False) -> tuple[str, dict]:
    """(file name, replay timeline dict) of the page's GOAL store on the scenario's fabric, as the page plays it;
    VizcollError says why there is none (errors in the file, a fabric too large to draw node by node unless
    ``any_size``, too many messages, too few processes)."""
    name, text = read_goal(goal)
    params = stored_params(scenario)
    result = analysis(text, params)
    if result["timing"] is None:
        raise VizcollError(f"{name}: no replay: {result['why'].removeprefix('⚠ ')}")
    nodes, why = drawing_plan(scenario, result["ranks"], result["messages"], any_size)
    if nodes is None:
        raise VizcollError(why.removeprefix("⚠ "))
    return name, replay(text, params, replay_key(scenario), nodes)
