"""The event core (vizcoll.sim.engine) against SimPy: is our own thin core worth keeping?

Run ``python benchmarks/event_core.py [--size 20] [--rate 0.5] [--algos dlct+tree,tree] [--events N]
[--chains 400] [--repeat 5]``.

Two measurements, printed as one JSON document:

- ``barrier``: the largest barrier simulation we run, the last cell of the
  docs' full sweep (docs/benchmarks.md: ``barrier-sweep``: a ``size x size`` grid, 8 neighbors,
  ``rate`` of its links broken with ``keep_connected``, 3 barriers, no
  recording), on our :class:`~vizcoll.sim.engine.Engine`: events processed,
  wall seconds and events per second of the whole simulation (routing, the
  DLCT judge and the timing model included);
- ``core``: the same number of events through each core alone. ``chains``
  independent chains of callbacks, each callback scheduling the next one of
  its chain after a seeded random delay (so the heap holds about ``chains``
  events, like the messages in flight of the barrier run). Ours, two ways:
  ``engine.at(engine.now + delay, callback)`` (``ours``: what the barrier
  and multicast simulations call) and ``engine.schedule(delay, callback)``
  (``ours_schedule``); SimPy: ``env.timeout(delay)`` with the callback
  appended to its ``callbacks``, then ``env.run()``. ``ratio`` = SimPy
  seconds / our seconds (above 1: ours is faster), and
  ``barrier_on_simpy_s`` projects the barrier run onto SimPy (its time plus
  its events times the difference per event).

Every figure is the best of ``--repeat`` runs (the machine is shared).
SimPy is optional: without it the ``core`` part reports ours only and says
SimPy is missing (``pip install simpy``; it is not a dependency of vizcoll).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from vizcoll.barrier.algorithms import ALGORITHMS, SimParams  # noqa: E402
from vizcoll.barrier.network import break_links  # noqa: E402
from vizcoll.sim.engine import Engine  # noqa: E402
from vizcoll.topology.generators import mesh  # noqa: E402

try:
    import simpy
except ImportError:  # optional: only the comparison needs it
    simpy = None


def best_of(fn, repeat: int):
    """(best wall seconds, last result) of ``repeat`` calls of ``fn()``."""
    best, result = float("inf"), None
    for _ in range(max(1, repeat)):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def _rate(events: int, seconds: float) -> float:
    return round(events / seconds) if seconds > 0 else 0


def barrier_run(size: int, rate: float, algo: str, seed: int, repeat: int) -> dict:
    """One barrier simulation of the sweep's cell on our core: events and speed."""
    topo = mesh((size, size), neighbors=8, hosts=0)
    broken = len(break_links(topo, rate, seed, keep_connected=True))
    params = SimParams(seed=seed, record=False)

    def once():
        run = ALGORITHMS[algo](topo, params)
        _, figures = run.run()
        return run.engine.processed, figures

    seconds, (events, figures) = best_of(once, repeat)
    return {
        "algo": algo,
        "grid": f"{size}x{size}",
        "rate": rate,
        "broken_links": broken,
        "seed": seed,
        "completed": figures["completed"],
        "messages": figures["messages"],
        "events": events,
        "seconds": round(seconds, 4),
        "events_per_s": _rate(events, seconds),
    }


def _delays(events: int, seed: int = 0) -> list[float]:
    rng = random.Random(seed)
    return [rng.uniform(0.0005, 0.002) for _ in range(events)]


def ours(events: int, chains: int, delays: list[float]) -> int:
    """``events`` callbacks in ``chains`` chains on :class:`Engine` (absolute ``at``); the number processed."""
    eng = Engine()
    left = [events - chains]

    def step(k: int) -> None:
        if left[0] > 0:
            left[0] -= 1
            eng.at(eng.now + delays[left[0]], step, k)

    for k in range(chains):
        eng.at(delays[k], step, k)
    eng.run()
    return eng.processed


def ours_schedule(events: int, chains: int, delays: list[float]) -> int:
    """The same with relative :meth:`Engine.schedule`; the number processed."""
    eng = Engine()
    left = [events - chains]

    def step(k: int) -> None:
        if left[0] > 0:
            left[0] -= 1
            eng.schedule(delays[left[0]], step, k)

    for k in range(chains):
        eng.schedule(delays[k], step, k)
    eng.run()
    return eng.processed


def on_simpy(events: int, chains: int, delays: list[float]) -> int:
    """The same chains on a SimPy Environment (``env.timeout`` + a callback); the number processed."""
    env = simpy.Environment()
    left = [events - chains]
    done = [0]

    def step(event) -> None:
        done[0] += 1
        if left[0] > 0:
            left[0] -= 1
            env.timeout(delays[left[0]]).callbacks.append(step)

    for k in range(chains):
        env.timeout(delays[k]).callbacks.append(step)
    env.run()
    return done[0]


def core(events: int, chains: int, repeat: int) -> dict:
    """Both cores on the same ``events`` callback events."""
    chains = max(1, min(chains, events))
    delays = _delays(events)
    secs, n = best_of(lambda: ours(events, chains, delays), repeat)
    r_secs, r_n = best_of(lambda: ours_schedule(events, chains, delays), repeat)
    out: dict = {
        "events": events,
        "chains": chains,
        "ours": {"events": n, "seconds": round(secs, 4), "events_per_s": _rate(n, secs)},
        "ours_schedule": {"events": r_n, "seconds": round(r_secs, 4), "events_per_s": _rate(r_n, r_secs)},
    }
    if simpy is None:
        out["simpy"] = "missing (pip install simpy to compare)"
        return out
    s_secs, s_n = best_of(lambda: on_simpy(events, chains, delays), repeat)
    out["simpy"] = {
        "version": simpy.__version__,
        "events": s_n,
        "seconds": round(s_secs, 4),
        "events_per_s": _rate(s_n, s_secs),
    }
    out["ratio"] = round(s_secs / secs, 2) if secs > 0 else None
    out["ratio_schedule"] = round(s_secs / r_secs, 2) if r_secs > 0 else None
    return out


def main(argv: list[str] | None = None) -> int:
    """Parse the options, run both measurements, print JSON."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", type=int, default=20, help="grid side (the sweep's largest: 20)")
    ap.add_argument("--rate", type=float, default=0.5, help="share of broken links (the sweep's largest: 0.5)")
    ap.add_argument("--algos", default="dlct+tree,tree")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--events", type=int, help="events of the core comparison (default: the largest barrier run's)")
    ap.add_argument("--chains", type=int, help="concurrent chains (default: the grid's processors)")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)
    runs = [barrier_run(args.size, args.rate, algo, args.seed, args.repeat) for algo in args.algos.split(",")]
    events = args.events or max(r["events"] for r in runs)
    result = {"barrier": runs, "core": core(events, args.chains or args.size * args.size, args.repeat)}
    per_event = result["core"].get("simpy")
    if isinstance(per_event, dict) and events:
        extra = (per_event["seconds"] - result["core"]["ours"]["seconds"]) / events
        result["barrier_on_simpy_s"] = {r["algo"]: round(r["seconds"] + r["events"] * extra, 4) for r in runs}
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
