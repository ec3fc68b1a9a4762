"""No wall-clock timing of vizcoll's own code in the comments and docstrings of ``vizcoll/``.

A figure such as "0.7 s less" or "2.48 s instead of 3.21 s" goes stale with the next machine or the next change,
and nobody reruns a comment. The figures live in docs/design.md (with the command, the date and the machine that
measured them); the source keeps the reason and points there ("... (measured: docs/design.md)").

A line is flagged when it quotes a duration (a number and ``s``, ``ms``, ``μs``, ``ns``, ``min``, ``seconds``, ...),
unless the duration is not a measurement of our code's speed:

- a setting or a clock: the number follows ``=`` (``alpha = 50 μs``, ``t = 1,200 ns``), or a rate (``ms/MB``);
- a doctest (its input and its output);
- a line about a model, a simulated time or a rule (:data:`MODEL`: the paper's figures, defaults, latencies, timeouts,
  work in a simulated program, a model's Greek parameters, a caption's clock, a limit per frame), unless the line
  also says it was measured (:data:`MEASURED`: "took", "takes", "medians", "instead of", "cold", ...).

Nothing is run or timed here. ``MOVED`` keeps the lines that were moved to docs/design.md, as they were, so that
the pattern keeps catching their kind; ``KEPT`` keeps lines that must stay allowed.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCES = sorted((ROOT / "vizcoll").rglob("*.py"))

_NUMBER = r"\d(?:[\d,]*\d)?(?:\.\d+)?"
DURATION = re.compile(
    rf"(?<![\w.]){_NUMBER}(?:\s*[-–]\s*{_NUMBER})?\+?\s*"
    r"(?:s|ms|µs|μs|us|ns|min|mins|minutes?|seconds?|secs?|h|hours?)(?![\w/-])"
)
"""A duration: ``0.7 s``, ``2.3-3.4 s``, ``266–284 ms``, ``100+ ms``, ``1.5 μs``, ``22 min`` (not ``ms/MB``)."""
SETTING = re.compile(r"=\s*$")
"""What comes before a duration that is a value given, not measured (``theta = 4.2 ms``, ``t = 12 µs``)."""
MODEL = re.compile(
    r"paper's|\(paper\b|\bthe paper\b|\bof work\b|\bprogram\b|\blatency\b|\btimeouts?\b|\bdefaults\b|\bby default\b"
    r"|\bsimulated\b|\bat full speed\b|\bper frame\b|\blinger\b|\bno sooner than\b|\ba message\b|\bpoll every\b"
    r"|\bper round\b|\breduction time\b|\bcaption\b|\bat each speed\b|≈|[αβγεθλ]",
    re.IGNORECASE,
)
"""Words of a line about a model, a simulated time or a rule."""
MEASURED = re.compile(
    r"\btook\b|\btakes?\b|\bcosts\b|\bmeasured\b|\bmedians?\b|\balternated\b|\binstead of\b|\bcold\b|\bwarm\b"
    r"|\bbenchmarks/|\b2-core\b|\btwo cores\b|\bissue \d+",
    re.IGNORECASE,
)
"""Words of a line that reports a measurement, whatever else it says."""
DOCTEST = re.compile(r"^\s*(?:>>>|\.\.\.)(?: |$)")


def quotes_timing(line: str) -> bool:
    """Does ``line`` (a comment or a docstring line, not a doctest) quote a measured duration?"""
    found = [m for m in DURATION.finditer(line) if not SETTING.search(line[: m.start()])]
    return bool(found) and (bool(MEASURED.search(line)) or not MODEL.search(line))


def _docstring_lines(source: list[str], node: ast.Expr) -> list[tuple[int, str]]:
    """The lines of a string statement (a docstring, of a module, class, function or attribute), doctests left out."""
    out, in_doctest = [], False
    for number in range(node.lineno, node.end_lineno + 1):
        line = source[number - 1]
        if DOCTEST.match(line):
            in_doctest = True
        elif not line.strip() or line.strip().startswith('"""'):
            in_doctest = False  # a doctest's output ends at a blank line
        if not in_doctest:
            out.append((number, line))
    return out


