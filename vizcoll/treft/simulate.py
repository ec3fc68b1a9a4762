"""``simulate_treft``: three replicas of a program under TREFT, with soft errors, as a Timeline.

The run is simulated twice with the same timing model
(:class:`~vizcoll.treft.network.CostModel`): once as the plain program (one
copy, no sections: ``baseline_time``) and once as three replicas with the
sections of the chosen variant (``time``). Both use the variant's transfer
mode (eager for E1, lazy otherwise), so ``overhead_pct = 100 (time -
baseline_time) / baseline_time`` is the cost of fault tolerance alone, as in
the paper's Fig. 7. Timing does not depend on the data, so injected errors do
not change the overhead (a repair only re-points the replica's data to its
check node), except for E1's rule-4 re-sends.

Outcome of the injected error(s) (``figures["outcome"]``):

- ``"corrected"``: the replica holding a wrong value was outvoted and repaired;
  every replica's final output equals the fault-free run;
- ``"undetected"``: two replicas carried the *same* wrong value, won the
  2-of-3 vote and the correct copy was overwritten (the double fault the
  paper sets aside);
- ``"unrecoverable"``: the three copies all differed: no majority;
- ``"escaped"``: the error reached the output without any check (a kernel
  outside every section, or a Write inside its section: rules 1, 2 broken);
- ``"masked"``: the error never changed a checked or output value;
- ``"no error"``: nothing was injected.

``reason`` says, for ``"unrecoverable"`` and ``"undetected"``, which replicas the errors hit and at which
vote they won (None for the other outcomes).

``detected`` is true when every comparison that saw different copies blamed
a truly wrong copy or found no majority (an identical double fault is *not*
detected: the vote blames the correct replica); ``corrected`` when, in
addition, every mismatch was repaired and the final output is right.

References: [TREFT15] (keys: ``docs/papers.md``).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from vizcoll.errors import SpecError
from vizcoll.sim.timeline import Event, Timeline, sort_events
from vizcoll.treft.network import CostModel
from vizcoll.treft.program import Program, run_reference
from vizcoll.treft.replica import RunOptions
from vizcoll.treft.runtime import ROLES, Fault, Run
from vizcoll.treft.sections import Section, Violation, place_sections
from vizcoll.treft.workflows import workflow
from vizcoll.words import plural

__all__ = ["REPLICAS", "parse_fault", "simulate_treft"]

REPLICAS = 3
LEGEND = {
    "idle": "the thread has nothing to do",
    "empty": "no message is waiting in the queue",
    "not started": "no fault-tolerant section has started yet",
    "finished": "the monitor thread of the last section has ended",
    "ok": "every live value of this replica is correct",
    "corrected": "every wrong live value of this replica has been overwritten by the 2-of-3 vote",
    "done": "the main program has finished",
}
VARIANT_TEXT = {
    "treft": "TREFT: the largest sections the rules allow",
    "e1": "TREFT-E1: TREFT with eager stream transfer",
    "e2": "TREFT-E2: one section per kernel",
}


def _resolve(program: Program | str) -> Program:
    if isinstance(program, Program):
        return program
    if isinstance(program, str) and "." in program:
        name, cls = program.split(".", 1)
        return workflow(name, cls)
    raise SpecError(f"program must be a Program or a built-in name like 'VP.B', got {program!r}")


def parse_fault(text: str) -> tuple[int, str, str]:
    """Read a soft error as the command line writes it: ``"1:K3:u3"`` (or ``"r1:K3:u3"``) -> ``(1, "K3", "u3")``.

    Parameters
    ----------
    text : str
        ``REPLICA:KERNEL:VAR``; the replica is 0, 1 or 2, optionally written ``r0`` .. ``r2``.

    Returns
    -------
    tuple of (int, str, str)
        ``(replica, kernel, var)``, the ``inject`` argument of :func:`simulate_treft` (the kernel and variable
        are checked there).

    Raises
    ------
    SpecError
        When the text does not have three parts or the replica is not a number.

    Examples
    --------
    >>> parse_fault("r2:K5:u5")
    (2, 'K5', 'u5')
    """
    parts = str(text).split(":")
    if len(parts) != 3:
        raise SpecError(f"a fault is REPLICA:KERNEL:VAR (e.g. 1:K3:u3), got {text!r}")
    replica = parts[0].strip().lower().removeprefix("r")
    if not replica.isdigit():
        raise SpecError(f"replica must be 0, 1 or 2 (or r0, r1, r2), got {parts[0]!r}")
    return int(replica), parts[1].strip(), parts[2].strip()


def _fault(program: Program, spec, what: str) -> Fault | None:
    if spec is None:
        return None
    if isinstance(spec, str):
        spec = parse_fault(spec)
    try:
        replica, kernel, var = spec
    except (TypeError, ValueError):
        raise SpecError(f"{what} must be (replica, kernel, var), got {spec!r}") from None
    if isinstance(replica, bool) or not isinstance(replica, numbers.Integral) or not 0 <= replica < REPLICAS:
        raise SpecError(f"{what}: replica must be 0, 1 or 2, got {replica!r}")
    if kernel not in program.kernels:
        names = list(program.kernels)
        shown = ", ".join(names[:6]) + (f" … {names[-1]}" if len(names) > 6 else "")
        raise SpecError(f"{what}: {program.name} has no kernel {kernel!r} (kernels: {shown})")
    outputs = program.kernels[kernel].outputs
    if var not in outputs:
        raise SpecError(f"{what}: {kernel} does not define {var!r} (it defines {', '.join(outputs)})")
    return Fault(int(replica), kernel, var)


def _outcome(faults: list[Fault], votes, final_ok: bool) -> tuple[str, bool, bool]:
    """(outcome, detected, corrected) from the votes and the final output."""
    if not faults:
        return "no error", False, False
    mismatches = [v for v in votes if v.outcome != "agree"]
    fooled = [v for v in mismatches if v.outcome == "corrected" and not v.truth]
    if fooled:
        return "undetected", False, False
    if any(v.outcome == "no-majority" for v in mismatches):
        return "unrecoverable", True, False
    if not mismatches:
        return ("masked" if final_ok else "escaped"), False, False
    if not final_ok:
        return "escaped", True, False
    return "corrected", True, True


def _reason(outcome: str, faults: list[Fault], votes) -> str | None:
    """Why two soft errors beat the 2-of-3 vote (outcomes ``unrecoverable`` and ``undetected``), else None."""
    hit = ", ".join(f"r{f.replica}'s {f.var} after {f.kernel}" for f in faults)
    if outcome == "unrecoverable":
        v = next(v for v in votes if v.outcome == "no-majority")
        return (
            f"two replicas were hit by different soft errors ({hit}), so the three copies of {v.var} all differ "
            f"at the vote ending section {v.section}: there is no 2-of-3 majority to restore it"
        )
    if outcome == "undetected":
        v = next(v for v in votes if v.outcome == "corrected" and not v.truth)
        return (
            f"two replicas were hit by the same soft error ({hit}): at the vote ending section {v.section} "
            f"their two equal wrong copies of {v.var} outvote r{v.replica}'s correct one"
        )
    return None


def _entities() -> dict[str, dict]:
    out = {}
    for r in range(REPLICAS):
        for role, (kind, where, text) in ROLES.items():
            out[f"r{r}.{role}"] = {"replica": r, "role": role, "kind": kind, "where": where, "title": text}
    return out


def _intro(program: Program, variant: str, sections, faults: list[Fault]) -> str:
    errors = "; ".join(f"a soft error will hit r{f.replica}'s {f.var} (the output of {f.kernel})" for f in faults)
    errors = errors[:1].upper() + errors[1:]
    return (
        f"Three replicas r0, r1, r2 of {program.name} run side by side ({VARIANT_TEXT[variant]}; "
        f"{plural(len(sections), 'fault-tolerant section')}). At the end of each section "
        "they exchange the data that leaves it and vote 2-of-3. "
        + (errors + "." if errors else "No error is injected.")
    )


def _describe(changes: dict) -> str:
    """A caption for a step with no label: its state changes, grouped by role and value."""
    groups: dict[tuple[str, str], list[str]] = {}
    for key, value in changes.items():
        replica, _, role = key.partition(".")
        groups.setdefault((role, str(value)), []).append(replica)
    return "; ".join(f"{role} of {', '.join(reps)}: {value}" for (role, value), reps in groups.items())


def _captioned(events: list) -> list:
    """``events`` (in time order) with a note added to every step that has no label at all."""
    out, i = [], 0
    while i < len(events):
        j = i
        while j < len(events) and events[j].t == events[i].t:
            j += 1
        step = events[i:j]
        out.extend(step)
        if not any(e.label for e in step):
            changes: dict = {}
            for e in step:
                changes.update(e.state_changes)
            out.append(Event(events[i].t, "note", label=_describe(changes)))
        i = j
    return out


def _final_ok(run: Run, program: Program, golden: dict) -> bool:
    return all(np.array_equal(rep.store[o], golden[o]) for rep in run.reps for o in program.outputs)


def _check_seed(seed) -> int:
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise SpecError(f"seed must be an integer >= 0, got {seed!r}")
    return int(seed)


@dataclass(frozen=True)
class _Setup:
    """What one :func:`simulate_treft` call runs: the program, its variant's sections, the soft errors, the
    fault-free outputs."""

    program: Program
    variant: str
    sections: list[Section]
    violations: list[Violation]
    faults: list[Fault]
    golden: dict


def simulate_treft(
    program: Program | str,
    variant: str = "treft",
    inject=None,
    double_fault=None,
    seed: int = 0,
    cost: CostModel | None = None,
    record: bool = True,
) -> tuple[Timeline, dict]:
    """Run ``program`` under TREFT with three replicas; return the replay and the figures.

    The run is simulated twice with the same timing model: once as the plain program (one copy, no sections:
    ``baseline_time``) and once as three replicas with the sections of ``variant`` (``time``), so
    ``overhead_pct = 100 (time - baseline_time) / baseline_time`` is the cost of fault tolerance alone (the paper's
    Fig. 7). Injected soft errors are found by the 2-of-3 votes at the sections' compare sync points; the
    ``outcome`` is ``"corrected"``, ``"undetected"`` (two equal wrong copies won the vote), ``"unrecoverable"``
    (no majority), ``"escaped"`` (no check on the way to the output), ``"masked"`` or ``"no error"`` (see the
    module docstring).

    Parameters
    ----------
    program : Program or str
        A program, or a built-in workflow name such as ``"VP.B"``.
    variant : str
        ``"treft"``, ``"e1"`` (eager stream transfer) or ``"e2"`` (one section per kernel).
    inject : tuple (replica, kernel, var) or str "1:K3:u3", optional
        A soft error: one bit of ``var`` flips on that replica right after ``kernel`` computes it.
    double_fault : same form as ``inject``, optional
        A second soft error. On another replica with the same kernel and variable
        it is the *same* corruption (two equal wrong copies); otherwise a different one.
    seed : int
        Chooses the flipped element and bit.
    cost : CostModel, optional
        The timing model: network latency and bandwidth, thread and comparison costs (default ``CostModel()``:
        the paper's 100 ms and 13.98 Mbps).
    record : bool
        Record the replay (False: the figures only, with an empty timeline and no numbered operations; five
        times faster, for overhead tables).

    Returns
    -------
    tuple of (Timeline, dict)
        The replay (entities ``r0.executor`` ... ``r2.data``) and the figures
        ``overhead_pct, detected, corrected, final_output_ok, ops, time,
        baseline_time`` plus ``outcome, reason, sections, violations, injected, votes``.

    Raises
    ------
    SpecError
        For an unknown workflow or variant, a fault naming a replica, kernel or variable the program lacks, or a
        negative seed (:class:`CostModel` itself refuses a network that is not positive).

    References
    ----------
    [TREFT15] Li Xin, Lin Yufei, Guo Xiaowei, "A triple modular eager redundancy fault-tolerant technique for
    distributed stream architecture", Computer Engineering & Science, 37(12): 2233–2241, 2015, DOI
    [10.3969/j.issn.1007-130X.2015.12.007](https://doi.org/10.3969/j.issn.1007-130X.2015.12.007). Fig. 5 and Table 2
    (the runtime), Fig. 7 (the overhead).

    Examples
    --------
    >>> tl, fig = simulate_treft("HC.A", inject=(1, "K4", "u4"))
    >>> fig["outcome"], fig["detected"], fig["corrected"], fig["final_output_ok"]
    ('corrected', True, True, True)
    >>> tl.final_state["r1.data"]
    'corrected'
    """
    program = _resolve(program)
    seed = _check_seed(seed)
    cost = cost or CostModel()
    sections, violations = place_sections(program, variant)
    faults = [f for f in (_fault(program, inject, "inject"), _fault(program, double_fault, "double_fault")) if f]
    setup = _Setup(program, variant, sections, violations, faults, run_reference(program))
    eager = variant == "e1"
    plain = RunOptions(ft=False, eager=eager, replicas=1, record=False)
    baseline = Run(program, sections, cost, setup.golden, plain).run()
    options = RunOptions(ft=True, eager=eager, replicas=REPLICAS, faults=tuple(faults), seed=seed, record=record)
    run = Run(program, sections, cost, setup.golden, options)
    initial = run.initial_state()
    time = run.run()
    figures = _figures(run, setup, time, baseline)
    return _timeline(run, setup, initial, figures), figures


def _figures(run: Run, setup: _Setup, time: float, baseline: float) -> dict:
    """The figures of a finished run (see :func:`simulate_treft`)."""
    program, faults = setup.program, setup.faults
    final_ok = _final_ok(run, program, setup.golden)
    outcome, detected, corrected = _outcome(faults, run.votes, final_ok)
    return {
        "overhead_pct": 100.0 * (time - baseline) / baseline if baseline > 0 else 0.0,
        "detected": detected,
        "corrected": corrected,
        "final_output_ok": final_ok,
        "ops": run.rec.ops,
        "time": time,
        "baseline_time": baseline,
        "outcome": outcome,
        "reason": _reason(outcome, faults, run.votes),
        "program": program.name,
        "variant": setup.variant,
        "sections": [s.to_dict() for s in setup.sections],
        "violations": [v.to_dict() for v in setup.violations],
        "injected": run.injected,
        "votes": [vars(v) for v in run.votes if v.outcome != "agree"],
        "bytes_sent": run.net.bytes_sent,
    }


def _timeline(run: Run, setup: _Setup, initial: dict, figures: dict) -> Timeline:
    """The replay of a finished run: its events in time order, every step captioned."""
    program, variant = setup.program, setup.variant
    return Timeline(
        title=f"TREFT on {program.name} — {VARIANT_TEXT[variant]}",
        initial_state=initial,
        events=_captioned(sort_events(run.rec.events)),
        entities=_entities(),
        legend=dict(LEGEND),
        summary={k: v for k, v in figures.items() if k not in ("ops", "votes")} | {"n_ops": len(run.rec.ops)},
        intro=_intro(program, variant, setup.sections, setup.faults),
    )
