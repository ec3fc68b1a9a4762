"""Speed guard: the key cases timed on a base commit and on the working tree, side by side; fails when one got slower.

Run ``python benchmarks/guard.py --base REV`` (REV: any commit; default: the one in ``benchmarks/BASE``). The base
is checked out with ``git worktree add --detach`` into a temporary folder (removed at the end, on an error or
Ctrl-C too); the head is this working tree, uncommitted changes included. Each case runs in a fresh process with
a fresh cache directory, the two trees interleaved (base, head, base, head, ...), ``--repeat N`` times each (default
3), and the best time of each tree is kept. A case found slower is timed ``--confirm N`` more times on both trees
(default 3) and judged on the best of all its runs: one busy moment on a shared machine does not fail it. Progress
goes to stderr; stdout gets one JSON list of rows ``{"case", "base_s", "head_s", "ratio"}`` (``--markdown``: a
Markdown table, then the date, both commits and the machine).

**Ratio** = ``head_s / base_s``: 1.00 is as fast as the base, 1.30 is 30% slower, 0.50 twice as fast. The guard exits
1 when a row is slower beyond ``--threshold`` (default 1.25) *and* by more than ``--floor`` seconds (default 0.05):
times of a few tens of milliseconds (a warm page, a small file) vary by more than a quarter from one process to the
next on a shared machine, so those rows are shown but fail only when the difference itself is worth a look. A case
that fails on the head fails the guard (its stderr is shown); a case that does not exist or fails on the base (a
command or a case added since) gives ``base_s: null, ratio: null`` and never fails it.

**Cases** (``--case SUBSTRING``, repeatable, keeps those whose name contains one; ``--quick`` the set CI runs):

- every page's key action at paper scale, as ``benchmarks/pages.py --child NAME`` of each tree's own copy (the
  callbacks called in-process, see that script): its first answer on an empty cache ``(cold)`` and again from the
  shared cache ``(warm)``, two rows of one process;
- the command line's largest runs, each the whole process (``python -m vizcoll ...`` from the tree's folder, the
  interpreter's start and the imports included): a GOAL file's LogGP timing (the file written once with the head
  tree, not timed), multicast routing and the hierarchical tree on the 64-port fat tree (65,536 end nodes), k*;
- a real fabric file: ``$VIZCOLL_REAL_FABRICS/fattreebuilder-k4n3.topo`` (default ``../shared/data/real-fabrics``
  beside the repository, as in ``tests/fabrics.py``) read and routed by the command line, or, where that folder is
  missing, ``tests/data/cluster/cluster.net`` (an ibsim file every base reads); and ``pages.py --fabric``
  uploading it (``--fabric`` is newer than the first base: null there until ``BASE`` moves past it).

**CI** (``scripts/test.sh``, after the tests) runs ``--quick --repeat 2`` against ``benchmarks/BASE``: the first seven
cases of :func:`cases` (/topology, /trees, /multicast and /barrier at their key case, ``mcast`` and ``tree`` on the
64-port fat tree, the real fabric file), 28 processes, about 2 minutes of CPU: 3.0 and 4.6 minutes of wall time on
the 2-core machine shared with other work (load average 3.4 and 5-7). On such a machine a row near the threshold
can fail by noise alone (a 2 s command once measured 1.33x); the slowdowns the guard exists for are 2-15x.

**Moving BASE forward** (a new commit hash in ``benchmarks/BASE``) accepts the head's times as the new reference:
do it in a commit of its own whose CHANGELOG.md entry says what got slower and why.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks import stamp  # noqa: E402

BASE_FILE = ROOT / "benchmarks" / "BASE"
REAL_FABRICS = Path(os.environ.get("VIZCOLL_REAL_FABRICS", ROOT.parent / "shared" / "data" / "real-fabrics"))
REAL_FABRIC = "fattreebuilder-k4n3.topo"
IN_REPO_FABRIC = ROOT / "tests" / "data" / "cluster" / "cluster.net"
FAT_TREE_64 = "fat-tree:radix=64,levels=3"
GOAL_RANKS = 2048
SUFFIXES = (" (cold)", " (warm)")


@dataclass(frozen=True)
class Case:
    """One measurement: ``argv`` run with the tree's folder as working directory (after ``python``)."""

    name: str
    argv: tuple[str, ...]
    page: bool = False  # pages.py --child: timed inside (cold and warm rows); else the whole process
    quick: bool = False  # in the CI set

    def rows(self) -> list[str]:
        return [self.name + s for s in SUFFIXES] if self.page else [self.name]


