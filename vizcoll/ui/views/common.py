"""Words several pages use: counted nouns and the scenario's fabric in one line."""

from __future__ import annotations

from vizcoll.topology.model import Topology

__all__ = ["plural", "fabric_counts"]


def plural(count: int, word: str) -> str:
    """``"1 switch"``, ``"2 switches"``, ``"1,024 end nodes"``.

    >>> plural(2, "switch"), plural(1, "link")
    ('2 switches', '1 link')
    """
    return f"{count:,} {word}" + ("" if count == 1 else "es" if word.endswith("ch") else "s")


def fabric_counts(topo: Topology) -> str:
    """``"20 switches, 16 end nodes, 1 broken link"``."""
    s = topo.summary()
    return ", ".join(plural(s[key], word) for key, word in (("switches", "switch"), ("endpoints", "end node"),
                                                             ("broken_links", "broken link")))
