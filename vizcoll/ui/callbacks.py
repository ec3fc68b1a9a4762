"""Callbacks by name (issue 49): a page names its outputs and inputs, and its callback answers with the outputs that
change, by name.

Dash's flexible signatures take ``output``, ``inputs`` and ``state`` as dicts: the function is called with the
inputs as keyword arguments and returns a dict with every output's name. :func:`by_name` registers a function so and
fills the outputs it does not name with ``no_update``, so that no answer counts its outputs or pads them
(``(no_update,) * 7``) and no caller picks them by position. With ``scenario=`` it also reads the shared scenario
store: the function gets the checked :class:`~vizcoll.scenario.Scenario`, and a store that cannot be read answers
only its ``message`` output, with the reason (:func:`vizcoll.ui.store.checked`).

A background callback (``background=True``) gets Dash's ``set_progress`` first, as Dash passes it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping

from dash import Dash, Input, Output, State, no_update

from vizcoll.ui.store import checked

__all__ = ["Outputs", "by_name", "answer"]

Outputs = Mapping[str, Output]


def answer(outputs: Outputs, values: Mapping | None = None) -> dict:
    """Every output of ``outputs`` by name: the value ``values`` gives it, else ``no_update``. A name that is not an
    output is a programming error (KeyError), not an answer Dash would refuse later."""
    values = values or {}
    unknown = set(values) - set(outputs)
    if unknown:
        raise KeyError(f"not outputs of this callback: {sorted(unknown)}")
    return {name: values.get(name, no_update) for name in outputs}


def by_name(
    app: Dash,
    output: Outputs,
    inputs: Mapping[str, Input | State],
    *,
    scenario: str | None = None,
    message: str | None = None,
    **options,
) -> Callable[[Callable], Callable]:
    """Register the decorated function as ``app``'s callback of the named ``output`` and ``inputs`` (Inputs and
    States, by their keyword); ``options`` are Dash's (``prevent_initial_call``, ``background``…).

    The function answers a dict of the outputs that change; the others stay as they are. With ``scenario`` (the
    name of the input holding the scenario store), it gets that input as a checked Scenario, and a store that
    cannot be read answers ``{message: why}`` without calling it. Returns the callback as Dash calls it (keyword
    inputs in, every output by name out), for tests to call.
    """
    if scenario is not None and (scenario not in inputs or message not in output):
        raise ValueError("a callback reading the scenario names its store input and its message output")

    def register(function: Callable) -> Callable:
        @functools.wraps(function)
        def callback(*progress, **values):
            if scenario is not None:
                read, why = checked(values[scenario])
                if read is None:
                    return answer(output, {message: why})
                values[scenario] = read
            return answer(output, function(*progress, **values))

        callback.outputs = tuple(output)  # the names it answers by (tests/ui/test_callbacks_by_name.py)
        app.callback(output=dict(output), inputs=dict(inputs), **options)(callback)
        return callback

    return register
