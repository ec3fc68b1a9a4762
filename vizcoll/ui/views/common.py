"""Words several pages use: the scenario's fabric in one line (counted nouns: :mod:`vizcoll.words`)."""

from __future__ import annotations

from vizcoll.topology.model import Topology
from vizcoll.words import plural

__all__ = ["fabric_counts"]


def fabric_counts(topo: Topology) -> str:
    """``"20 switches, 16 end nodes, 1 broken link"``."""
    s = topo.summary()
    return ", ".join(
        plural(s[key], word)
        for key, word in (("switches", "switch"), ("endpoints", "end node"), ("broken_links", "broken link"))
    )
