"""A plain GOAL file read straight into columns (:mod:`vizcoll.schedule.columns`), all lines at once.

*Plain* is what :func:`vizcoll.schedule.goal.dumps` writes and what a file without problems usually is: ASCII, one
statement per line flush left, single spaces, labels ``l`` + digits (``l0``, ``l17``: no leading zero, each once
per rank), every dependency after the labels it names, blocks ``rank 0 {`` ... ``}`` in order after one
``num_ranks`` line, whole-line ``//`` comments and empty lines. :func:`read` returns the schedule of such a file,
or None as soon as anything differs; the line-by-line reader (:func:`vizcoll.schedule.goal.parse`) then reads
the file and finds its problems. Both give the same schedule and lines for a plain file: the plain reader only
takes what the line-by-line reader takes without a problem.

Why by hand: on a 6.7 MB file (307,198 lines: a Rabenseifner reduction of 4,096 ranks) the line-by-line reader,
and even Python's ``re`` only finding its operations and dependencies and making integers of their strings, take
several times as long as numpy finding the lines and spaces of the bytes, checking every token and reading the
numbers, column by column (measured: docs/design.md).

>>> columns, lines = read("num_ranks 2\\nrank 0 {\\nl0: send 8b to 1 tag 3\\n}\\nrank 1 {\\n"
...                       "l0: recv 8b from -1 tag 3 nic 1\\nl1: calc 5\\nl1 requires l0\\n}\\n")
>>> ops, requires, _ = columns.to_lists()
>>> ops[1], requires, lines
([Op(kind='recv', size=8, peer=-1, tag=3, cpu=0, nic=1), Op(kind='calc', size=5, peer=-1, tag=0, cpu=0, nic=0)], \
[[], [(1, 0)]], [[3], [6, 7]])
>>> read("num_ranks 1\\nrank 0 {\\n l0: calc 5\\n}\\n") is None  # white space first: the line-by-line reader warns
True
"""

from __future__ import annotations

import re

import numpy as np

from vizcoll.schedule.columns import CALC, RECV, SEND, Columns

__all__ = ["read"]

MAX_DIGITS = 18  # every number fits in int64
_NL, _SP, _SLASH, _COLON = 10, 32, 47, 58
_NUM_RANKS, _RANK, _OP, _DEP, _CLOSE = 1, 2, 3, 4, 5  # line classes (0: empty or comment)
_BLOCKS = re.compile(rb"\x01(?:\x02[\x03\x04]*\x05)*")
_OPTIONS = (b"tag", b"cpu", b"nic")
_ZEROS, _SIXES, _HIGH = np.uint64(0x3030303030303030), np.uint64(0x0606060606060606), np.uint64(0xF0F0F0F0F0F0F0F0)
_ONES = np.uint64(2**64 - 1)


def read(text: str | bytes, max_ranks: int = 1_000_000, max_ops: int = 2_000_000):
    """(columns, GOAL line of every operation per rank) of a plain GOAL text, else None (see the module
    docstring); a file of more than ``max_ranks`` ranks or ``max_ops`` operations is not plain."""
    data = _ascii(text)
    if data is None or b"/*" in data:
        return None
    t = _Text(np.frombuffer(data, dtype=np.uint8))
    if np.count_nonzero(t.arr < _SP) != len(t.ends):
        return None  # carriage returns, tabs and the like: the line-by-line reader's
    lines = t.classify()
    if lines is None:
        return None
    num_ranks = t.blocks(lines, max_ranks)
    if num_ranks is None:
        return None
    op_lines, dep_lines = np.flatnonzero(lines == _OP), np.flatnonzero(lines == _DEP)
    if len(op_lines) > max_ops:
        return None
    rank_of_line = np.cumsum(lines == _RANK) - 1
    ops = t.operations(op_lines)
    deps = t.dependencies(dep_lines)
    if ops is None or deps is None:
        return None
    resolved = _resolve(ops.pop("label"), rank_of_line[op_lines], op_lines, deps, rank_of_line[dep_lines], dep_lines)
    if resolved is None:
        return None
    start = np.searchsorted(rank_of_line[op_lines], np.arange(num_ranks + 1))
    columns = Columns(num_ranks, start, **ops, **resolved)
    numbers = np.split(op_lines + 1, start[1:-1])
    return columns, [part.tolist() for part in numbers]


