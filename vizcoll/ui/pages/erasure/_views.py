"""Pure views of the erasure-code page: this code's numbers (and whether its T̄ is the paper's), the FMEL search's
scheme, every family compared."""

from __future__ import annotations

from dash import html

from vizcoll.erasure.compare import PAPER_REDUCTION, against_paper, paper_rows
from vizcoll.erasure.metrics import Metrics, dc_failure
from vizcoll.ui.cache import cached_figures
from vizcoll.ui.components.tables import table
from vizcoll.ui.pages.erasure._figures import FAMILY_NAMES, compare_figure, dc_figure, matrix_figure
from vizcoll.ui.pages.erasure._model import TRAFFIC_LABELS, built_code, compare_result
from vizcoll.words import plural

__all__ = ["paper_note", "summary_view", "scheme_view", "compare_table", "dcs_view", "matrix_view", "compare_view"]


# The page's three figures, cached by the page's checked parameters (and the DC view's selection): a warm answer
# reads them back instead of building them again with Plotly (most of its time). Each is asked for once its
# result is known to be built (:func:`~vizcoll.ui.pages.erasure._model.built_code`, the comparison's job).
@cached_figures
def dcs_view(params: dict, block: int | None, failed: list[int]):
    """:func:`~vizcoll.ui.pages.erasure._figures.dc_figure` of the built code of ``params``."""
    result = built_code(params)
    failure = dc_failure(Metrics.from_dict(result).code, failed)
    return dc_figure(result, params["traffic"], block, failed, failure)


@cached_figures
def matrix_view(params: dict):
    """:func:`~vizcoll.ui.pages.erasure._figures.matrix_figure` of the built code of ``params``."""
    return matrix_figure(built_code(params))


@cached_figures
def compare_view(params: dict):
    """:func:`~vizcoll.ui.pages.erasure._figures.compare_figure` of every family at ``params``'s n, k, N."""
    paper = paper_rows(params["n"], params["k"], params["dcs"])
    return compare_figure(compare_result(params)["codes"], paper, params["code"], params["traffic"])


def _num(value, digits: int = 2) -> str:
    if value is None:
        return "—"
    return f"{value:.{digits}f}" if isinstance(value, float) and value != int(value) else f"{value:g}"


def _tolerance(row: dict) -> str:
    if row.get("block_tolerance_exact", True):
        return str(row["block_failures_tolerated"])
    return f"≥ {row['block_failures_tolerated']} (≤ {row.get('block_tolerance_upper', '?')})"


def _blocks(sizes: list[int]) -> str:
    return f"{', '.join(map(str, sizes))} blocks in the {plural(len(sizes), 'DC')}"


def _to_see(ours: dict, holds: dict, fixed: bool) -> list[str]:
    """What to change on the page to get the paper's setting ``holds`` from the shown code ``ours``."""
    steps = []
    if ours["traffic"] != holds["traffic"]:
        steps.append(f"choose “{TRAFFIC_LABELS[holds['traffic']]}”")
    if sorted(ours["sizes"], reverse=True) != holds["sizes"] and (fixed or ours["traffic"] == holds["traffic"]):
        steps.append(
            f"enter a placement of {', '.join(map(str, holds['sizes']))} blocks" + (" or clear it" if fixed else "")
        )
    if ours["D"] != ours["paper_D"]:
        steps.append(f"set D = {ours['paper_D']}")
    return steps


def _setting(traffic: str, sizes: list[int], d: int | None) -> str:
    """A traffic model and placement in words (and the DC failures survived, ``d``, when it matters)."""
    survived = f", surviving {plural(d, 'DC failure')}" if d is not None else ""
    return f"counting {TRAFFIC_LABELS[traffic]}, with {_blocks(sizes)}{survived}"


def _because(ours: dict, fixed: bool) -> str:
    """Why a code's T̄ is what it is: the least possible, and the same under the other traffic model."""
    least = f" (no linear code does better counting so{' on this placement' if fixed else ''})" if ours["least"] else ""
    other, same = next((m, value) for m, value in ours["by_model"].items() if m != ours["traffic"])
    also = f"; counting {TRAFFIC_LABELS[other]} gives {same:.3f} too on these blocks" if same == ours["shown"] else ""
    return least + also


def paper_note(result: dict, fixed: bool = False) -> str:
    """Whether this code's T̄ is the one Table 2 gives and, if not, the traffic model and block placement under
    which the paper's value holds (:func:`~vizcoll.erasure.compare.against_paper`); "" when the paper has no
    such code. ``fixed``: the placement was entered, not searched."""
    ours = against_paper(result)
    if ours is None or ours["shown"] is None:
        return ""
    d = ours["D"] != ours["paper_D"]
    here = f"T̄ = {ours['shown']:.3f} here, " + _setting(ours["traffic"], ours["sizes"], ours["D"] if d else None)
    paper = f"Table 2's {ours['paper']:.2f} for {ours['label']}"
    if ours["matches"]:
        return f"{here}: {paper} ✓."
    here += _because(ours, fixed)
    if not ours["holds"]:
        return f"{here}. {paper} is not reached under either model."
    holds = ours["holds"][0]
    where = _setting(holds["traffic"], holds["sizes"], ours["paper_D"] if d else None)
    steps = _to_see(ours, holds, fixed)
    return f"{here}. {paper} holds when {where}" + (f": {' and '.join(steps)} to see it." if steps else ".")


