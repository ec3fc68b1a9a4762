"""How long every callback takes to answer what a hostile browser sends.

Run ``python benchmarks/fuzz_callbacks.py [--examples 25]``. Every server callback is posted, through Dash's
own endpoint in-process (Flask's test client, a fresh cache), the hypothesis-generated values of
``tests/ui/test_callbacks_fuzzed.py`` (a background callback: its job followed to the end). Printed as JSON:
the number of requests, the slowest answers of the web workers (callback, seconds), how many took longer
than 2 s (the hosted demo's promise: a bad input gets its message at once), and the longest background job
(which runs outside the web workers, with a progress bar).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("VIZCOLL_CACHE_DIR", tempfile.mkdtemp(prefix="vizcoll-fuzz-cache-"))

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from app import create_app  # noqa: E402
from tests.fuzz_payload import default_value, layout_components, post, server_callbacks  # noqa: E402
from tests.ui.test_callbacks_fuzzed import hostile  # noqa: E402

LIMIT_S = 2.0


def timings(examples: int) -> list[tuple[float, str, int]]:
    """(seconds, callback output, status) of every request."""
    client = create_app().server.test_client()
    client.get("/")
    found, seen = layout_components(), []
    for dep in server_callbacks(client):
        _fuzz(
            client,
            dep,
            [default_value(found, d["id"], d["property"]) for d in dep["inputs"] + dep["state"]],
            examples,
            seen,
        )
    return seen


def _fuzz(client, dep: dict, defaults: list, examples: int, seen: list) -> None:
    @settings(max_examples=examples, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(st.tuples(*[st.just(v) | hostile for v in defaults]))
    def timed(values):
        started = time.perf_counter()
        status, _, _ = post(client, dep, list(values), job_seconds=120)
        name = ("job " if dep.get("background") else "") + dep["output"].split("@")[0][:70]
        seen.append((time.perf_counter() - started, name, status))

    timed()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=25)
    args = parser.parse_args()
    seen = sorted(timings(args.examples), reverse=True)
    print(
        json.dumps(
            {
                "requests": len(seen),
                "callbacks": len({name for _, name, _ in seen}),
                "statuses": sorted({status for *_, status in seen}),
                "over_2_s": sum(s > LIMIT_S for s, name, _ in seen if not name.startswith("job ")),
                "slowest_job_s": max((round(s, 3) for s, name, _ in seen if name.startswith("job ")), default=None),
                "slowest": [
                    {"callback": name, "seconds": round(s, 3)} for s, name, _ in seen if not name.startswith("job ")
                ][:5],
            },
            indent=1,
        )
    )


if __name__ == "__main__":
    main()