def prose_lines(path: Path) -> dict[int, str]:
    """Line number -> text of every comment (:mod:`tokenize`) and docstring line (:mod:`ast`) of ``path``."""
    text = path.read_text(encoding="utf-8")
    source = text.splitlines()
    lines = {}
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.COMMENT:
            lines[token.start[0]] = token.string
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            lines.update(_docstring_lines(source, node))
    return lines


def test_no_measured_timing_in_comments_or_docstrings():
    found = [
        f"{path.relative_to(ROOT).as_posix()}:{number}: {line.strip()}"
        for path in SOURCES
        for number, line in sorted(prose_lines(path).items())
        if quotes_timing(line)
    ]
    assert not found, "move these figures to docs/design.md and point there:\n" + "\n".join(found)


# The lines moved to docs/design.md (2026-12-07), as they were in their files.
MOVED = {
    "vizcoll/cli.py": [
        'costs what it uses, not the import of every feature (``goal show``: 0.7 s less)."""',
    ],
    "vizcoll/multicast/results.py": [
        'took 0.12 s to pickle tree by tree (the engine cache stores every routing), and as long to load."""',
    ],
    "vizcoll/schedule/columns.py": [
        (
            ":class:`~vizcoll.schedule.model.Op` object and one tuple per entry (measured: 0.15 s to make the "
            "operations alone,"
        ),
        (
            "about 1.5 μs each), which a :class:`~vizcoll.schedule.model.Schedule` read from a file makes only if "
            "asked for them."
        ),
    ],
    "vizcoll/schedule/goal_columns.py": [
        (
            "Why by hand: the line-by-line reader takes 1.6 s for a 6.7 MB file (307,198 lines: a Rabenseifner "
            "reduction of"
        ),
        "4,096 ranks), Python's ``re`` 0.2 s to only find its operations and dependencies and as much again to make",
        "numbers, column by column (about 0.1 s).",
    ],
    "vizcoll/schedule/loggp_events.py": [
        (
            "lists: an event costs about 4 μs, which reading the same state through attributes of an object (about 40 "
            "% more"
        ),
    ],
    "vizcoll/sim/events.py": [
        "columns: an object per event costs about 5 μs to make and 1 μs to read back, seconds at that size.",
    ],
    "vizcoll/sim/timeline.py": [
        'of a replay of 49,186 events read them once per step: 0.44 s)."""',
        "the columns (a caption each costs a search of its step's kinds: 17 ms for TREFT's 306 steps, 4 ms so).",
    ],
    "vizcoll/topology/layout.py": [
        "# a mask, not setdiff1d: 0.8 s less on a million nodes",
    ],
    "vizcoll/topology/rails.py": [
        "8,192 switches, 4.4 MB, shared by the 8 rails) it takes 2.3-3.4 s and 814 MB peak on the 2-core machine",
    ],
    "vizcoll/topology/twins.py": [
        (
            "takes 0.1 s and 70 MB instead of 4.6 s and 420 MB on the 2-core machine. A fabric without twins (a torus) "
            "is"
        ),
    ],
    "vizcoll/trees/typeone.py": [
        (
            "The labels are read joined, in a few passes of C (65,536 of them: 12 ms, not 43): when the joined text "
            "splits"
        ),
    ],
    "vizcoll/ui/cache.py": [
        (
            "at once by a threaded server, would each unpickle the same million-node fabric (0.5 s each, one at a "
            'time)."""'
        ),
    ],
    "vizcoll/ui/components/player.py": [
        "writes the caption. A step takes one round trip, about 50 ms on a large fabric",
        (
            "(``assets/overview.js``; the figure itself is not redrawn: Plotly takes 100+ ms a step on a few thousand "
            'marks)."""'
        ),
    ],
    "vizcoll/ui/components/tables.py": [
        (
            "opened), and its first frame came ~0.1 s sooner in a new browser (medians of 10, alternated: 2.33 → 2.12 "
            "s and"
        ),
        "2.11 → 2.02 s).",
    ],
    "vizcoll/ui/export/render.py": [
        "``chromium`` on ``PATH``); starting it takes seconds (about 2–12 s here), a",
        "figure then 0.1–0.3 s. :func:`render` keeps one kaleido session per process",
    ],
    "vizcoll/ui/fabricjob.py": [
        "1.6 s with its positions and blocks, 802 MB at the peak) is not built in a request: there",
    ],
    "vizcoll/ui/figures/blocks.py": [
        "and styles but draws none of them (styling a thousand marks of size 0 cost it about 0.1 s per figure), and",
    ],
    "vizcoll/ui/figures/margins.py": [
        "time of drawing the 1,570-node cluster's overview (issue 23: 266–284 ms with it, 119–132 ms without, its",
    ],
    "vizcoll/ui/figures/style.py": [
        (
            "time (about 0.1 s in all), so a web worker does it at start-up instead of in its first visitor's "
            'request."""'
        ),
    ],
    "vizcoll/ui/hints.py": [
        ("- the page's main thread on /trees was busy 1.67 s instead of 1.92 s (one trace each): 0.37 s of evaluating"),
        "scripts instead of 0.54 s, 0.17 s of parsing functions instead of 0.33 s;",
        (
            "- first frame, medians of 10, alternated: /trees 1.89 s instead of 2.00 s, /topology 1.64 s instead of "
            "1.81 s."
        ),
    ],
    "vizcoll/ui/limits.py": [
        (
            '"""A generated fabric of more nodes is built by a background job (the 1,114,112-node rail fabric: 1.6 s '
            "with its"
        ),
        'every message (a rail of the 1,048,576-NIC fabric alone, 139,264 nodes, took 20 s cold)."""',
        (
            '"""Frames of one exported animation: kaleido renders a frame in about 0.25 s, so 600 frames keep a job '
            "within"
        ),
        (
            "about 3 minutes (the default scenario's players have 7 to 72 steps; a longer timeline is exported in "
            'parts)."""'
        ),
    ],
    "vizcoll/ui/models/rails.py": [
        (
            "(the engine: the app takes 200,000 nodes): a 2-ary tree 0.37 s, a 4-ary 0.32 s, a 4-nomial 0.24 s, Zhao's "
            "0.56 s"
        ),
        (
            "and the hierarchical 32-nomial 0.62 s (half of it grouping the processes by leaf switch); a pattern's "
            "groups"
        ),
        (
            "0.11 s (grid3d:64x32x32, 5,120 groups) to 0.31 s (grid2d:1024x1024, every NIC). Through the page's "
            "callback on"
        ),
        "0.33 s cold, 1 ms cached.",
    ],
    "vizcoll/ui/pages/barrier/_model.py": [
        (
            "**What takes long** (measured on the 2-core development machine, cold cache): the full sweep 26 s, the "
            "quick"
        ),
        "one 1.8 s (:func:`run_sweep`, progress cell by cell); a run of 20 barriers on a 16 x 16 grid up to 4.7 s",
        "(dissemination; MS and tournament 1.3–1.4 s; 3 barriers: 0.5 s at most); on TaihuLight, 16 processes and 3",
        (
            "barriers 0.25 s with the overview's frames, 256 processes and 20 barriers up to 2.4 s; Break at random on "
            "a fabric of"
        ),
        "16,464 links 1.2 s (half broken) to 1.9 s (all), and the page allows 20,000 links. The page runs these as",
        "background jobs (:mod:`vizcoll.ui.jobs`). The LCT / BST view (0.01 s), the UQ histogram (0.14 s on 8 x 8),",
        "the run plan and the GOAL export (0.06 s on 16 x 16) answer at once. A view that reads a store from the",
        '"""The sweep if a job computed it, else None (a view never starts the 26 s sweep itself)."""',
        '(measured above: 16 processes, 3 barriers on TaihuLight 0.25 s; 16 x 16 grids about 0.25 s a barrier)."""',
    ],
    "vizcoll/ui/pages/barrier/page.py": [
        (
            "and a Cancel button that keeps the last result: the run when it is not light (``bar-run``: up to 4.7 s; a "
            "change"
        ),
        (
            "while it runs replaces it), Break at random (``bar-breaks``: up to 2.5 s) and the sweep (``bar-sweep``: "
            "1.8 s"
        ),
        (
            "quick, 26 s full, cell by cell; the sweep choice is locked meanwhile). The stores the views read are "
            "checked again."
        ),
    ],
    "vizcoll/ui/pages/erasure/_model.py": [
        (
            "the 2-core development machine, cold cache, FMEL with the page's budgets: n = 32, k = 16 on N = 4 DCs 1.3 "
            "s,"
        ),
        "N = 8 4.9 s, N = 16 104–157 s (150 schemes of about 1 s, none constructible: the Reed–Solomon baseline",
        (
            "stays); Azure LRC (32, 16) on 4 DCs 2.4 s; every other family below 1.2 s. The comparison of every family "
            "runs"
        ),
        "the FMEL search once or more (:func:`compare_result`): n = 9 0.05 s, n = 32 on 8 DCs about 6–13 s, more",
    ],
    "vizcoll/ui/pages/faults/_model.py": [
        "Timings (the 2-core development machine, cold cache): a reduction replay of 32 processes 0.01 s, one TREFT",
        ("replay 0.03–0.07 s; the overhead chart runs TREFT 18 times (3 variants x 6 programs): 1.7 s, 2.4 s with the"),
    ],
    "vizcoll/ui/pages/faults/page.py": [
        ("The overhead chart (18 TREFT runs: 1.7–2.4 s on the 2-core development machine, cold cache) is a background"),
        "(0.01–0.07 s) answer at once. The views read the checked parameters from the scenario on the server; the",
    ],
    "vizcoll/ui/pages/multicast/_model.py": [
        (
            "SSSP-MC and FULB-MC, both algorithms and the figures in the request, 0.65 s; TaihuLight (46,144 nodes) "
            "A's first"
        ),
        (
            "view 0.9–1.3 s, then B and the comparison 0.7 s; the radix-64 fat tree (70,656 nodes) 1.0–1.1 s, then 0.8 "
            's."""'
        ),
    ],
    "vizcoll/ui/pages/schedules/_model.py": [
        (
            '"""Messages replayed on a large fabric\'s overview: all routed at once on the server (0.03 s for the '
            "16,383 of a"
        ),
        'operations) takes 2 s (parsing 0.8 s, the checks 0.4 s, LogGP 0.6 s), about 1 s per MB."""',
    ],
    "vizcoll/ui/pages/schedules/_views.py": [
        (
            "once for every worker. The timeline goes to the player as it is computed: its dict read back as events "
            "(0.9 s"
        ),
    ],
    "vizcoll/ui/pages/schedules/page.py": [
        'took longer than the rest of the page (0.8 s for a binomial reduce of 16,384 ranks on TaihuLight)."""',
    ],
    "vizcoll/ui/pages/topology/_model.py": [
        (
            "Measured on two cores: GraphML 0.23 s per MB (a 14 MB one, 18,000 nodes, 3.3 s), ibnetdiscover 0.11 s per "
            "MB,"
        ),
        'vizcoll\'s JSON 0.03 s per MB."""',
    ],
    "vizcoll/ui/pages/topology/page.py": [
        (
            "/topology, in a new Chromium, showed it in 1.39 s instead of 1.62 s (from the navigation's start, medians "
            "of"
        ),
    ],
    "vizcoll/ui/pages/trees/_model.py": [
        (
            "routed at once. In the request: 1,356 processes on the 1,570-node cluster of issue 23 0.05-0.24 s a view "
            "(the"
        ),
        "aggregation's player the most); 2,048 on fat-tree:radix=40,levels=3 (18,000 nodes) 0.10-0.43 s; 2,048 on",
        ("TaihuLight (46,144 nodes) 0.28-0.60 s. As a job: the 64-port fat tree (70,656 nodes) at any size, and every"),
        "browser took 5.4 s as a job, 3.9 s in the request (``benchmarks/players.py``).",
        ("process of TaihuLight (40,960), hierarchical 32-nomial, 297,588 events in 115 steps, 1.05 s and 0.77 s; its"),
        "2-ary tree (the longest routes) 613,308 events, 3.0 s and 1.45 s; the 64-port fat tree's 65,536 processes",
        "2-ary, 978,812 events, 2.9 s and 1.9 s, 1.0 GB at the peak. Above :data:`JOB_PROCESSES` processes the page",
    ],
    "vizcoll/ui/routing.py": [
        (
            "came in 2.02 s instead of 2.13 s, then 1.94 s instead of 2.00 s (two runs, medians of 6, alternated; "
            "issue 23)."
        ),
    ],
    "vizcoll/ui/vendor.py": [
        (
            "cluster's share link on /topology in a new headless Chromium took 2.48 s instead of 3.21 s (median of 8 "
            "each,"
        ),
        ("and dcc's lazy components are compiled against it); the rest costs a new browser about 0.15 s to set up and"),
        ("styles (about 0.12 s of drawing the cluster's figures on /trees). Where the page would load the polyfill it"),
        (
            "2.87 s with the polyfill, 2.44 s with neither it nor dash-cytoscape's extra bundle (medians of 6, "
            "alternated)."
        ),
    ],
}


