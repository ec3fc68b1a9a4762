"""The engine at paper scale: the issue's targets measured, and how time grows with the fabric and the groups.

Run ``python benchmarks/scaling.py [--plots docs] [--repeat 3] [--parts million]`` (about six minutes; the
``million`` part alone about a minute and a half). Each part runs in a
fresh Python process (so that its peak memory is its own) and every time is the best of ``--repeat`` runs (the
machine is shared). It prints one JSON object:

- ``trees``: every type I builder on TaihuLight at 5,120 / 10,240 / 20,480 / 40,960 processes (k = 32):
  seconds per size and the fitted exponent (slope of log time over log size; 1 = linear);
- ``cli``: ``vizcoll tree --kind hier-knomial --k 32 --topology pruned-fat-tree:preset=taihulight --nprocs 40960``
  end to end (a new process each time), with its peak memory;
- ``multicast``: FULB-MC and SSSP-MC on the paper's three fabrics (the lines of a 3-D grid: 2,000 groups on the
  16,000-node fat tree, 3,584 on TaihuLight, 5,120 on the 64-port fat tree), routing time only;
- ``multicast_scaling``: FULB-MC and SSSP-MC time against the fabric's end nodes (fat trees of 24- to 64-port
  switches, 1,000 random groups of 3) and against the groups (64-port fat tree, 640 to 5,120 random groups of 12),
  with fitted exponents;
- ``million`` (issue 28, AI scale; every measurement a fresh process, best of ``--repeat``, its peak memory):
  ``rail-fat-tree:servers=S,rails=8,radix=128`` built with its min-hop table for S = 16,384 to 131,072 (131,072
  to 1,048,576 NICs) with the fitted exponent; FULB-MC on ``fat-tree:radix=128,levels=3`` (524,288 end nodes) with
  the lines of a 128x64x64 grid (20,480 groups; routing time, and the fabric + table build before it); and the
  CLI end to end at 524,288 processes: the hierarchical 32-nomial tree, type II trees (the physical and min-cost
  trees of the 16 groups of 32,768 processes ``hier:32768``) and F(k) (``kopt --P 524288``); and the app's first
  answer on the 1,048,576-NIC fabric, cold: the background job that builds it, then a fresh web worker's /topology
  from the shared cache (``app``: both times and the job's peak memory, which the job pool caps at 2 GB);
- ``peak_rss_mb``: the largest peak resident memory of the paper-scale parts (``million`` has its own);
  ``targets``: each target and whether it holds.

With ``--plots DIR`` it writes ``scaling-trees`` and ``scaling-multicast`` as PNG and SVG into ``DIR`` (log-log,
the fitted exponent in each legend); set ``BROWSER_PATH=/usr/bin/chromium`` if kaleido does not find a browser.
``--markdown`` prints the docs' tables (docs/benchmarks.md) instead of the JSON (the targets, and each part's
figures), with the date, the commit and the machine.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks import stamp  # noqa: E402
from benchmarks.fresh import run_child  # noqa: E402

TAIHULIGHT = "pruned-fat-tree:preset=taihulight"
TREE_SIZES = (5120, 10240, 20480, 40960)
TREE_KINDS = ("kary", "knomial", "zhao", "hier-knomial")
CLI = ["-m", "vizcoll", "tree", "--kind", "hier-knomial", "--k", "32", "--topology", TAIHULIGHT, "--nprocs", "40960"]
FABRICS = {
    "fat tree 16,000": ("fat-tree:radix=40,levels=3", "grid3d:40x20x20"),
    "TaihuLight 40,960": (TAIHULIGHT, "grid3d:40x32x32"),
    "fat tree 65,536": ("fat-tree:radix=64,levels=3", "grid3d:64x32x32"),
}
RADIXES = (24, 32, 40, 48, 64)
GROUPS = (640, 1280, 2560, 5120)
SIZE_PATTERN = "random:1000,size=3"  # 1,000 groups of 3 random end nodes on every fabric
GROUPS_PATTERN = "random:{},size=12"  # 640 to 5,120 groups of 12 on the 64-port fat tree
FAT_TREE_128 = "fat-tree:radix=128,levels=3"  # 524,288 end nodes
GRID_128 = "grid3d:128x64x64"  # its lines: 20,480 groups
RAIL_SERVERS = (16384, 32768, 65536, 131072)  # x 8 rails: 131,072 to 1,048,576 NICs
RAIL = "rail-fat-tree:servers={},rails=8,radix=128"
MILLION_CLI = {
    "tree": ["tree", "--kind", "hier-knomial", "--k", "32", "--topology", FAT_TREE_128, "--nprocs", "524288"],
    "type2": ["type2", FAT_TREE_128, "--pattern", "hier:32768"],
    "kopt": ["kopt", "--P", "524288", "--a", "1.12", "--b", "0.01"],
}
TARGETS = {
    "hier-knomial build at 40,960 (s)": 1.0,
    "CLI end to end (s)": 2.0,
    "tree exponent": 1.2,
    "FULB-MC fat tree 16,000 (s)": 0.13,
    "FULB-MC TaihuLight 40,960 (s)": 0.35,
    "FULB-MC fat tree 65,536 (s)": 0.5,
    "SSSP-MC fat tree 65,536 (s)": 3.0,
    "peak memory (MB)": 2048,
    "rail 1,048,576: topology + hop data (s)": 10.0,
    "rail 1,048,576: peak memory (MB)": 4096,
    "FULB-MC fat tree 524,288, 20,480 groups (s)": 10.0,
    "CLI hier-knomial 524,288 end to end (s)": 5.0,
    "app 1,048,576: first answer cold, job + page (s)": 3.0,
    "app 1,048,576: the job's peak memory (MB)": 2048,
}


def best(fn, repeat: int) -> float:
    """The shortest of ``repeat`` wall-clock runs of ``fn()``."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def exponent(sizes, seconds) -> float:
    """Slope of the least-squares line through (log size, log seconds)."""
    import numpy as np

    return round(float(np.polyfit(np.log(sizes), np.log(seconds), 1)[0]), 2)


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