def page_case(page: str, name: str, quick: bool = False, fabric: Path | None = None) -> Case:
    argv = ("benchmarks/pages.py", *(("--fabric", str(fabric)) if fabric else ()), "--child", name)
    shown = f"{page} {name}" + (f" {fabric.name} (pages.py --fabric)" if fabric else "")
    return Case(shown, argv, page=True, quick=quick)


def cli_case(args: str, quick: bool = False, shown: str | None = None) -> Case:
    return Case(f"vizcoll {shown or args}", ("-m", "vizcoll", *args.split()), quick=quick)


def real_fabric() -> Path:
    """The real fabric file of the fabric cases."""
    real = REAL_FABRICS / REAL_FABRIC
    return real if real.is_file() else IN_REPO_FABRIC


def cases(fabric: Path, goal: Path) -> list[Case]:
    """Every case, the CI's (``quick``) first."""
    return [
        page_case("/topology", "generate the 64-port fat tree (70,656 nodes)", quick=True),
        page_case("/trees", "preset 64-port fat tree: 65,536 processes, k = 2", quick=True),
        page_case("/multicast", "preset 64-port fat tree: 5,120 groups, SSSP-MC vs FULB-MC", quick=True),
        page_case("/barrier", "grid 16x16, 8 neighbors: run, LCT/BST, UQ", quick=True),
        cli_case(f"mcast {FAT_TREE_64} --pattern grid3d:64x32x32", quick=True),
        cli_case(f"tree --kind hier-knomial --k 32 --topology {FAT_TREE_64} --nprocs 65536", quick=True),
        cli_case(f"mcast {fabric} --pattern hier:16", quick=True, shown=f"mcast {fabric.name} --pattern hier:16"),
        page_case("/trees", "another tree kind on TaihuLight (drill into one tree)"),
        page_case("/faults", "reduction of 32 processes with a fault, TREFT with a soft error"),
        page_case("/erasure", "FMEL (32, 16, 8): build and compare (jobs)"),
        page_case("/schedules", "binomial reduce of 16,384 ranks on TaihuLight"),
        page_case("/topology", "upload the file", fabric=fabric),
        cli_case(f"topo info {fabric}", shown=f"topo info {fabric.name}"),
        cli_case(f"goal show {goal}", shown=f"goal show (rabenseifner reduce, {GOAL_RANKS} ranks, 1 MiB)"),
        cli_case("mcast pruned-fat-tree:preset=taihulight --pattern grid3d:40x32x32 --algo sssp"),
        cli_case("kopt --P 65536 --a 1.12 --b 0.01"),
    ]


def select(every: Sequence[Case], wanted: Sequence[str] = (), quick: bool = False) -> list[Case]:
    """The cases whose name contains one of ``wanted`` (all when empty), only the quick ones with ``quick``."""
    return [c for c in every if (not quick or c.quick) and (not wanted or any(w in c.name for w in wanted))]


# ---------------------------------------------------------------- the pure parts: pairing, ratio, verdict
def best(times: Sequence[float | None]) -> float | None:
    """The best of a tree's runs of one row, None when a run failed or there was none."""
    return None if not times or None in times else min(times)


def ratio(base_s: float | None, head_s: float | None) -> float | None:
    """``head_s / base_s`` to two decimals; None when either is missing (a zero base counts as a millisecond)."""
    if base_s is None or head_s is None:
        return None
    return round(head_s / max(base_s, 0.001), 2)


def pair(base: dict[str, list[float | None]], head: dict[str, list[float | None]], names: Sequence[str]) -> list[dict]:
    """One row per name: the best base and head times side by side, and their ratio."""
    rows = []
    for name in names:
        b, h = best(base.get(name, [])), best(head.get(name, []))
        rows.append({"case": name, "base_s": b, "head_s": h, "ratio": ratio(b, h)})
    return rows


def verdict(row: dict, threshold: float, floor: float) -> str | None:
    """Why ``row`` fails the guard ("head failed", "slower"), None when it passes."""
    if row["head_s"] is None:
        return "head failed"
    if row["ratio"] is not None and row["ratio"] > threshold and row["head_s"] - row["base_s"] > floor:
        return "slower"
    return None


def exit_status(rows: Sequence[dict], threshold: float, floor: float) -> int:
    """1 when a row fails the guard, else 0."""
    return int(any(verdict(row, threshold, floor) for row in rows))