@pytest.mark.parametrize("line", [line for lines in MOVED.values() for line in lines], ids=lambda line: line[:40])
def test_the_moved_lines_are_caught(line):
    assert quotes_timing(line)


KEPT = [
    "of work between two of them (0.5 s), and measures the program's run time (the",
    "the failed runs instead), then runs the test program (3 barriers, 0.5 s of",
    "connect would linger for 20 s; a service that is not Dask can answer anything).",
    "none. The defaults (0.1 ms a message, 1 ms to compute a group's routes, a",
    "poll every 0.5 ms, timeouts of 10 ms) keep the order of events readable.",
    "(section 4.4); ``alpha = 50 μs``: an MPI point-to-point latency on 10 GbE.",
    "- ``theta`` (θ) = 4.2 ms: sending one reduction message or task through the",
    "128 KB and 1.60 s at 128 MB, that is about 11.4 ns per byte (≈ 8 rounds of",
    "about 41 ms for 32 MB at full speed, longer while the victim is busy), so",
    "Captions start with the step's time (\"t = 1,200 ns: ...\"): LogGOPSim's time unit is nominally the nanosecond.",
    '12 µs): DLCT first: barrier release; Tree is still at: (its caption)". Key moments, not single messages: two',
    "``ε = 0.2`` μs. That is ``1/β + γ = 1e-4`` μs/B, and the extra 0.001 μs",
    "(t̄ = 86.6, 83.2, 62.1, 82.1 ms/MB for FMEL(6,2),",
    "One-way network latency in seconds (paper: 100 ms).",
    "The network (defaults: the paper's 100 ms and 13.98 Mbps).",
    "loaded, and React 18 shows again a part it suspended no sooner than 500 ms after it hid it (react-dom's",
    "Milliseconds a step at each speed: 16× plays a run of 683 steps (an 8×8 DLCT run of three barriers) in 34 s.",
    "From 10 s per frame (a lecture) to 30 frames per second (a GIF cannot show frames shorter than 20 ms).",
    "``fat-tree:radix=40,levels=3``, ``torus:30x20x20,hosts=2``, ``dragonfly:a=18,p=9,h=9`` or the rail-optimized",
    "*8-neighbor* grid with greedy Euclidean forwarding. On the 4x4 S-curve with",
    "# here, not at import: networkx is a tenth of a second of the CLI's start-up",
]


@pytest.mark.parametrize("line", KEPT, ids=lambda line: line[:40])
def test_settings_models_and_rules_are_not_flagged(line):
    assert not quotes_timing(line)


def test_doctests_and_their_output_are_left_out(tmp_path):
    path = tmp_path / "example.py"
    path.write_text(
        'def f():\n    """Sleep.\n\n    >>> f()  # took 3 s here\n    \'took 2.5 s\'\n\n    It took 4 s.\n    """\n',
        encoding="utf-8",
    )
    assert [number for number, line in prose_lines(path).items() if quotes_timing(line)] == [7]
