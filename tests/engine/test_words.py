"""Counted words: one helper for the whole project, with thousands separators and the singular for 1 only."""

import pytest

from vizcoll.words import noun, plural


@pytest.mark.parametrize(
    "count, word, text",
    [
        (1, "switch", "1 switch"),
        (0, "link", "0 links"),
        (1356, "process", "1,356 processes"),
        (2, "entry", "2 entries"),
        (2, "switch", "2 switches"),
        (1, "entry", "1 entry"),
        (3, "box", "3 boxes"),
        (2, "mesh", "2 meshes"),
        (2, "buzz", "2 buzzes"),
        (2, "day", "2 days"),
        (-1, "link", "-1 link"),
        (1_000_000, "end node", "1,000,000 end nodes"),
    ],
)
def test_plural(count, word, text):
    assert plural(count, word) == text


def test_noun_is_the_word_alone():
    assert [noun(n, "process") for n in (0, 1, 2)] == ["processes", "process", "processes"]