# ---------------------------------------------------------------- the parts (each in a child process)
def trees(repeat: int) -> dict:
    from vizcoll.comm import place
    from vizcoll.topology.generators import from_spec
    from vizcoll.trees.groups import hierarchy_from_topology
    from vizcoll.trees.typeone import hier_knomial_tree, kary_tree, knomial_tree, zhao_tree

    topo = from_spec(TAIHULIGHT)
    seconds: dict[str, list[float]] = {kind: [] for kind in TREE_KINDS}
    for size in TREE_SIZES:
        groups = hierarchy_from_topology(topo, place(topo, size))
        build = {
            "kary": lambda n=size: kary_tree(n, 32),
            "knomial": lambda n=size: knomial_tree(n, 32),
            "zhao": lambda g=groups: zhao_tree(g, 32),
            "hier-knomial": lambda g=groups: hier_knomial_tree(g, 32),
        }
        for kind in TREE_KINDS:
            seconds[kind].append(round(best(build[kind], repeat), 4))
    return {
        "sizes": list(TREE_SIZES),
        "seconds": seconds,
        "exponent": {kind: exponent(TREE_SIZES, s) for kind, s in seconds.items()},
        "peak_rss_mb": peak_rss_mb(),
    }


def cli(repeat: int) -> dict:
    def run():
        subprocess.run([sys.executable, *CLI], check=True, stdout=subprocess.DEVNULL, cwd=ROOT)

    seconds = best(run, repeat)
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return {"command": "vizcoll " + " ".join(CLI[2:]), "seconds": round(seconds, 3), "peak_rss_mb": round(peak, 1)}


def _route_times(spec: str, patterns: list[str], repeat: int) -> dict:
    from vizcoll.comm import parse_pattern
    from vizcoll.multicast import communicator_groups, route
    from vizcoll.topology.generators import from_spec
    from vizcoll.topology.hops import min_hops

    topo = from_spec(spec)
    table = min_hops(topo)
    out = {"end_nodes": len(topo.endpoints)}
    for pattern in patterns:
        groups = communicator_groups(parse_pattern(pattern, topo))
        out[pattern] = {
            "groups": len(groups),
            **{
                algo: round(min(route(topo, groups, algo, table).runtime_s for _ in range(repeat)), 4)
                for algo in ("fulb", "sssp")
            },
        }
    return out


def multicast(repeat: int) -> dict:
    out = {name: _route_times(spec, [pattern], repeat)[pattern] for name, (spec, pattern) in FABRICS.items()}
    return {**out, "peak_rss_mb": peak_rss_mb()}


