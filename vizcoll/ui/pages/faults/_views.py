"""Pure views of the fault replays page: the reduction's summary against the binomial tree (and, for a run that
could not recover, the engine's reason), the tasks formed, TREFT's summary (and why two errors beat the vote)."""

from __future__ import annotations

import numpy as np
from dash import html

from vizcoll.sim.timeline import Timeline
from vizcoll.ui.cache import cached_figures
from vizcoll.ui.components.tables import table
from vizcoll.ui.pages.faults._figures import PAPER_AVERAGE, VARIANT_NAMES, overhead_chart, task_text, tasks_so_far

__all__ = [
    "task_outcome",
    "stop_step",
    "why_unrecoverable",
    "binomial_outcome",
    "comparison_sentence",
    "reduction_summary",
    "task_list",
    "treft_summary",
    "overhead_figure",
]


@cached_figures
def overhead_figure(overheads: dict[str, dict[str, float]]):
    """:func:`~vizcoll.ui.pages.faults._figures.overhead_chart` of ``overheads`` (cached: Plotly builds and styles
    the chart in longer than the 18 runs' results take to read back)."""
    return overhead_chart(overheads)


def _ms(seconds) -> str:
    return f"{float(seconds) * 1e3:,.2f}"


def _shown(value) -> str:
    """A value for a table cell: "—" when the run has none (never a raw ``None``)."""
    return "—" if value is None or value == "" else str(value)


def _lost(figures: dict) -> str:
    """Whose data an unrecoverable run lost, in a few words."""
    fault = figures.get("fault") or {}
    return f"w{fault['rank']}'s data had no surviving copy" if "rank" in fault else "the data was lost"


def task_outcome(figures: dict) -> str:
    if figures.get("unrecoverable"):
        return f"unrecoverable: {_lost(figures)}"
    if figures.get("recovered"):
        return "recovered"
    if figures.get("fault"):
        return "fault hit nothing (its data was already reduced)"
    return "no fault"


def binomial_outcome(figures: dict) -> str:
    if not figures.get("fault"):
        return "no fault"
    if not figures.get("completed"):
        return "failed: a binomial tree has no fault tolerance"
    return "finished: the victim's data was already sent"


def comparison_sentence(task: dict, binomial: dict) -> str:
    if not binomial.get("completed"):
        return "The binomial tree cannot survive this failure; the task-based reduction " + (
            f"could not recover either: {_lost(task)}."
            if task.get("unrecoverable")
            else f"finished in {_ms(task['time'])} ms."
        )
    if not task.get("completed"):
        return "The task-based reduction could not recover; the binomial tree finished."
    t, b = float(task["time"]), float(binomial["time"])
    if t < b:
        return f"The task-based reduction is {b / t:.2f}× faster than the binomial tree here."
    return f"The binomial tree is {t / b:.2f}× faster than the task-based reduction here."


def stop_step(timeline: Timeline) -> int | None:
    """The step of the player (1 = the first event's) at which the reduction was given up, None if it was not."""
    cols = timeline.columns
    at = np.flatnonzero(np.isin(cols.kind, cols.codes(("unrecoverable",))))
    return int(timeline.event_steps()[at[0]]) + 1 if len(at) else None


def why_unrecoverable(figures: dict, timeline: Timeline | None = None) -> str:
    """Why the task-based reduction could not recover (the engine's reason) and when it gave up; "" if it did."""
    reason = (figures.get("fault") or {}).get("reason")
    if not figures.get("unrecoverable") or not reason:
        return ""
    step = None if timeline is None else stop_step(timeline)
    if step is None:
        return f"Why unrecoverable: {reason}"
    when = f"{_ms(timeline.time_at(step - 1))} ms (step {step} of {timeline.n_steps})"
    return f"Why unrecoverable: {reason} The master gave up the reduction at {when}."


def reduction_summary(figures: dict, binomial: dict, timeline: Timeline | None = None) -> html.Div:
    """The task-based reduction against the binomial tree, the fault and, for an unrecoverable run, why
    (``timeline``: the task-based replay, for the step it was given up at)."""
    fault, why = figures.get("fault"), why_unrecoverable(figures, timeline)
    fault_text = "none"
    if fault:
        where = fault.get("location") or "?"
        fault_text = f"w{fault['rank']} killed at {_ms(fault['time'])} ms ({where})"
        if fault.get("detected_at") is not None:
            fault_text += f", detected at {_ms(fault['detected_at'])} ms"
    rows = [
        (
            "completion time (ms)",
            _ms(figures["time"]) if figures.get("completed") else "—",
            _ms(binomial["time"]) if binomial.get("completed") else "—",
        ),
        ("messages", f"{figures['messages']:,}", f"{binomial['messages']:,}"),
        ("result correct", "yes" if figures.get("result_ok") else "no", "yes" if binomial.get("result_ok") else "no"),
        ("tree height (rounds)", _shown(figures.get("rounds")), _shown(binomial.get("rounds"))),
        ("outcome", task_outcome(figures), binomial_outcome(binomial)),
    ]
    return html.Div(
        [
            html.H3("Summary (same slow nodes and same kill for both)"),
            table(("", "task-based", "binomial tree"), rows),
            html.P(f"Fault: {fault_text}.", className="info"),
            *([html.P(why, className="info ft-why")] if why else []),
            html.P(comparison_sentence(figures, binomial), className="info ft-verdict"),
        ]
    )


def task_list(timeline: Timeline, step: int, figures: dict) -> html.Div:
    formed = tasks_so_far(timeline, step, figures.get("tasks", []))
    items = [html.Li(task_text(t)) for t in formed]
    return html.Div(
        [
            html.H3(f"Tasks formed so far: {len(formed)} of {len(figures.get('tasks', []))}"),
            html.P(
                "(i,j) → w: the master pairs the messages of i and j; w fetches the other's data and reduces it.",
                className="info",
            ),
            html.Ol(items, className="ft-tasks") if items else html.P("none yet", className="info"),
        ]
    )


def treft_summary(figures: dict) -> html.Div:
    yes = lambda x: "yes" if x else "no"  # noqa: E731
    injected = (
        "; ".join(
            f"r{i['replica']}: bit {i['bit']} of {i['var']}[{i['index']}] after {i['kernel']}"
            for i in figures.get("injected", [])
        )
        or "none"
    )
    rows = [
        ("outcome", _shown(figures["outcome"])),
        ("soft error", injected),
        ("detected", yes(figures["detected"])),
        ("corrected", yes(figures["corrected"])),
        ("final output correct", yes(figures["final_output_ok"])),
        ("fault-tolerant sections", str(len(figures.get("sections", [])))),
        ("run time (s)", f"{figures['time']:,.1f}"),
        ("without TREFT (s)", f"{figures['baseline_time']:,.1f}"),
        ("overhead", f"{figures['overhead_pct']:.2f} %"),
    ]
    average, why = PAPER_AVERAGE.get(figures.get("variant", "treft")), figures.get("reason")
    return html.Div(
        [
            html.H3(f"Summary: {figures.get('program', '')} under {VARIANT_NAMES.get(figures.get('variant'), '')}"),
            table(None, rows),
            *([html.P(f"Why {figures['outcome']}: {why}.", className="info ft-why")] if why else []),
            html.P(f"The paper's average overhead for this variant: {average} %." if average else "", className="info"),
        ]
    )
