"""No HTTP 500 and no traceback from anything the browser can send.

Every server callback of the app (listed by ``/_dash-dependencies``, as the
renderer reads them) is posted through Dash's own endpoint
``/_dash-update-component`` with hypothesis-generated values in its inputs and
states: wrong types, huge and non-finite numbers, long and odd texts, missing
keys, deep nesting, each slot either such a value or its page's default. The
answer must be 200 or 204 and hold no traceback; a background job is followed
to its end as the browser polls it (and cancelled if it runs long). A failing
callback becomes the shell's message (``vizcoll.ui.shell.report_error``).

How long each callback takes with such values is measured by
``benchmarks/fuzz_callbacks.py`` (tests never assert times).
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app import create_app
from tests.fuzz_payload import default_value, layout_components, post, server_callbacks
from vizcoll.scenario import Scenario

EXAMPLES = 25  # per callback (95 callbacks): about half a minute in all
JOB_EXAMPLES = 5  # per background callback: each starts a job process
JOB_SECONDS = 20  # a job still running after that is cancelled (its answer is then not checked)

DEEP = json.loads("[" * 300 + "]" * 300)
scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=40)
    | st.sampled_from(["", "abc", "-1", "1e309", "NaN", "../../etc/passwd", "data:,x", "a" * 5000])
)
hostile = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(["schema", "fabric", "params", "nodes", "links", "x", ""]) | st.text(max_size=8),
            inner,
            max_size=4,
        )
    ),
    max_leaves=12,
) | st.just(DEEP)


@pytest.fixture(scope="module")
def app_client():
    app = create_app()
    client = app.server.test_client()
    client.get("/")
    return client, layout_components()


def _callbacks() -> list[dict]:
    client = create_app().server.test_client()
    client.get("/")
    return server_callbacks(client)


CALLBACKS = _callbacks()


def _name(dep: dict) -> str:
    parts = [p.split("@")[0] for p in dep["output"].strip(".").split("...")]
    return "+".join(parts)[:80]


@pytest.mark.parametrize("dep", CALLBACKS, ids=[_name(d) for d in CALLBACKS])
def test_no_input_gives_a_500_or_a_traceback(app_client, dep):
    client, found = app_client
    slots = dep["inputs"] + dep["state"]
    defaults = [default_value(found, d["id"], d["property"]) for d in slots]
    job = bool(dep.get("background"))

    @settings(
        max_examples=JOB_EXAMPLES if job else EXAMPLES,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(st.tuples(*[st.just(v) | hostile for v in defaults]))
    def fuzzed(values):
        status, text, _ = post(client, dep, list(values), job_seconds=JOB_SECONDS)
        assert status in (200, 204), (status, text[:300])
        assert "Traceback" not in text and 'File "' not in text, text[:300]

    fuzzed()


def test_every_callback_is_fuzzed():
    outputs = " ".join(d["output"] for d in CALLBACKS)
    assert len(CALLBACKS) >= 60 and sum(bool(d.get("background")) for d in CALLBACKS) >= 5
    for page in ("topo-", "trees-", "mc-", "bar-", "ft-", "era-", "sched-", "scenario"):
        assert page in outputs, page


@pytest.mark.parametrize("spec", ["empty", "mesh:1x1,hosts=0"])
def test_every_callback_answers_on_a_fabric_without_nodes_or_without_end_nodes(app_client, spec):
    """The "empty" example (a fabric drawn from nothing) and one switch alone: every callback answers with what
    it can show or a message, never the shell's "could not use what the browser sent" (an exception)."""
    client, found = app_client
    data = Scenario(spec=spec).to_dict()
    failed = []
    for dep in CALLBACKS:
        values = [
            data if (d["id"], d["property"]) == ("scenario", "data") else default_value(found, d["id"], d["property"])
            for d in dep["inputs"] + dep["state"]
        ]
        status, text, _ = post(client, dep, values, job_seconds=JOB_SECONDS)
        if status not in (200, 204) or "Traceback" in text or "could not use what the browser sent" in text:
            failed.append((_name(dep), status, text[:300]))
    assert failed == []