def multicast_scaling(repeat: int) -> dict:
    by_size = [_route_times(f"fat-tree:radix={r},levels=3", [SIZE_PATTERN], repeat) for r in RADIXES]
    by_groups = _route_times("fat-tree:radix=64,levels=3", [GROUPS_PATTERN.format(g) for g in GROUPS], repeat)
    nodes = [row["end_nodes"] for row in by_size]
    out = {"end_nodes": nodes, "groups": list(GROUPS), "peak_rss_mb": peak_rss_mb()}
    for algo in ("fulb", "sssp"):
        size_s = [row[SIZE_PATTERN][algo] for row in by_size]
        group_s = [by_groups[GROUPS_PATTERN.format(g)][algo] for g in GROUPS]
        out[algo] = {
            "by_size": size_s,
            "size_exponent": exponent(nodes, size_s),
            "by_groups": group_s,
            "groups_exponent": exponent(GROUPS, group_s),
        }
    return out


def rail_step(servers: str) -> dict:
    """One rail fabric and its min-hop table, built in this (fresh) process."""
    from vizcoll.topology.generators import from_spec
    from vizcoll.topology.hops import min_hops

    start = time.perf_counter()
    topo = from_spec(RAIL.format(int(servers)))
    built = time.perf_counter()
    table = min_hops(topo)
    done = time.perf_counter()
    return {
        "seconds": done - start,
        "generate_s": round(built - start, 3),
        "hops_s": round(done - built, 3),
        "endpoints": len(topo.endpoints),
        "switches": len(topo.switches),
        "links": topo.n_links,
        "dist_mb": round(table.dist.nbytes / 2**20, 1),
        "peak_rss_mb": peak_rss_mb(),
    }


def fulb_step(_: str) -> dict:
    """FULB-MC on the 524,288-node fat tree with the lines of a 128x64x64 grid (routing time in ``seconds``)."""
    from vizcoll.comm import parse_pattern
    from vizcoll.multicast import communicator_groups, route
    from vizcoll.topology.generators import from_spec
    from vizcoll.topology.hops import min_hops

    start = time.perf_counter()
    topo = from_spec(FAT_TREE_128)
    table = min_hops(topo)
    groups = communicator_groups(parse_pattern(GRID_128, topo))
    built = time.perf_counter()
    result = route(topo, groups, "fulb", table)
    return {
        "seconds": result.runtime_s,
        "build_s": round(built - start, 3),
        "groups": len(groups),
        "max_efi": result.summary()["max_efi"],
        "peak_rss_mb": peak_rss_mb(),
    }


def cli_step(name: str) -> dict:
    """One CLI command of :data:`MILLION_CLI` end to end (a new process), with that process's peak memory."""
    start = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-m", "vizcoll", *MILLION_CLI[name]], check=True, capture_output=True, text=True, cwd=ROOT
    ).stdout
    seconds = time.perf_counter() - start
    summary = {key: value for key, value in json.loads(out).items() if isinstance(value, int | float | str)}
    return {
        "seconds": seconds,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024,
        "output": summary,
    }


def _app(cache_dir: str):
    """A Flask app whose cache is ``cache_dir`` (the shared cache a job fills and a web worker reads)."""
    from flask import Flask

    from vizcoll.ui.cache import init_cache

    app = Flask("scaling")
    init_cache(app, {"CACHE_TYPE": "FileSystemCache", "CACHE_DIR": cache_dir})
    return app


def app_job_step(cache_dir: str) -> dict:
    """The app's background job that builds the 1M-NIC fabric (with its positions and blocks) into the cache."""
    from vizcoll.scenario import Scenario
    from vizcoll.topology.rails import RAIL_MILLION
    from vizcoll.ui.fabricjob import build_job

    app, order = _app(cache_dir), {"run": 1, "scenario": Scenario(spec=RAIL_MILLION).to_dict(thin=True)}
    start = time.perf_counter()
    with app.app_context():
        assert build_job(lambda progress: None, order) == {"built": 1, "message": ""}
    return {"seconds": time.perf_counter() - start, "peak_rss_mb": peak_rss_mb()}


def app_page_step(cache_dir: str) -> dict:
    """A cold web worker's first answer on /topology once the job is done: the badge, the overview, the rest."""
    from vizcoll.scenario import Scenario
    from vizcoll.topology.rails import RAIL_MILLION
    from vizcoll.ui.pages.topology.page import compute_broadcast, render_scenario
    from vizcoll.ui.shell import render_badge

    app, data = _app(cache_dir), Scenario(spec=RAIL_MILLION).to_dict(thin=True)
    start = time.perf_counter()
    with app.test_request_context():
        render_badge(data)
        assert "grouped" in render_scenario(data)[2].layout.title.text
        compute_broadcast(data)
    return {"seconds": time.perf_counter() - start, "peak_rss_mb": peak_rss_mb()}


