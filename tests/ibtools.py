"""The real InfiniBand tools on a simulated fabric: ibsim runs a net file, OpenSM gives it LIDs, and
ibnetdiscover / iblinkinfo print what they print on a real cluster (through ibsim's ``ibsim-run`` preload).

Debian's ``ibsim-utils``, ``opensm`` and ``infiniband-diags`` (``scripts/test.sh`` installs them). Tests that need
them skip where they are missing or where another ibsim holds the simulator's socket.

    with simulated(net_path) as run:
        text = run("ibnetdiscover", "-p")
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

TOOLS = ("ibsim", "ibsim-run", "opensm", "ibnetdiscover", "iblinkinfo")
OUTPUTS = {
    "ports": ("ibnetdiscover", "-p"),
    "ports-s": ("ibnetdiscover", "-s", "-p"),
    "iblinkinfo": ("iblinkinfo",),
    "iblinkinfo-l": ("iblinkinfo", "-l"),
    "stanzas": ("ibnetdiscover",),
}
"""The outputs the tests read, by name: the tool and its arguments."""


def tool(name: str) -> str | None:
    """The path of a tool (ibnetdiscover, iblinkinfo and opensm live in /usr/sbin)."""
    found = shutil.which(name) or Path("/usr/sbin", name)
    return str(found) if Path(found).exists() else None


def have_tools() -> bool:
    return all(tool(name) for name in TOOLS)


def stop(sim: subprocess.Popen) -> None:
    """Quit ibsim through its console (kill it if it does not listen)."""
    if sim.poll() is None:
        try:
            sim.communicate("Quit\n", timeout=10)
        except subprocess.TimeoutExpired:
            sim.kill()
            sim.wait()


def _run(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run(["ibsim-run", tool(argv[0]), *argv[1:]], capture_output=True, text=True, timeout=120)


@contextlib.contextmanager
def simulated(net: Path, lids: bool = True) -> Iterator[Callable[..., str]]:
    """ibsim running ``net`` (with LIDs from one OpenSM sweep when ``lids``); yields ``run(tool, *args) -> stdout``
    (what ``tool args > file`` saves; ``-s`` prints its progress lines there too)."""
    if not have_tools():
        pytest.skip(f"needs {', '.join(TOOLS)} (apt-get install ibsim-utils opensm infiniband-diags)")
    sim = subprocess.Popen(
        ["ibsim", "-s", str(net)],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        _wait_ready(sim)
        if lids:
            _run("opensm", "-o")
        yield lambda *argv: _run(*argv).stdout
    finally:
        stop(sim)


def _wait_ready(sim: subprocess.Popen) -> None:
    for _ in range(50):
        time.sleep(0.2)  # a client connecting before ibsim listens waits 2 s
        if sim.poll() is not None:
            pytest.skip("ibsim could not start (another one running?)")
        if "Switch" in _run("ibnetdiscover").stdout:
            return
    pytest.skip("ibsim did not answer")


def outputs(net: Path, lids: bool = True) -> dict[str, str]:
    """Every output of :data:`OUTPUTS` for the fabric of ``net``."""
    with simulated(net, lids) as run:
        return {name: run(*argv) for name, argv in OUTPUTS.items()}


if __name__ == "__main__":  # python -m tests.ibtools NET: write every output next to the net file
    import sys

    NET = Path(sys.argv[1])
    for name, text in outputs(NET).items():
        (NET.parent / f"{name}.txt").write_text(text)
