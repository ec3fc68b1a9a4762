"""Every multicast route is the one the engine gave before its per-group routing was made cheaper (issue 44).

The routes of ``tests/data/multicast/golden-routes.json`` (see :mod:`tests.engine.multicast.golden_routes`: what the
command line prints and a digest of every tree and EFI) were written by commit 95203b4's engine: small fabrics with
broken links, parallel cables and two-switch end nodes, the real clusters' files, and the /multicast page's
paper-scale presets. The page's figures are drawn from these results alone, so they stay the same too.
"""

import json
from pathlib import Path

import pytest

from tests.engine.multicast import golden_routes as golden

GOLDEN = json.loads((Path(__file__).resolve().parents[2] / "data" / "multicast" / "golden-routes.json").read_text())


@pytest.mark.parametrize(
    ("key", "spec", "pattern", "ppn", "rate", "parallel", "algo"), golden.cases(), ids=lambda v: str(v)
)
def test_routes_are_those_of_the_engine_before_it_was_made_cheaper(key, spec, pattern, ppn, rate, parallel, algo):
    if Path(spec).is_absolute() and not Path(spec).exists():
        pytest.skip(f"{spec} is not here (VIZCOLL_REAL_FABRICS)")
    assert golden.routed(spec, pattern, ppn, rate, parallel, algo) == GOLDEN[key]


def test_the_golden_cases_are_not_vacuous():
    """Broken links cut some groups apart, and the loads differ between the algorithms the page compares."""
    assert sum(run["unroutable"] > 0 for run in GOLDEN.values()) >= 5
    paper = {key.rsplit("|", 1)[1]: run["max_efi"] for key, run in GOLDEN.items() if "radix=64" in key}
    assert paper["sssp"] > paper["fulb"]
