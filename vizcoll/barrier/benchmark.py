"""The paper's barrier experiment (DLCT paper, section 4, Fig. 6 and 7): run time vs grid size and break rate.

For every grid size, break rate and seed, :func:`sweep` builds
``mesh((size, size), neighbors, hosts=0)`` (8 neighbors by default: the model
that reproduces the paper's Fig. 3), breaks ``rate`` of its links at random
(:func:`~vizcoll.barrier.network.break_links`, seeded by the seed; by default
links whose loss would disconnect the grid are skipped, since the paper
reports run times up to 50% and a cut-off processor can never pass a
barrier; ``SweepGrids(keep_connected=False)`` breaks exactly that many links and counts
the failed runs instead), then runs the test program (3 barriers, 0.5 s of
work between them) with every algorithm on the same broken grid. One broken
grid and its runs are one task (:mod:`vizcoll.tasks`), so the sweep gives the
same table in this process or on a Dask cluster.

The metric is the program's run time; the table shows its synchronisation
part, ``sync_ms`` = run time - 1 s of work, in milliseconds, averaged over
the seeds that completed (``failures`` counts the others). ``tree`` appears
once per ``tree_on`` variant: ``tree`` (the minimum spanning tree of the live
grid, rebuilt for free after the breaks) and ``tree@intact`` (the tree built
before the links broke, whose messages detour: the paper's fixed pattern).

References: [DLCT19, §4, Fig. 6–7] (keys: ``docs/papers.md``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from vizcoll.barrier.algorithms import ALGORITHMS, TREE_ON, algorithm, run_barriers
from vizcoll.barrier.network import break_links
from vizcoll.errors import SpecError
from vizcoll.tasks import Runner, in_process
from vizcoll.topology.generators import mesh
from vizcoll.words import plural

__all__ = ["SIZES", "RATES", "RANGE_COLUMNS", "SweepGrids", "sweep", "column_names", "format_table"]

SIZES = (4, 8, 12, 16, 20)
RATES = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5)
RANGE_COLUMNS = ("tree@intact", "tree", "dlct+ms", "dlct+tree")
"""The columns of the paper's Fig. 7 (the range of run times over the break rates): Tree, ID1 and ID2."""
EXTRA = ("messages", "hops", "adjustments")
"""Figures averaged per column next to the time."""


@dataclass(frozen=True)
class SweepGrids:
    """The broken grids of a sweep: every grid size, with each break rate of its links broken, for each seed.

    Each grid is ``mesh((size, size), neighbors, hosts=0)`` with ``rate`` of its links broken at random
    (:func:`~vizcoll.barrier.network.break_links`, seeded by the seed).

    Parameters
    ----------
    sizes : sequence of int
        Grid sides.
    rates : sequence of float
        Shares of broken links.
    seeds : int
        Random broken-link sets per (size, rate): seeds ``0..seeds-1``.
    neighbors : int
        Grid neighborhood, 4 or 8.
    keep_connected : bool
        Skip breaks that would disconnect the grid (else count failed runs).
    """

    sizes: Sequence[int] = SIZES
    rates: Sequence[float] = RATES
    seeds: int = 3
    neighbors: int = 8
    keep_connected: bool = True


def column_names(algos, tree_on=("live", "intact")) -> list[tuple[str, str, str]]:
    """``(column, algo, tree_on)`` for every table column (one per ``tree_on`` variant of ``tree``)."""
    out = []
    for algo in algos:
        algorithm(algo)  # SpecError for an unknown one
        variants = tree_on if algo == "tree" else (tree_on[0] if tree_on else "live",)
        for variant in variants:
            if variant not in TREE_ON:
                raise SpecError(f"unknown tree_on {variant!r}; choose one of {', '.join(TREE_ON)}")
            name = algo if algo != "tree" or variant == "live" else f"tree@{variant}"
            out.append((name, algo, variant))
    return out


def _mean(values: list[float]) -> float | None:
    return round(float(np.mean(values)), 3) if values else None


def _grid(size: int, rate: float, seed: int, neighbors: int, keep_connected: bool, columns, params) -> tuple:
    """One task: every column's run on one grid broken by ``seed``; the share of links broken and the figures."""
    topo = mesh((size, size), neighbors=neighbors, hosts=0)
    broken = len(break_links(topo, rate, seed, keep_connected)) / max(topo.n_links, 1)
    figures = []
    for _, algo, variant in columns:
        _, fig = run_barriers(topo, algo, seed=seed, tree_on=variant, record=False, **params)
        figures.append({key: fig[key] for key in ("completed", "sync_time", *EXTRA)})
    return broken, figures


