"""The erasure-code page's model: its parameters checked, the code and the comparison of every family (cached).

The page's parameters live in ``scenario.params["erasure"]`` (:data:`DEFAULTS`);
the engine's searches run with the page's budgets (:data:`PAGE_BUDGET`,
:data:`PAGE_TOLERANCE_BUDGET`, :data:`PAGE_SCHEMES`), smaller than the CLI's.

**Background jobs.** Building a code can take long at the page's largest sizes, so the page builds it in a
background job (:func:`build_code`, with the FMEL search's progress) and its views only read what a job built
(:func:`built_code`: never a long computation in a web worker, whatever the browser's stores say). Measured on
the 2-core development machine, cold cache, FMEL with the page's budgets (the figures: docs/design.md): n = 32,
k = 16 takes seconds on N = 4 or 8 DCs and minutes on N = 16 (150 schemes, none constructible: the Reed–Solomon
baseline stays); Azure LRC (32, 16) on 4 DCs and every other family take seconds at most. The comparison of
every family runs the FMEL search once or more (:func:`compare_result`): at once for n = 9, seconds for n = 32
on 8 DCs, more with 16 DCs; it is a background job too.
"""

from __future__ import annotations

from vizcoll.erasure.codes import FAMILIES, check_parameters, parse_placement
from vizcoll.erasure.compare import compare, measure
from vizcoll.erasure.fmel import SearchOptions
from vizcoll.erasure.metrics import TRAFFIC, CheckBudgets
from vizcoll.errors import VizcollError
from vizcoll.scenario import Scenario
from vizcoll.ui.cache import cached, job_progress, job_runner, peek, reporting
from vizcoll.ui.forms import choice, number, text
from vizcoll.ui.store import page_params

__all__ = [
    "PAGE",
    "DEFAULTS",
    "TRAFFIC_LABELS",
    "EMPTY_VIEW",
    "read_params",
    "scenario_params",
    "stored_view",
    "code_result",
    "build_code",
    "built_code",
    "compare_result",
]

PAGE = "erasure"
DEFAULTS = {"n": "9", "k": "5", "dcs": "3", "code": "fmel", "traffic": "blocks", "d": "", "seed": "0", "placement": ""}
TRAFFIC_LABELS = {"blocks": "every remote block read", "aggregated": "one combined block per remote DC"}
PAGE_BUDGET = 400_000  # subset checks of the exact repair groups per code (the CLI allows more)
PAGE_TOLERANCE_BUDGET = 100_000  # subset checks of the block failures tolerated (beyond: a lower bound)
PAGE_SCHEMES = 150  # schemes the FMEL search may construct for the page
EMPTY_VIEW = {"block": None, "failed": []}


def read_params(n, k, dcs, code, traffic, d, seed, placement) -> dict:
    """Checked, canonical page parameters; raises VizcollError with a message for the page."""
    sizes = []
    for value, name in ((n, "n (coded blocks)"), (k, "k (data blocks)"), (dcs, "N (data centres)")):
        if value in (None, ""):
            raise VizcollError(f"{name}: enter a whole number")
        sizes.append(number(value, name, int))
    n, k, dcs = check_parameters(*sizes)
    code = choice(code, tuple(FAMILIES), "code family")
    traffic = choice(traffic, TRAFFIC, "traffic model")
    d = None if d in (None, "") else number(d, "D (DC failures to survive)", int, 0, dcs - 1)
    seed = 0 if seed in (None, "") else number(seed, "seed", int, 0, 2**31 - 1)
    placement = text(placement)
    parsed = parse_placement(placement, n, dcs) if placement else None
    return {"n": n, "k": k, "dcs": dcs, "code": code, "traffic": traffic, "d": d, "seed": seed, "placement": parsed}


def scenario_params(scenario: Scenario) -> dict | None:
    """The page's checked parameters as the scenario holds them (the build wrote them there), None when they do
    not check (a forged scenario: the controls show the defaults). The views read them on the server; the
    browser's ``era-params`` store holds only their key, the views' trigger."""
    values = page_params(scenario, PAGE, DEFAULTS)
    try:
        return read_params(**{key: values.get(key) for key in DEFAULTS})
    except (VizcollError, TypeError, ValueError):
        return None


def stored_view(view, params: dict) -> dict:
    """The selected block and failed DCs of the view store, each checked against ``params`` (forged: dropped)."""
    view = view if isinstance(view, dict) else EMPTY_VIEW
    block = view.get("block")
    block = block if isinstance(block, int) and not isinstance(block, bool) and 0 <= block < params["n"] else None
    failed = view.get("failed") if isinstance(view.get("failed"), list) else []
    failed = sorted({z for z in failed if isinstance(z, int) and not isinstance(z, bool) and 0 <= z < params["dcs"]})
    return {"block": block, "failed": failed}


@cached
def code_result(params: dict) -> dict:
    """The chosen code and all its metrics (``measure``)."""
    search = SearchOptions(d=params["d"], seed=params["seed"], traffic=params["traffic"], max_schemes=PAGE_SCHEMES)
    return measure(
        params["code"],
        params["n"],
        params["k"],
        params["dcs"],
        placement=params["placement"],
        search=search,
        budgets=CheckBudgets(PAGE_BUDGET, PAGE_TOLERANCE_BUDGET),
        progress=job_progress() if params["code"] == "fmel" else None,
    )


def build_code(params: dict, progress=None) -> dict:
    """:func:`code_result` (for a background job): computed once, the FMEL search calling ``progress(done,
    total)`` after every scheme tried (see :func:`vizcoll.erasure.fmel.fmel_search`)."""
    with reporting(progress):
        return code_result(params)


def built_code(params: dict) -> dict | None:
    """The code of (checked) ``params`` if a build job made it, else None (e.g. parameters forged in the store)."""
    return peek(code_result, params)


@cached
def _compare_result(n: int, k: int, dcs: int, seed: int, traffic: str, d: int | None) -> dict:
    return compare(
        n,
        k,
        dcs,
        SearchOptions(d=d, seed=seed, traffic=traffic, max_schemes=PAGE_SCHEMES),
        CheckBudgets(PAGE_BUDGET, PAGE_TOLERANCE_BUDGET),
        progress=job_progress(),
        run=job_runner(),
    )


def compare_result(params: dict, progress=None) -> dict:
    """Every family at the page's (n, k, N) (default placements), cached; ``progress(done, total)`` before
    every family (see :func:`vizcoll.erasure.compare.compare`)."""
    with reporting(progress):
        return _compare_result(params["n"], params["k"], params["dcs"], params["seed"], params["traffic"], params["d"])