STEPS = {"rail": rail_step, "fulb": fulb_step, "cli_step": cli_step, "app_job": app_job_step, "app_page": app_page_step}


def app_first(repeat: int) -> dict:
    """The app's first answer on the 1M-NIC fabric, cold: its background job, then a fresh web worker's /topology
    (each a fresh process on an empty cache; the browser's polling and drawing not counted)."""
    runs = []
    for _ in range(repeat):
        with tempfile.TemporaryDirectory(prefix="vizcoll-scaling-") as cache_dir:
            job, page = (
                run_child(__file__, "app_job", "--arg", cache_dir),
                run_child(__file__, "app_page", "--arg", cache_dir),
            )
        runs.append(
            {
                "seconds": job["seconds"] + page["seconds"],
                "job_s": round(job["seconds"], 3),
                "page_s": round(page["seconds"], 3),
                "job_peak_rss_mb": job["peak_rss_mb"],
                "page_peak_rss_mb": page["peak_rss_mb"],
            }
        )
    fastest = min(runs, key=lambda r: r["seconds"])
    return {
        **fastest,
        "seconds": round(fastest["seconds"], 3),
        "job_peak_rss_mb": round(max(r["job_peak_rss_mb"] for r in runs), 1),
    }


def fresh(step: str, arg: str, repeat: int) -> dict:
    """``step(arg)`` in ``repeat`` fresh processes: the fastest run's figures, with the largest peak memory."""
    runs = [run_child(__file__, step, "--arg", arg) for _ in range(repeat)]
    fastest = min(runs, key=lambda r: r["seconds"])
    return {
        **fastest,
        "seconds": round(fastest["seconds"], 3),
        "peak_rss_mb": round(max(r["peak_rss_mb"] for r in runs), 1),
    }


def million(repeat: int) -> dict:
    rails = [fresh("rail", str(s), repeat) for s in RAIL_SERVERS]
    nics = [row["endpoints"] for row in rails]
    out = {
        "rail": {
            "endpoints": nics,
            "seconds": [row["seconds"] for row in rails],
            "exponent": exponent(nics, [row["seconds"] for row in rails]),
            "largest": rails[-1],
        },
        "fulb": fresh("fulb", "", repeat),
        "app": app_first(repeat),
    }
    out["cli"] = {
        name: {"command": "vizcoll " + " ".join(MILLION_CLI[name]), **fresh("cli_step", name, repeat)}
        for name in MILLION_CLI
    }
    out["peak_rss_mb"] = max(
        rails[-1]["peak_rss_mb"], out["fulb"]["peak_rss_mb"], *(c["peak_rss_mb"] for c in out["cli"].values())
    )
    return out


PARTS = {"trees": trees, "cli": cli, "multicast": multicast, "multicast_scaling": multicast_scaling, "million": million}


# ---------------------------------------------------------------- targets and plots
def targets(result: dict) -> dict:
    """Each target of the issues whose part ran, the measured value and whether it holds."""
    measured = {}
    if "trees" in result:
        measured["hier-knomial build at 40,960 (s)"] = result["trees"]["seconds"]["hier-knomial"][-1]
        measured["tree exponent"] = max(result["trees"]["exponent"].values())
    if "cli" in result:
        measured["CLI end to end (s)"] = result["cli"]["seconds"]
    if "multicast" in result:
        mc = result["multicast"]
        measured.update(
            {
                "FULB-MC fat tree 16,000 (s)": mc["fat tree 16,000"]["fulb"],
                "FULB-MC TaihuLight 40,960 (s)": mc["TaihuLight 40,960"]["fulb"],
                "FULB-MC fat tree 65,536 (s)": mc["fat tree 65,536"]["fulb"],
                "SSSP-MC fat tree 65,536 (s)": mc["fat tree 65,536"]["sssp"],
            }
        )
    if result.get("peak_rss_mb") is not None:
        measured["peak memory (MB)"] = result["peak_rss_mb"]
    if "million" in result:
        big = result["million"]
        measured.update(
            {
                "rail 1,048,576: topology + hop data (s)": big["rail"]["largest"]["seconds"],
                "rail 1,048,576: peak memory (MB)": big["rail"]["largest"]["peak_rss_mb"],
                "FULB-MC fat tree 524,288, 20,480 groups (s)": big["fulb"]["seconds"],
                "CLI hier-knomial 524,288 end to end (s)": big["cli"]["tree"]["seconds"],
                "app 1,048,576: first answer cold, job + page (s)": big["app"]["seconds"],
                "app 1,048,576: the job's peak memory (MB)": big["app"]["job_peak_rss_mb"],
            }
        )
    return {
        name: {"target": TARGETS[name], "measured": value, "met": value <= TARGETS[name]}
        for name, value in measured.items()
    }


