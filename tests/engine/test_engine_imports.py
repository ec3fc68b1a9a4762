"""The engine never imports dash or plotly."""

import subprocess
import sys

ENGINE = [
    "vizcoll.topology",
    "vizcoll.topology.generators",
    "vizcoll.topology.layout",
    "vizcoll.scenario",
    "vizcoll.sim",
    "vizcoll.comm",
    "vizcoll.cli",
    "vizcoll.topology.io",
    "vizcoll.topology.hops",
    "vizcoll.multicast",
    "vizcoll.multicast.groups",
    "vizcoll.trees.cost",
    "vizcoll.trees.typeone",
    "vizcoll.trees.metrics",
    "vizcoll.trees.typetwo",
    "vizcoll.trees.entries",
    "vizcoll.trees.aggregation",
    "vizcoll.barrier",
    "vizcoll.treft",
    "vizcoll.reduction",
    "vizcoll.erasure",
    "vizcoll.commands",
    "vizcoll.words",
]


def test_engine_does_not_import_dash_or_plotly():
    code = (
        f"import importlib, sys\nfor m in {ENGINE!r}: importlib.import_module(m)\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('dash', 'plotly', 'dash_cytoscape'))\n"
        "print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == ""