def _ascii(text: str | bytes) -> bytes | None:
    """The text as ASCII bytes ending in a newline, or None when it is not ASCII (or empty)."""
    if isinstance(text, str):
        if not text.isascii():
            return None
        text = text.encode("ascii")
    elif not text.isascii():
        return None
    if not text:
        return None
    return text if text.endswith(b"\n") else text + b"\n"


class _Text:
    """The bytes of the text, its lines and spaces, and checks of tokens on many lines at once.

    A token is read through the 8 bytes ending at a position as one little-endian uint64 (:attr:`u64`, a view
    of the bytes at every offset): a word is compared, and up to 8 digits checked and read (SWAR: three
    multiply-and-shift steps), in a few operations on one array of the tokens."""

    def __init__(self, arr: np.ndarray) -> None:
        self.arr, self.last = arr, len(arr) - 1
        self.ends = np.flatnonzero(arr == _NL)
        self.starts = np.concatenate(([0], self.ends[:-1] + 1))
        space = arr == _SP
        self.spaces = np.append(np.flatnonzero(space), len(arr))  # (a sentinel past the end)
        self.spaces_before = np.concatenate(([0], np.cumsum(space, dtype=np.int32)))  # in arr[:i]
        self.padded = np.zeros(len(arr) + 24, dtype=np.uint8)
        self.padded[8 : 8 + len(arr)] = arr
        self.u64 = np.ndarray((len(arr) + 17,), dtype="<u8", buffer=self.padded, strides=(1,))  # arr[i-8:i]

    def classify(self) -> np.ndarray | None:
        """Each line's class (``_OP``, ``_DEP``, ...; 0 for an empty line or a ``//`` comment), or None when a
        line starts otherwise or has a ``/`` outside a comment."""
        arr, starts, ends = self.arr, self.starts, self.ends
        first = arr[starts]
        second = arr[np.minimum(starts + 1, self.last)]
        comment = (first == _SLASH) & (second == _SLASH) & (ends - starts >= 2)
        lines = np.full(len(starts), -1, dtype=np.int8)
        lines[(first == _NL) | comment] = 0
        lines[first == ord("n")] = _NUM_RANKS
        lines[first == ord("r")] = _RANK
        lines[(first == ord("}")) & (ends - starts == 1)] = _CLOSE
        label = np.flatnonzero(first == ord("l"))
        space = np.minimum(self.spaces[self.spaces_before[starts[label]]], ends[label])  # the first, or the end
        lines[label] = np.where(arr[space - 1] == _COLON, _OP, _DEP)
        if np.any(lines < 0):
            return None
        slashes = np.searchsorted(self.ends, np.flatnonzero(arr == _SLASH))
        return None if np.any(lines[slashes] != 0) else lines

    def blocks(self, lines: np.ndarray, max_ranks: int) -> int | None:
        """num_ranks when the file is ``num_ranks N`` then the blocks of ranks 0..N-1 in order, else None."""
        statements = lines[lines != 0]
        if not _BLOCKS.fullmatch(statements.astype(np.uint8).tobytes()):
            return None
        first = np.flatnonzero(lines == _NUM_RANKS)[0]
        match = re.fullmatch(rb"num_ranks ([0-9]{1,18})", self.arr[self.starts[first] : self.ends[first]].tobytes())
        num_ranks = int(match[1]) if match else 0
        ranks = np.flatnonzero(lines == _RANK)
        if not 1 <= num_ranks <= max_ranks or len(ranks) != num_ranks:
            return None
        expected = "".join(f"rank {r} {{\n" for r in range(num_ranks)).encode()
        length = self.ends[ranks] - self.starts[ranks] + 1
        if int(length.sum()) != len(expected):
            return None
        offset = np.repeat(self.starts[ranks] - (np.cumsum(length) - length), length)
        return num_ranks if self.arr[offset + np.arange(len(expected))].tobytes() == expected else None

    def tokens(self, lines: np.ndarray) -> _Tokens:
        """The space-separated tokens of ``lines``."""
        starts, ends = self.starts[lines], self.ends[lines]
        first = self.spaces_before[starts]
        return _Tokens(self.spaces, starts, ends, first, self.spaces_before[ends] - first + 1)

    def words(self, s: np.ndarray, e: np.ndarray, *words: bytes) -> list[np.ndarray]:
        """Whether each token ``[s, e)`` is the word, for each of ``words``."""
        heads = [self.u64[s + k + 8] for k in range(0, max(map(len, words)), 8)]
        out = []
        for word in words:
            same = (e - s) == len(word)
            for k in range(0, len(word), 8):
                piece = word[k : k + 8]
                same &= (heads[k // 8] & ((1 << 8 * len(piece)) - 1)) == int.from_bytes(piece, "little")
            out.append(same)
        return out

    def number(self, s: np.ndarray, e: np.ndarray, minus_one: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """(value, ok) of each token ``[s, e)``: ok when it is 1 to 18 digits (or ``-1`` with ``minus_one``)."""
        length = e - s
        ok = (length >= 1) & (length <= MAX_DIGITS)
        value = np.zeros(len(s), dtype=np.uint64)
        for k in range(-(-int(length[ok].max(initial=1)) // 8)):  # 8 digits at a time, from the right
            digits = np.clip(length - 8 * k, 0, 8).astype(np.uint64)
            low = np.where(digits == 0, _ONES, (np.uint64(1) << (np.uint64(64) - 8 * digits)) - np.uint64(1))
            chunk = (self.u64[e - 8 * k] & ~low) | (_ZEROS & low)
            ok &= ((chunk & _HIGH) == _ZEROS) & (((chunk + _SIXES) & _HIGH) == _ZEROS)
            value += _eight_digits(chunk) * np.uint64(10 ** (8 * k))
        value = np.where(ok, value, 0).astype(np.int64)
        if minus_one:
            (any_,) = self.words(s, e, b"-1")
            value[any_], ok = -1, ok | any_
        return value, ok

    def label(self, s: np.ndarray, e: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(number, ok) of labels ``l<digits>`` in ``[s, e)``: at most 9 digits, no leading zero."""
        number, ok = self.number(s + 1, e)
        head = self.u64[s + 8]
        ok &= ((head & np.uint64(0xFF)) == ord("l")) & (e - s <= 10)
        ok &= (e - s == 2) | (((head >> np.uint64(8)) & np.uint64(0xFF)) != ord("0"))
        return number, ok

    def operations(self, lines: np.ndarray) -> dict | None:
        """The columns of the operation lines, or None when one is not plain."""
        tokens = self.tokens(lines)
        (s0, e0), (s1, e1), (s2, e2), (s3, e3), (s4, e4) = (tokens.at(j) for j in range(5))
        label, ok = self.label(s0, e0 - 1)
        is_send, is_recv, is_calc = self.words(s1, e1, b"send", b"recv", b"calc")
        kind = np.where(is_send, SEND, np.where(is_recv, RECV, CALC)).astype(np.int8)
        message = is_send | is_recv
        size, size_ok = self.number(s2, np.where(message, e2 - 1, e2))
        (suffix,) = self.words(e2 - 1, e2, b"b")
        to, from_ = self.words(s3, e3, b"to", b"from")
        peer, peer_ok = self.number(s4, e4, minus_one=True)
        ok &= is_calc | (message & suffix & np.where(is_send, to & (peer >= 0), from_) & peer_ok)
        ok &= size_ok
        options = np.where(message, tokens.count - 5, tokens.count - 3)  # tokens after the peer / the time
        ok &= (options >= 0) & (options % 2 == 0) & (options <= np.where(message, 6, 2))
        values = self._options(tokens, np.where(message, 5, 3), options // 2, is_recv, is_calc) if ok.all() else None
        if values is None:
            return None
        tag, cpu, nic = values
        return {
            "label": label,
            "kind": kind,
            "size": size,
            "peer": np.where(is_calc, -1, peer),
            "tag": tag,
            "cpu": cpu,
            "nic": nic,
        }

    def _options(self, tokens: _Tokens, first, pairs, is_recv, is_calc) -> tuple[np.ndarray, ...] | None:
        """``tag`` / ``cpu`` / ``nic`` values (0 when absent) of lines with ``pairs`` options from token
        ``first``: each at most once and in that order, a calc's ``cpu`` only, -1 only as a receive's tag."""
        values = [np.zeros(len(pairs), dtype=np.int64) for _ in _OPTIONS]
        last = np.full(len(pairs), -1)
        for k in range(int(pairs.max(initial=0))):
            has = k < pairs
            name = np.full(len(pairs), -1)
            for code, same in enumerate(self.words(*tokens.at(first + 2 * k), *_OPTIONS)):
                name[same] = code
            value, ok = self.number(*tokens.at(first + 2 * k + 1), minus_one=True)
            ok &= (name > last) & (~is_calc | (name == 1)) & ((value >= 0) | (is_recv & (name == 0)))
            if not ok[has].all():
                return None
            for code in range(len(_OPTIONS)):
                chosen = has & (name == code)
                values[code][chosen] = value[chosen]
            last = np.where(has, name, last)
        return tuple(values)

    def dependencies(self, lines: np.ndarray) -> dict | None:
        """``a``, ``b`` label numbers and ``i`` (irequires) of the dependency lines, or None when one is not
        plain (``l<a> requires l<b>`` / ``l<a> irequires l<b>``)."""
        tokens = self.tokens(lines)
        if (tokens.count != 3).any():
            return None
        (s0, e0), (s1, e1), (s2, e2) = (tokens.at(j) for j in range(3))
        a, a_ok = self.label(s0, e0)
        b, b_ok = self.label(s2, e2)
        requires, irequires = self.words(s1, e1, b"requires", b"irequires")
        return {"a": a, "b": b, "i": irequires} if (a_ok & b_ok & (requires | irequires)).all() else None


class _Tokens:
    """The tokens of some lines: :meth:`at` gives the start and end of the ``j``-th of each line."""

    def __init__(self, spaces, starts, ends, first, count) -> None:
        self.spaces, self.starts, self.ends, self.first, self.count = spaces, starts, ends, first, count

    def at(self, j) -> tuple[np.ndarray, np.ndarray]:
        """(start, end) of token ``j`` (a number, or one per line) of each line; -1 past a line's last token."""
        top = len(self.spaces) - 1
        start = np.where(j == 0, self.starts, self.spaces[np.clip(self.first + j - 1, 0, top)] + 1)
        end = np.where(j + 1 == self.count, self.ends, self.spaces[np.minimum(self.first + j, top)])
        past = j >= self.count
        return np.where(past, -1, start), np.where(past, -1, end)


def _eight_digits(chunk: np.ndarray) -> np.ndarray:
    """The number written by 8 ASCII digits, the first in the lowest byte (SWAR: pairs, then fours, then all)."""
    v = chunk - _ZEROS
    v = (v * np.uint64(10) + (v >> np.uint64(8))) & np.uint64(0x00FF00FF00FF00FF)
    v = (v * np.uint64(100) + (v >> np.uint64(16))) & np.uint64(0x0000FFFF0000FFFF)
    return (v * np.uint64(10000) + (v >> np.uint64(32))) & np.uint64(0xFFFFFFFF)


def _resolve(labels, op_rank, op_lines, deps, dep_rank, dep_lines) -> dict | None:
    """The dependencies as rows ``(a, b)`` (``requires`` and ``irequires``, in file order), or None when a label
    is defined twice in a rank or a dependency names one not defined on an earlier line of its rank."""
    key = op_rank * 10**9 + labels
    order = np.argsort(key, kind="stable")
    ordered = key[order]
    if np.any(ordered[1:] == ordered[:-1]):
        return None
    rows = []
    for name in ("a", "b"):
        wanted = dep_rank * 10**9 + deps[name]
        at = np.minimum(np.searchsorted(ordered, wanted), max(len(ordered) - 1, 0))
        if len(wanted) and (not len(ordered) or np.any(ordered[at] != wanted)):
            return None
        row = order[at] if len(wanted) else np.zeros(0, np.int64)
        if np.any(op_lines[row] > dep_lines):
            return None
        rows.append(row)
    pairs = np.stack(rows, axis=1).astype(np.int64).reshape(-1, 2)
    return {"requires": pairs[~deps["i"]], "irequires": pairs[deps["i"]]}