def markdown(rows: Sequence[dict], threshold: float, floor: float, line: str) -> str:
    """The rows as a Markdown table (a failing row says why), then ``line``."""

    def cell(value):
        return None if value is None else f"{value:.3f}"

    shown = [
        [
            row["case"],
            cell(row["base_s"]),
            cell(row["head_s"]),
            None if row["ratio"] is None else f"{row['ratio']:.2f}",
            verdict(row, threshold, floor) or ("not on the base" if row["base_s"] is None else ""),
        ]
        for row in rows
    ]
    return stamp.table(["case", "base_s", "head_s", "ratio", ""], shown, right=[1, 2, 3]) + "\n\n" + line


# ---------------------------------------------------------------- measuring
def read_base(path: Path = BASE_FILE) -> str:
    """The commit in ``benchmarks/BASE``: one line, a full 40-hex hash."""
    text = path.read_text().strip()
    if not re.fullmatch(r"[0-9a-f]{40}", text):
        raise ValueError(f"{path} must hold one full commit hash (40 hex digits), not {text[:60]!r}")
    return text


def git(*args: str, cwd: Path = ROOT) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True).stdout.strip()


def run_once(case: Case, tree: Path, scratch: Path, timeout: float) -> tuple[dict[str, float] | None, str]:
    """``case`` in ``tree`` in a fresh process with a fresh cache directory: its rows' times, or None and stderr."""
    cache = Path(tempfile.mkdtemp(prefix="cache-", dir=scratch))
    env = os.environ | {"VIZCOLL_CACHE_DIR": str(cache)}
    env.pop("VIZCOLL_REDIS_URL", None)
    env.pop("VIZCOLL_CACHE_REDIS_URL", None)
    env.pop("VIZCOLL_BENCH_FABRIC", None)
    try:
        start = time.perf_counter()
        out = subprocess.run(
            [sys.executable, *case.argv], cwd=tree, env=env, capture_output=True, text=True, timeout=timeout
        )
        wall = time.perf_counter() - start
    except subprocess.TimeoutExpired:
        return None, f"timed out after {timeout:g} s"
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    if out.returncode:
        return None, out.stderr.strip() or f"exit status {out.returncode}"
    if not case.page:
        return {case.name: round(wall, 3)}, ""
    try:
        row = json.loads(out.stdout.strip().splitlines()[-1])
        return {case.name + SUFFIXES[0]: row["cold_s"], case.name + SUFFIXES[1]: row["warm_s"]}, ""
    except (IndexError, KeyError, ValueError):
        return None, f"no JSON row in its output: {out.stdout[-500:]!r}"


Measure = Callable[[Case, str], tuple[dict[str, float] | None, str]]


def interleaved(chosen: Sequence[Case], measure: Measure, repeat: int, log=print) -> tuple[dict, dict, dict]:
    """Each case ``repeat`` times on "base" then "head", alternated; a tree that fails a case is not asked again.
    Returns the base's and the head's times per row and the head's errors per case."""
    times: dict[str, dict[str, list]] = {"base": {}, "head": {}}
    failed: dict[str, dict[str, str]] = {"base": {}, "head": {}}
    for i, case in enumerate(chosen, 1):
        for r in range(repeat):
            for tree in ("base", "head"):
                if case.name in failed[tree]:
                    continue
                started = time.perf_counter()
                got, err = measure(case, tree)
                took = f"{time.perf_counter() - started:.1f} s in all"
                if got is None:
                    failed[tree][case.name] = err
                    for row in case.rows():
                        times[tree].setdefault(row, []).append(None)
                    last = err.splitlines()[-1][:160] if err else ""
                    log(f"[{i}/{len(chosen)}] {tree} {case.name}: failed ({last})")
                    continue
                for row, value in got.items():
                    times[tree].setdefault(row, []).append(value)
                shown = ", ".join(f"{v:.3f} s" for v in got.values())
                log(f"[{i}/{len(chosen)}] {tree} {case.name} (run {r + 1}/{repeat}): {shown} ({took})")
    return times["base"], times["head"], failed["head"]


