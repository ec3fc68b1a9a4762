"""Slurm hostlist expressions (``node[001-032,040]``, ``rack[1-2]n[01-16]``): counted before they are expanded,
expanded by the well-kept python-hostlist package (never by hand).

``man slurm_hostlist_create``: "linux[1-3,6]" stands for linux1, linux2, linux3 and linux6. python-hostlist
expands any size it is given, so :func:`count` tells how many names an expression stands for first, in time
proportional to its length, and the readers refuse what is over their limits before anything is built.

>>> count("rack[1-2]n[01-16],login1,gpu[03,04]")
35
>>> count("n[0-999999999]")
1000000000
>>> expand("gpu[03,04],login1")
['gpu03', 'gpu04', 'login1']
"""

from __future__ import annotations

import re

import hostlist

__all__ = ["ASTRONOMICAL", "BadHostlist", "collect", "count", "expand"]

ASTRONOMICAL = 10**15
"""A count beyond any real cluster: :func:`count` stops counting there."""
BadHostlist = hostlist.BadHostlist
_RANGE = re.compile(r"([0-9]+)(?:-([0-9]+))?")
_DIGITS = len(str(ASTRONOMICAL))


def _bracket_size(body: str) -> int:
    """How many numbers the inside of one bracket (``01-16,20``) stands for; a malformed item counts 1."""
    total = 0
    for item in body.split(","):
        match = _RANGE.fullmatch(item)
        if match is None or match.group(2) is None:
            total += 1
        elif max(len(match.group(1)), len(match.group(2))) > _DIGITS:
            return ASTRONOMICAL  # never int() thousands of digits
        else:
            total += max(int(match.group(2)) - int(match.group(1)) + 1, 1)
    return total


def count(expression: str) -> int:
    """How many names ``expression`` stands for (a repeated name each time), without expanding it, at most
    :data:`ASTRONOMICAL`: the comma-separated parts (commas inside brackets do not separate) summed, each the
    product of its brackets' sizes. Malformed text counts as what it looks like; :func:`expand` refuses it."""
    total, product, depth, body = 0, 1, 0, ""
    for char in expression + ",":
        if char == "[":
            depth, body = depth + 1, ""
        elif char == "]":
            depth, product = depth - 1, min(product * _bracket_size(body), ASTRONOMICAL)
        elif depth > 0:
            body += char
        elif char == ",":
            total, product = min(total + product, ASTRONOMICAL), 1
    return total


def expand(expression: str, allow_duplicates: bool = True) -> list[str]:
    """The names of ``expression`` in order (python-hostlist's ``expand_hostlist``; :data:`BadHostlist` when it is
    malformed). Call :func:`count` first: this builds every name."""
    return hostlist.expand_hostlist(expression, allow_duplicates=allow_duplicates)


def collect(names: list[str]) -> str:
    """The shortest hostlist expression of ``names`` (python-hostlist's ``collect_hostlist``).

    >>> collect(["s0", "s1", "s2", "s4", "login"])
    'login,s[0-2,4]'
    """
    return hostlist.collect_hostlist(names)
