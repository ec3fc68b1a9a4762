"""The erasure-code page's model: its parameters checked, the code and the comparison of every family (cached).

The page's parameters live in ``scenario.params["erasure"]`` (:data:`DEFAULTS`);
the engine's searches run with the page's budgets (:data:`PAGE_BUDGET`,
:data:`PAGE_TOLERANCE_BUDGET`, :data:`PAGE_SCHEMES`), smaller than the CLI's.
"""

from __future__ import annotations

from vizcoll.erasure.codes import FAMILIES, check_parameters, parse_placement
from vizcoll.erasure.compare import compare, measure
from vizcoll.erasure.metrics import check_traffic
from vizcoll.errors import VizcollError
from vizcoll.ui.cache import cached
from vizcoll.ui.forms import number

__all__ = ["PAGE", "DEFAULTS", "TRAFFIC_LABELS", "EMPTY_VIEW", "read_params", "stored_params", "stored_view",
           "code_result", "compare_result"]

PAGE = "erasure"
DEFAULTS = {"n": "9", "k": "5", "dcs": "3", "code": "fmel", "traffic": "blocks", "d": "", "seed": "0",
            "placement": ""}
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
    if code not in FAMILIES:
        raise VizcollError(f"unknown code family {code!r}; choose one of {', '.join(FAMILIES)}")
    check_traffic(traffic)
    d = None if d in (None, "") else number(d, "D (DC failures to survive)", int, 0, dcs - 1)
    seed = 0 if seed in (None, "") else number(seed, "seed", int, 0, 2**31 - 1)
    text = (placement or "").strip()
    parsed = parse_placement(text, n, dcs) if text else None
    return {"n": n, "k": k, "dcs": dcs, "code": code, "traffic": traffic, "d": d, "seed": seed,
            "placement": parsed}


def stored_params(data) -> dict | None:
    """The page's parameters store checked again (it comes from the browser): None when absent or forged."""
    keys = ("n", "k", "dcs", "code", "traffic", "d", "seed", "placement")
    if not isinstance(data, dict) or set(data) != set(keys):
        return None
    placement = data["placement"]
    if placement is not None and not (isinstance(placement, list) and all(isinstance(z, int) for z in placement)):
        return None
    try:
        checked = read_params(*[data[key] for key in keys[:-1]], ",".join(map(str, placement or [])))
    except (VizcollError, TypeError, ValueError):
        return None
    return checked if checked == data else None


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
    return measure(params["code"], params["n"], params["k"], params["dcs"], placement=params["placement"],
                   seed=params["seed"], traffic=params["traffic"], d=params["d"], budget=PAGE_BUDGET,
                   tolerance_budget=PAGE_TOLERANCE_BUDGET,
                   **({"max_schemes": PAGE_SCHEMES} if params["code"] == "fmel" else {}))


@cached
def _compare_result(n: int, k: int, dcs: int, seed: int, traffic: str, d: int | None) -> dict:
    return compare(n, k, dcs, seed=seed, traffic=traffic, d=d, budget=PAGE_BUDGET,
                   tolerance_budget=PAGE_TOLERANCE_BUDGET, max_schemes=PAGE_SCHEMES)


def compare_result(params: dict) -> dict:
    """Every family at the page's (n, k, N) (default placements), cached."""
    return _compare_result(params["n"], params["k"], params["dcs"], params["seed"], params["traffic"], params["d"])