def timed(chosen: Sequence[Case], measure: Measure, runs: tuple[int, int], limits: tuple[float, float], log=print):
    """:func:`interleaved` with ``runs = (repeat, confirm)``; then each case with a row slower than ``limits =
    (threshold, floor)`` is timed ``confirm`` more times on both trees, and its rows keep the best of all its runs.
    A slowdown that noise made (another process on the machine during one run) then goes, and a real one stays."""
    repeat, confirm = runs
    base, head, errors = interleaved(chosen, measure, repeat, log)
    names = [row for case in chosen for row in case.rows()]
    slower = {row["case"] for row in pair(base, head, names) if verdict(row, *limits) == "slower"}
    again = [case for case in chosen if slower & set(case.rows())]
    if again and confirm:
        log(f"guard: {len(again)} case(s) slower, timed {confirm} more times: {', '.join(c.name for c in again)}")
        more_base, more_head, _ = interleaved(again, measure, confirm, log)
        for times, more in ((base, more_base), (head, more_head)):
            for row, values in more.items():
                times[row].extend(values)
    return base, head, errors


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", help="the commit to compare with (default: the one in benchmarks/BASE)")
    parser.add_argument("--repeat", type=int, default=3, help="fresh processes per case and tree (default 3)")
    parser.add_argument("--confirm", type=int, default=3, help="more runs of a case found slower (default 3)")
    parser.add_argument("--threshold", type=float, default=1.25, help="largest ratio head/base that passes")
    parser.add_argument("--floor", type=float, default=0.05, help="seconds slower a row may be whatever its ratio")
    parser.add_argument("--case", action="append", default=[], help="only cases whose name contains this")
    parser.add_argument("--quick", action="store_true", help="only the CI's cases")
    parser.add_argument("--list", action="store_true", help="list the chosen cases and exit")
    parser.add_argument("--markdown", action="store_true", help="a Markdown table instead of JSON")
    parser.add_argument("--timeout", type=float, default=600, help="seconds a run may take (default 600)")
    return parser


def _stop(signum, _frame):
    raise KeyboardInterrupt(f"signal {signum}")


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        base = git("rev-parse", "--verify", "--quiet", f"{args.base or read_base()}^{{commit}}")
    except subprocess.CalledProcessError:
        print(f"guard: no commit {args.base or read_base()!r} in this repository", file=sys.stderr)
        return 2
    scratch = Path(tempfile.mkdtemp(prefix="vizcoll-guard-"))
    goal = scratch / "reduce.goal"
    chosen = select(cases(real_fabric(), goal), args.case, args.quick)
    if args.list or not chosen:
        print("\n".join(c.name for c in chosen) or "no case matches", file=sys.stderr)
        shutil.rmtree(scratch)
        return 0 if chosen else 2
    tree = scratch / "base"
    signal.signal(signal.SIGTERM, _stop)
    started = time.perf_counter()
    try:
        git("worktree", "add", "--detach", str(tree), base)
        if any("goal show" in c.name for c in chosen):  # written once by the head, not timed
            goal_args = f"goal reduce --algo rabenseifner --procs {GOAL_RANKS} --size 1048576 -o {goal}"
            subprocess.run([sys.executable, "-m", "vizcoll", *goal_args.split()], cwd=ROOT, stdout=subprocess.DEVNULL)
        trees = {"base": tree, "head": ROOT}
        base_times, head_times, errors = timed(
            chosen,
            lambda case, which: run_once(case, trees[which], scratch, args.timeout),
            (max(1, args.repeat), max(0, args.confirm)),
            (args.threshold, args.floor),
            log=lambda text: print(text, file=sys.stderr, flush=True),
        )
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT, capture_output=True)
        shutil.rmtree(scratch, ignore_errors=True)
        subprocess.run(["git", "worktree", "prune"], cwd=ROOT, capture_output=True)
    rows = pair(base_times, head_times, [row for case in chosen for row in case.rows()])
    for name, err in errors.items():
        print(f"\nFAILED on the head: {name}\n{err}", file=sys.stderr)
    for row in rows:
        why = verdict(row, args.threshold, args.floor)
        if why == "slower":
            print(f"SLOWER: {row['case']}: {row['base_s']} s -> {row['head_s']} s (x{row['ratio']})", file=sys.stderr)
    print(f"guard: {len(chosen)} cases in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    if args.markdown:
        head, at = stamp.commit(), stamp.commit(ROOT, base)
        print(markdown(rows, args.threshold, args.floor, stamp.measured(argv, __file__, f"{head} (base {at})")))
    else:
        print(json.dumps(rows, indent=1))
    return exit_status(rows, args.threshold, args.floor)


if __name__ == "__main__":
    try:
        raise SystemExit(main())
    except KeyboardInterrupt:
        print("guard: interrupted (the base's worktree is removed)", file=sys.stderr)
        raise SystemExit(130) from None
