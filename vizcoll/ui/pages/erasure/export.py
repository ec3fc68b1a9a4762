"""/erasure: its figure pack (the code, its repair groups and DC failures).

Registered in :mod:`vizcoll.ui.export.names`. The page's own builders on the page's cached model calls for the
scenario as the page opens, tables from the engine's results; :mod:`vizcoll.ui.export.packs` writes the ZIP,
:mod:`vizcoll.ui.export.animation` the GIF/MP4.
"""

from __future__ import annotations

from vizcoll.erasure.compare import paper_rows
from vizcoll.erasure.metrics import Metrics, dc_failure
from vizcoll.scenario import Scenario
from vizcoll.ui.export.packs import Pack, PackFigure, PackTable
from vizcoll.ui.pages.erasure import _model as codes
from vizcoll.ui.pages.erasure._figures import compare_figure, dc_figure, matrix_figure
from vizcoll.ui.store import page_params

__all__ = ["erasure_pack"]

PAPER_COLUMNS = ("label", "code", "n", "k", "dcs", "mean_traffic", "repair_time_ms_per_mb", "d", "D", "overhead")
"""The columns of the paper's Table 2 in the pack."""


def erasure_pack(scenario: Scenario, extra=None, progress=None) -> Pack:
    """The code of the page's parameters, every family compared, the generator matrix."""
    stored = page_params(scenario, codes.PAGE, codes.DEFAULTS)
    params = codes.read_params(*[stored[k] for k in ("n", "k", "dcs", "code", "traffic", "d", "seed", "placement")])
    result = codes.build_code(params, progress=progress)
    compared = codes.compare_result(params)
    failure = dc_failure(Metrics.from_dict(result).code, [])
    paper = paper_rows(params["n"], params["k"], params["dcs"])
    pack = Pack("erasure", "Erasure codes")
    pack.figures += [
        PackFigure(
            "stripe",
            f"{result['name']}: the blocks in their data centres.",
            dc_figure(result, params["traffic"], None, [], failure),
        ),
        PackFigure(
            "families",
            "Every code family at the same n, k, N (Table 2 values as diamonds).",
            compare_figure(compared["codes"], paper, params["code"], params["traffic"]),
        ),
        PackFigure("generator", f"{result['name']}: the generator matrix.", matrix_figure(result)),
    ]
    suffix = "_aggregated" if params["traffic"] == "aggregated" else ""
    blocks = [
        [
            g["block"],
            g["dc"],
            result["kinds"][g["block"]],
            g["group"],
            g["remote"],
            g["cross_dc"],
            result["cross_dc_traffic_aggregated"][g["block"]],
            result[f"repair_time_per_block{suffix}"][g["block"]],
        ]
        for g in result["repair_groups"]
    ]
    families = [
        [
            c["code"],
            c.get("name"),
            *[
                c.get(k)
                for k in (
                    "mean_traffic",
                    "mean_traffic_aggregated",
                    "dc_failures_survived",
                    "block_failures_tolerated",
                    "overhead",
                    "repair_time_ms_per_mb",
                )
            ],
            c.get("error"),
        ]
        for c in compared["codes"].values()
    ]
    pack.tables += [
        PackTable(
            "repair",
            f"{result['name']}: every block's minimum-cross-DC repair group.",
            [
                ("block", "the lost block"),
                ("dc", "its data centre"),
                ("kind", "data or parity"),
                ("group", "blocks read to repair it"),
                ("remote", "those in other data centres"),
                ("cross_dc", "cross-DC traffic, every remote block read (blocks)"),
                ("cross_dc_aggregated", "cross-DC traffic, one combined block per remote DC (blocks)"),
                ("repair_ms_per_mb", "modelled repair time (ms per MB)"),
            ],
            blocks,
        ),
        PackTable(
            "families",
            "Every family at the same n, k, N.",
            [
                ("code", "family"),
                ("name", "the code"),
                ("mean_traffic", "mean cross-DC repair traffic (blocks)"),
                ("mean_traffic_aggregated", "the same, one combined block per remote DC"),
                ("dc_failures_survived", "DC failures survived"),
                ("block_failures_tolerated", "block failures tolerated"),
                ("overhead", "n/k"),
                ("repair_time_ms_per_mb", "modelled repair time (ms per MB)"),
                ("error", "why the family has no code at these n, k, N (empty: it has one)"),
            ],
            families,
        ),
        PackTable(
            "paper-table2",
            "The paper's Table 2 values at these n, k, N (empty: the paper has none).",
            [(k, k) for k in PAPER_COLUMNS],
            [[row.get(k) for k in PAPER_COLUMNS] for row in paper],
        ),
        PackTable(
            "generator",
            "The generator matrix over GF(2^8): one row per data block, one column per coded block.",
            [("row", "data block")] + [(f"y{i}", f"coded block {i}") for i in range(params["n"])],
            [[j, *row] for j, row in enumerate(result["generator"])],
        ),
    ]
    return pack
