"""Erasure-coded storage over several data centres and the cross-DC traffic of repairs (the FMEL paper).

- :mod:`vizcoll.erasure.gf`: GF(2^8) arithmetic and (batched) Gaussian elimination;
- :mod:`vizcoll.erasure.codes`: codes as generator matrices (replication, Reed–Solomon, Azure LRC, any
  matrix) and their placement on DCs, with the parameter checks;
- :mod:`vizcoll.erasure.metrics`: exact minimum-cross-DC repair groups (per remote block, or one combined
  block per remote DC), T̄, DC and block fault tolerance, the repair-time model (:func:`evaluate`);
- :mod:`vizcoll.erasure.bounds`: necessary conditions shared by the metrics and the search;
- :mod:`vizcoll.erasure.fmel`: the FMEL-style search for a code with small cross-DC repair traffic and the
  lower bound on T̄ (:func:`fmel_search`);
- :mod:`vizcoll.erasure.compare`: every family side by side, Table 2 of the paper, the ``d`` question.

The engine imports neither dash nor plotly; results are plain JSON-ready dicts (``to_dict``/``from_dict``).

References: [FMEL23]; [RS60]; [LRC12] (keys: ``docs/papers.md``).
"""

from vizcoll.erasure.codes import (
    FAMILIES,
    MAX_BLOCKS,
    MAX_DCS,
    Code,
    check_parameters,
    code_from_generator,
    even_placement,
    lrc,
    parse_placement,
    reed_solomon,
    replication,
)
from vizcoll.erasure.compare import PAPER_REDUCTION, PAPER_TABLE2, build, compare, measure, paper_table
from vizcoll.erasure.fmel import Scheme, SearchOptions, SearchResult, fmel, fmel_search, lower_bound
from vizcoll.erasure.metrics import (
    TRAFFIC,
    CheckBudgets,
    Metrics,
    RepairTimeModel,
    block_failures_tolerated,
    dc_failure,
    dc_failures_survived,
    evaluate,
    repair_group,
    repair_group_aggregated,
)

__all__ = [
    "FAMILIES",
    "MAX_BLOCKS",
    "MAX_DCS",
    "PAPER_REDUCTION",
    "PAPER_TABLE2",
    "TRAFFIC",
    "CheckBudgets",
    "Code",
    "Metrics",
    "RepairTimeModel",
    "Scheme",
    "SearchOptions",
    "SearchResult",
    "block_failures_tolerated",
    "build",
    "check_parameters",
    "code_from_generator",
    "compare",
    "dc_failure",
    "dc_failures_survived",
    "evaluate",
    "even_placement",
    "fmel",
    "fmel_search",
    "lower_bound",
    "lrc",
    "measure",
    "paper_table",
    "parse_placement",
    "reed_solomon",
    "repair_group",
    "repair_group_aggregated",
    "replication",
]