def summary_view(result: dict, traffic: str, fixed: bool = False) -> html.Div:
    """This code's headline numbers, and how its T̄ stands against the paper's (``fixed``: the placement was
    entered)."""
    time_key = "repair_time_ms_per_mb" if traffic == "blocks" else "repair_time_ms_per_mb_aggregated"
    rows = [
        ("T̄, every remote block read", _num(result["mean_traffic"], 3)),
        ("T̄, one block per remote DC", _num(result["mean_traffic_aggregated"], 3)),
        (f"repair time t̄ (ms/MB, {TRAFFIC_LABELS[traffic]})", _num(result[time_key], 1)),
        ("DC failures survived (D)", str(result["dc_failures_survived"])),
        ("block failures tolerated", _tolerance(result)),
        ("storage overhead n/k", _num(result["overhead"], 3)),
        ("data blocks (systematic)", ", ".join(f"y{i}" for i in result["data_blocks"]) or "—"),
    ]
    note = "" if result["exact"] else "Some searches ran out of budget: their numbers are bounds (see ≥)."
    return html.Div(
        [
            html.H3(f"{result['name']}: n = {result['n']}, k = {result['k']}, N = {result['dcs']}"),
            table(None, rows),
            html.P(paper_note(result, fixed), className="info era-paper"),
            html.P(note, className="info"),
        ]
    )


def scheme_view(result: dict) -> html.Div:
    """The FMEL search's scheme, lower bound and counts (or what the family is)."""
    search = result.get("search")
    if not search:
        what = {
            "rs": "Systematic Reed–Solomon from a Cauchy matrix: MDS, any k blocks rebuild the stripe.",
            "lrc": "Azure-style LRC: each local group (its data and an XOR parity) kept in one DC, global "
            "parities where there is room.",
            "replication": "Every data block stored n/k times, copy c of the stripe in DC c mod N.",
        }
        return html.Div([html.H3("The code"), html.P(what.get(result["code"], ""), className="info")])
    bound = search["lower_bound"]
    stats = search["stats"]
    met = "meets it ✓" if search["meets_lower_bound"] else "does not reach it"
    return html.Div(
        [
            html.H3(f"FMEL search: scheme found (D = {search['D']}, counting {TRAFFIC_LABELS[search['traffic']]})"),
            html.Ul([html.Li(line) for line in search["scheme"]["description"]]),
            html.P(
                f"Lower bound on T̄: {_num(bound['mean'], 3)} (placement {', '.join(map(str, bound['sizes']))}); "
                f"the code {met}."
                if bound
                else "No lower bound.",
                className="info",
            ),
            html.P(
                f"{plural(stats['schemes'], 'scheme')} tried, {stats['pattern_rejected']:,} rejected by the rank "
                f"pattern filter, {plural(stats['trials'], 'random trial')}, {plural(stats['constructed'], 'code')} "
                f"built, {stats['seconds']:.2f} s.",
                className="info",
            ),
        ]
    )


def compare_table(out: dict) -> html.Div:
    """Every family's numbers, FMEL's reduction over each, and the paper's claim beside."""
    traffic = out["traffic"]
    head = [
        "code",
        "T̄ per block",
        "T̄ per DC",
        "t̄ (ms/MB)",
        "D",
        "block failures",
        "n/k",
        "FMEL's T̄ reduction",
        "at the same D",
    ]
    time_key = "repair_time_ms_per_mb" if traffic == "blocks" else "repair_time_ms_per_mb_aggregated"
    body = []
    for family, row in out["codes"].items():
        if "error" in row:
            body.append([FAMILY_NAMES[family], row["error"]] + [""] * (len(head) - 2))
            continue
        red = out["reductions_pct"].get(family, {}).get(traffic)
        same = out["reductions_at_same_D_pct"].get(family, {})
        body.append(
            [
                row["name"],
                _num(row["mean_traffic"], 3),
                _num(row["mean_traffic_aggregated"], 3),
                _num(row[time_key], 1),
                row["dc_failures_survived"],
                _tolerance(row),
                _num(row["overhead"], 2),
                "—" if family == "fmel" else _pct(red),
                "—" if family == "fmel" else f"{_pct(same.get('reduction'))} (D = {same.get('D')})",
            ]
        )
    paper = [
        [
            f"paper: {row['label']}",
            _num(row["mean_traffic"], 2),
            "",
            _num(row["repair_time_ms_per_mb"], 1),
            row["D"],
            f"d = {row['d']}",
            _num(row["overhead"], 2),
            "",
            "",
        ]
        for row in out["paper"]["table2"]
    ]
    low, high = PAPER_REDUCTION
    reds = [f"{FAMILY_NAMES[f]} {_pct(r.get(traffic))}" for f, r in out["reductions_pct"].items()]
    sentence = (
        f"Paper: FMEL's codes have {low}–{high} % less cross-DC repair traffic than several common codes. "
        f"Here ({TRAFFIC_LABELS[traffic]}), FMEL's T̄ is lower than: {', '.join(reds) or 'nothing to compare'}"
        ". A negative value means FMEL's T̄ is higher — usually because FMEL is asked to survive more DC "
        "failures than that code; the last column asks FMEL for the same D."
    )
    return html.Div(
        [
            table(head, body + paper, chosen=range(len(body), len(body) + len(paper)), className="summary compare"),
            html.P(_compared_note(out), className="info era-paper"),
            html.P(sentence, className="info"),
        ]
    )


def _compared_note(out: dict) -> str:
    """:func:`paper_note` of the FMEL code of the comparison (searched with its own placement)."""
    row = out["codes"].get("fmel", {})
    if "error" in row or "placement" not in row:
        return ""
    search = out.get("fmel_search") or {}
    note = paper_note(row | {key: out[key] for key in ("n", "k", "dcs", "traffic")} | {"search": search})
    return f"FMEL: {note}" if note else ""


def _pct(value) -> str:
    return "—" if value is None else f"{'−' if value < 0 else ''}{abs(value):.1f} %"
