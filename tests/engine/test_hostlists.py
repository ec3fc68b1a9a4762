"""Slurm hostlists: counted without expanding (any size, any number of digits), expanded by python-hostlist."""

from __future__ import annotations

import pytest

from vizcoll import hostlists
from vizcoll.comm import host_lists
from vizcoll.errors import FileFormatError, SpecError
from vizcoll.topology import from_spec
from vizcoll.topology.io import parse

HUGE = "n[0-" + "9" * 5000 + "]"  # more digits than Python converts to an int


@pytest.mark.parametrize(
    "expression, names",
    [
        ("node[001-032,040]", 33),
        ("gpu[03,04]", 2),
        ("rack[1-2]n[01-16]", 32),
        ("switch.1.[9-10]", 2),
        ("a,b[1-3],c[5]", 5),
        ("n[0-999999999]", 10**9),
        (HUGE, hostlists.ASTRONOMICAL),
        ("n[0-99999]" * 5, hostlists.ASTRONOMICAL),
    ],
)
def test_count_is_the_number_of_names_expand_gives(expression, names):
    assert hostlists.count(expression) == names
    if names < 1000:
        assert len(hostlists.expand(expression)) == names


def test_astronomical_lists_are_refused_by_both_readers():
    with pytest.raises(FileFormatError, match=r"line 1: Nodes=n\[0-9999.* names 1,000,000,000,000,000 nodes"):
        parse(f"SwitchName=s0 Nodes={HUGE}\n", "topology.conf")
    with pytest.raises(SpecError, match=r"line 1: .* expands to an astronomical number of hosts"):
        host_lists(from_spec("fat-tree:radix=4,levels=2"), HUGE)
