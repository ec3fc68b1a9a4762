"""Small hand-written fabrics (ibnetdiscover text) whose names nobody generated, shared by the tests."""

from __future__ import annotations

import os
from pathlib import Path

REAL_FABRICS = Path(os.environ.get("VIZCOLL_REAL_FABRICS", Path(__file__).resolve().parents[2] / "shared" / "data"
                                   / "real-fabrics"))
"""Real clusters' own fabric files (../shared/data/real-fabrics, never copied here; SOURCES.txt says where each
comes from). Tests that read them are skipped where the folder is not there (set VIZCOLL_REAL_FABRICS to it)."""

HOSTS = ("alpha", "beta", "gamma", "delta")


def _hosts() -> str:
    return "".join(f'\nHca 1 "{h}"\n[1] "{leaf}"[{port}]\n' for h, leaf, port in (
        ("alpha", "leafA", 1), ("beta", "leafA", 2), ("gamma", "leafB", 1), ("delta", "leafB", 2)))


ONE_SPINE = """Switch 3 "spine"
[1] "leafA"[3]
[2] "leafB"[3]

Switch 3 "leafA"
[1] "alpha"[1]
[2] "beta"[1]
[3] "spine"[1]

Switch 3 "leafB"
[1] "gamma"[1]
[2] "delta"[1]
[3] "spine"[2]
""" + _hosts()
"""Two leaves of two hosts under one spine: a broken uplink cuts a leaf off."""

TWO_SPINES = """# a small two-level fabric written by hand
Switch 4 "spine1"
[1] "leafA"[3]
[2] "leafB"[3]

Switch 4 "spine2"
[1] "leafA"[4]
[2] "leafB"[4]

Switch 4 "leafA"
[1] "alpha"[1]
[2] "beta"[1]
[3] "spine1"[1]
[4] "spine2"[1]

Switch 4 "leafB"
[1] "gamma"[1]
[2] "delta"[1]
[3] "spine1"[2]
[4] "spine2"[2]
""" + _hosts()
"""Two leaves under two spines: every single break can be routed around."""