def plots(result: dict, folder: Path) -> list[str]:
    """Log-log charts of the builders' and the routings' times (PNG and SVG); the written file names."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    colours = {
        "kary": "#0072b2",
        "knomial": "#e69f00",
        "zhao": "#009e73",
        "hier-knomial": "#cc79a7",
        "fulb": "#0072b2",
        "sssp": "#d55e00",
    }  # colour-blind safe (Okabe-Ito)

    def log_axes(fig: go.Figure, title: str) -> go.Figure:
        fig.update_layout(
            title={"text": title, "x": 0.01},
            width=900,
            height=460,
            plot_bgcolor="white",
            margin={"l": 70, "r": 20, "t": 70, "b": 110},
            legend={"orientation": "h", "y": -0.22, "x": 0, "yanchor": "top"},
        )
        fig.update_xaxes(type="log", gridcolor="#e5e9f0")
        fig.update_yaxes(type="log", gridcolor="#e5e9f0")
        fig.layout.yaxis.title.text = "seconds (best of runs)"
        return fig

    t = result["trees"]
    tree_fig = log_axes(
        make_subplots(rows=1, cols=1), "Type I tree builders on TaihuLight (k = 32): time against processes"
    )
    tree_fig.update_xaxes(title_text="processes")
    for kind in TREE_KINDS:
        tree_fig.add_trace(
            go.Scatter(
                x=t["sizes"],
                y=t["seconds"][kind],
                mode="lines+markers",
                line={"color": colours[kind]},
                name=f"{kind}: exponent {t['exponent'][kind]}",
            )
        )
    s = result["multicast_scaling"]
    mc_fig = log_axes(
        make_subplots(
            rows=1,
            cols=2,
            subplot_titles=(
                "fat trees of 24- to 64-port switches, 1,000 groups of 3",
                "64-port fat tree, groups of 12",
            ),
        ),
        "Multicast routing time against end nodes and groups (fitted exponents in the legend)",
    )
    mc_fig.update_xaxes(title_text="end nodes", col=1)
    mc_fig.update_xaxes(title_text="groups", col=2)
    for algo, label in (("fulb", "FULB-MC"), ("sssp", "SSSP-MC")):
        mc_fig.add_trace(
            go.Scatter(
                x=s["end_nodes"],
                y=s[algo]["by_size"],
                mode="lines+markers",
                line={"color": colours[algo]},
                name=f"{label} vs end nodes: {s[algo]['size_exponent']}",
            ),
            1,
            1,
        )
        mc_fig.add_trace(
            go.Scatter(
                x=s["groups"],
                y=s[algo]["by_groups"],
                mode="lines+markers",
                line={"color": colours[algo], "dash": "dot"},
                name=f"{label} vs groups: {s[algo]['groups_exponent']}",
            ),
            1,
            2,
        )
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, fig in (("scaling-trees", tree_fig), ("scaling-multicast", mc_fig)):
        for ext in ("png", "svg"):
            fig.write_image(folder / f"{name}.{ext}")
            written.append(f"{name}.{ext}")
    return written


# ---------------------------------------------------------------- --markdown
def _targets_table(result: dict) -> str:
    rows = []
    for name, t in result["targets"].items():
        label, _, unit = name.rpartition(" (")
        label, unit = (label, " " + unit.rstrip(")")) if label else (name, "")
        rows.append(
            [f"{label} (≤ {t['target']:g}{unit})", f"{t['measured']:.4g}{unit}", "yes" if t["met"] else "**no**"]
        )
    return stamp.table(["target", "measured", "met"], rows, right=[1])


def _trees_table(trees: dict) -> str:
    rows = [
        [kind, *(f"{s * 1000:.0f} ms" for s in seconds), f"{trees['exponent'][kind]:.2f}"]
        for kind, seconds in trees["seconds"].items()
    ]
    heads = ["builder (k = 32, TaihuLight)", *(f"{n:,} processes" for n in trees["sizes"]), "exponent"]
    return stamp.table(heads, rows, right=range(1, 2 + len(trees["sizes"])))


def _multicast_table(result: dict) -> str:
    tables = []
    if "multicast" in result:
        rows = [
            [name, f"{r['groups']:,}", f"{r['fulb']:.3f} s", f"{r['sssp']:.3f} s"]
            for name, r in result["multicast"].items()
            if name != "peak_rss_mb"
        ]
        heads = ["routing only (fabric, its min-hop table built before)", "groups", "FULB-MC", "SSSP-MC"]
        tables.append(stamp.table(heads, rows, right=[1, 2, 3]))
    if "multicast_scaling" in result:
        s = result["multicast_scaling"]
        rows = [[label, f"{s[a]['size_exponent']:.2f}", f"{s[a]['groups_exponent']:.2f}"] for a, label in ALGOS]
        heads = ["fitted exponent", "against end nodes (1,000 groups of 3)", "against groups (64-port fat tree)"]
        tables.append(stamp.table(heads, rows, right=[1, 2]))
    return "\n\n".join(tables)


ALGOS = (("fulb", "FULB-MC"), ("sssp", "SSSP-MC"))


def _million_table(big: dict) -> str:
    rail = big["rail"]
    rows = [
        [
            "rail fabric + min-hop table, " + " / ".join(f"{n:,}" for n in rail["endpoints"]) + " NICs"
            f" (fitted exponent {rail['exponent']:.2f})",
            " / ".join(f"{x:.2f}" for x in rail["seconds"]),
            f"{rail['largest']['peak_rss_mb']:.0f} MB at the largest",
        ],
        [
            f"FULB-MC, 524,288-node fat tree, {big['fulb']['groups']:,} groups (routing; fabric + table before it)",
            f"{big['fulb']['seconds']:.2f} ({big['fulb']['build_s']:.2f})",
            f"{big['fulb']['peak_rss_mb']:.0f} MB",
        ],
        [
            "the app's first answer on the 1,048,576-NIC fabric, cold: the build job + a fresh worker's /topology",
            f"{big['app']['seconds']:.2f} (job {big['app']['job_s']:.2f}, page {big['app']['page_s']:.2f})",
            f"{big['app']['job_peak_rss_mb']:.0f} MB (the job)",
        ],
    ]
    rows += [[f"`{c['command']}`", f"{c['seconds']:.2f}", f"{c['peak_rss_mb']:.0f} MB"] for c in big["cli"].values()]
    return stamp.table(["also measured", "seconds", "peak memory"], rows, right=[1, 2])


def markdown(result: dict) -> str:
    """The targets, then each part's table, then the stamp."""
    parts = [_targets_table(result)]
    if "trees" in result:
        parts.append(_trees_table(result["trees"]))
    if "multicast" in result or "multicast_scaling" in result:
        parts.append(_multicast_table(result))
    if "million" in result:
        parts.append(_million_table(result["million"]))
    return "\n\n".join([*parts, stamp.measured()])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement; the best is kept")
    parser.add_argument("--plots", metavar="DIR", help="write the scaling charts (PNG, SVG) into DIR")
    parser.add_argument("--parts", default=",".join(PARTS), help="comma-separated parts to run (default: all)")
    parser.add_argument("--markdown", action="store_true", help="Markdown tables with the date, commit and machine")
    parser.add_argument("--child", choices=sorted({*PARTS, *STEPS}), help=argparse.SUPPRESS)
    parser.add_argument("--arg", default="", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        from vizcoll.runtime import tune_gc

        tune_gc()  # as the CLI and the web app run the engine
        run = STEPS[args.child](args.arg) if args.child in STEPS else PARTS[args.child](max(1, args.repeat))
        print(json.dumps(run))
        return
    chosen = [part for part in args.parts.split(",") if part]
    unknown = sorted(set(chosen) - set(PARTS))
    if unknown:
        parser.error(f"unknown parts {unknown}; choose from {sorted(PARTS)}")
    result = {part: run_child(__file__, part, "--repeat", str(args.repeat)) for part in chosen}
    paper = [part["peak_rss_mb"] for name, part in result.items() if name != "million"]
    result["peak_rss_mb"] = round(max(paper), 1) if paper else None
    result["targets"] = targets(result)
    if args.plots and {"trees", "multicast_scaling"} <= set(result):
        os.environ.setdefault("BROWSER_PATH", "/usr/bin/chromium")
        result["plots"] = plots(result, Path(args.plots))
    print(markdown(result) if args.markdown else json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
