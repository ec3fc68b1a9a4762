"""Counted words, the one way the whole project writes them: "1 switch", "0 links", "1,356 processes".

Engine level: the pages and the engine's own captions and errors both use it, so it imports nothing of the UI.
A count of 1 (or -1) takes the singular, every other count (0 too) the plural; counts get thousands separators.
"""

from __future__ import annotations

__all__ = ["noun", "plural"]

_ES_ENDINGS = ("ch", "sh", "s", "x", "z")
_VOWELS = "aeiou"
_IRREGULAR = {"child": "children", "leaf": "leaves", "vertex": "vertices"}


def noun(count: int, word: str) -> str:
    """The form of ``word`` (an English noun, possibly of several words: the last one is counted) for ``count``.

    >>> noun(1, "switch"), noun(2, "switch"), noun(0, "link"), noun(-1, "link")
    ('switch', 'switches', 'links', 'link')
    >>> noun(2, "entry"), noun(2, "key"), noun(3, "process"), noun(4, "box"), noun(5, "mesh"), noun(2, "end node")
    ('entries', 'keys', 'processes', 'boxes', 'meshes', 'end nodes')
    >>> noun(2, "child"), noun(3, "tree vertex"), noun(0, "leaf")
    ('children', 'tree vertices', 'leaves')
    """
    if abs(count) == 1:
        return word
    head, _, last = word.rpartition(" ")
    if last in _IRREGULAR:
        return head + " " * bool(head) + _IRREGULAR[last]
    if word.endswith(_ES_ENDINGS):
        return word + "es"
    if len(word) > 1 and word.endswith("y") and word[-2] not in _VOWELS:
        return word[:-1] + "ies"
    return word + "s"


def plural(count: int, word: str) -> str:
    """``count`` with thousands separators, then ``word`` in the form for that count.

    >>> plural(1, "switch"), plural(0, "link"), plural(1356, "process"), plural(2, "entry")
    ('1 switch', '0 links', '1,356 processes', '2 entries')
    """
    return f"{count:,} {noun(count, word)}"