def _cell(size: int, rate: float, grids: list[tuple], columns, params) -> dict:
    """The row of one (size, rate): the means over its grids (:func:`_grid`'s results, one per seed)."""
    times: dict[str, list[float]] = {c: [] for c, _, _ in columns}
    extra: dict[str, dict[str, list[float]]] = {c: {key: [] for key in EXTRA} for c, _, _ in columns}
    failures = dict.fromkeys(times, 0)
    for _, figures in grids:
        for (col, _, _), fig in zip(columns, figures, strict=True):
            if fig["completed"]:
                times[col].append(fig["sync_time"] * 1000)
            else:
                failures[col] += 1
            for key, values in extra[col].items():
                values.append(fig[key])
    return {
        "size": size,
        "rate": rate,
        "broken": round(float(np.mean([broken for broken, _ in grids])), 4),
        "sync_ms": {c: _mean(v) for c, v in times.items()},
        "time_s": {c: None if not v else round(1e-3 * float(np.mean(v)) + _work(params), 6) for c, v in times.items()},
        "failures": failures,
        **{key: {c: _mean(extra[c][key]) for c in times} for key in EXTRA},
    }


def _work(params: dict) -> float:
    return (params.get("barriers", 3) - 1) * params.get("compute", 0.5)


def _ratio(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None or b == 0 else round(a / b, 3)


def _by(rows: list[dict], column: str, outer: str, inner: str) -> dict:
    """``{outer value: {inner value: sync_ms of column}}``, e.g. ``{size: {rate: ms}}``."""
    out: dict = {}
    for r in rows:
        out.setdefault(r[outer], {})[r[inner]] = r["sync_ms"][column]
    return out


def _claims(rows: list[dict], columns: list[str]) -> dict:
    """The paper's claims checked on the table.

    - ``dlct_over_tree``: ID1 / ID2 time ÷ Tree time per ``size@rate`` (< 1: DLCT faster; the paper: 0.5-0.7
      with breaks, about 1 without);
    - ``slowdown_max_rate_over_no_breaks``: per column and size, the time at the highest break rate ÷ the
      time without breaks (Fig. 7: Tree's line is the longest);
    - ``growth_with_size``: per column and break rate, the time on the largest grid ÷ on the smallest (Fig. 6:
      only ID1, ID2 and Tree scale).
    """
    out: dict = {}
    trees = [c for c in ("tree", "tree@intact") if c in columns]
    dlcts = [c for c in ("dlct+ms", "dlct+tree") if c in columns]
    if trees and dlcts:
        out["dlct_over_tree"] = {
            f"{d}/{t}": {f"{r['size']}@{r['rate']:g}": _ratio(r["sync_ms"][d], r["sync_ms"][t]) for r in rows}
            for d in dlcts
            for t in trees
        }
    out["slowdown_max_rate_over_no_breaks"] = {
        c: {size: _ratio(v[max(v)], v[min(v)]) for size, v in _by(rows, c, "size", "rate").items() if len(v) > 1}
        for c in columns
    }
    out["growth_with_size"] = {
        c: {f"{rate:g}": _ratio(v[max(v)], v[min(v)]) for rate, v in _by(rows, c, "rate", "size").items() if len(v) > 1}
        for c in columns
    }
    return out


def sweep(
    grids: SweepGrids = SweepGrids(),
    algos=None,
    tree_on=("live", "intact"),
    progress=None,
    run: Runner = in_process,
    **params,
) -> dict:
    """Run every algorithm on every (size, rate, seed); JSON-ready averages (see the module docstring).

    For every grid size, break rate and seed it builds ``mesh((size, size), neighbors, hosts=0)``, breaks
    ``rate`` of its links at random (:func:`~vizcoll.barrier.network.break_links`) and runs the test program with
    every algorithm on the same broken grid; one broken grid and its runs are one task, so the sweep gives the
    same table in this process or on a Dask cluster. The table's ``sync_ms`` is the run time minus the work, in
    milliseconds, averaged over the seeds that completed.

    Parameters
    ----------
    grids : SweepGrids
        The grid sizes, break rates, seeds per (size, rate), neighborhood and whether breaks keep the grid
        connected (default: the paper's sizes and rates, 3 seeds, 8 neighbors, connected).
    algos : sequence of str, optional
        Algorithms (``tree`` gives one column per ``tree_on`` variant; default: every registered one, read when
        the sweep runs).
    tree_on : sequence of str
        ``"live"`` and/or ``"intact"``.
    progress : callable, optional
        ``progress(done, total)`` after every (size, rate) cell.
    run : Runner
        Computes the tasks, one per (size, rate, seed) (:mod:`vizcoll.tasks`; default: here, one by one).
    **params
        Passed to :func:`~vizcoll.barrier.algorithms.run_barriers`
        (``barriers``, ``compute``, ``hop_latency``, ``proc``, ``judge``, ``block``, ...).

    Returns
    -------
    dict
        ``{"params", "columns", "rows", "claims"}``; each row holds the mean
        ``sync_ms`` / ``time_s`` / ``messages`` / ``hops`` / ``adjustments`` per
        column, the ``failures`` and the share of links actually ``broken``.

    Raises
    ------
    SpecError
        For ``grids.seeds < 1``, or a bad parameter of the runs.

    References
    ----------
    [DLCT19] Xiang Zhehui, Qin Xiaolin, You Feng, Liu Liang, "Synchronization Mechanism for Network Disconnection
    Perception", Journal of Frontiers of Computer Science and Technology, 13(2): 195–204, 2019, DOI
    [10.3778/j.issn.1673-9418.1805061](https://doi.org/10.3778/j.issn.1673-9418.1805061). Section 4, Fig. 6–7.

    Examples
    --------
    >>> out = sweep(SweepGrids(sizes=[4], rates=[0.0], seeds=1), algos=["ms", "dlct"], barriers=1)
    >>> out["columns"], out["rows"][0]["failures"]
    (['ms', 'dlct'], {'ms': 0, 'dlct': 0})
    """
    sizes, rates, seeds = grids.sizes, grids.rates, grids.seeds
    neighbors, keep_connected = grids.neighbors, grids.keep_connected
    if seeds < 1:
        raise SpecError(f"seeds must be at least 1, got {seeds}")
    columns = column_names(ALGORITHMS.names if algos is None else algos, tuple(tree_on))
    cells = [(int(s), float(r)) for s in sizes for r in rates]
    grids = iter(
        run(
            [
                (_grid, (size, rate, seed, neighbors, keep_connected, columns, params))
                for size, rate in cells
                for seed in range(seeds)
            ]
        )
    )
    rows = []
    for size, rate in cells:
        rows.append(_cell(size, rate, [next(grids) for _ in range(seeds)], columns, params))
        if progress is not None:
            progress(len(rows), len(cells))
    names = [c for c, _, _ in columns]
    return {
        "params": {
            "sizes": [int(s) for s in sizes],
            "rates": [float(r) for r in rates],
            "seeds": seeds,
            "neighbors": neighbors,
            "keep_connected": keep_connected,
            **params,
        },
        "columns": names,
        "rows": rows,
        "claims": _claims(rows, names),
    }


def format_table(result: dict, key: str = "sync_ms") -> str:
    """A compact text table of ``result[rows][key]``: one line per (size, rate), one column per algorithm."""
    cols = result["columns"]
    widths = [max(8, len(c) + 1) for c in cols]
    head = f"{'size':>5} {'rate':>5} {'broken':>6} " + "".join(f"{c:>{w}}" for c, w in zip(cols, widths, strict=True))
    lines = [f"{key} (mean over {plural(result['params']['seeds'], 'seed')}; '-' = no run completed)", head]
    for r in result["rows"]:
        cells = []
        for c, w in zip(cols, widths, strict=True):
            v = r[key][c]
            text = "-" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.1f}"
            cells.append(f"{text + ('!' * bool(r['failures'][c])):>{w}}")
        lines.append(f"{r['size']:>5} {r['rate']:>5g} {r['broken']:>6.3f} " + "".join(cells))
    if any(any(r["failures"].values()) for r in result["rows"]):
        lines.append("! = some runs failed (disconnected grid): see 'failures'")
    return "\n".join(lines)
