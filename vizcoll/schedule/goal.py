"""GOAL text: write a :class:`Schedule` as LogGOPSim reads it, and read any GOAL file back with line-numbered problems.

The grammar is the one of LogGOPSim's ``txt2bin`` (HPDC 2010 toolchain)::

    num_ranks 2
    rank 0 {
    l0: send 8b to 1 tag 0
    }
    rank 1 {
    l0: recv 8b from 0 tag 0
    l1: calc 500
    l1 requires l0
    }

Operations: ``send Nb to R [tag T] [cpu C] [nic K]``, ``recv Nb from R|-1
[tag T|-1] [cpu C] [nic K]``, ``calc N [cpu C]``, each with an optional label
``name:``; dependencies ``a requires b`` / ``a irequires b`` between labels
defined earlier in the same rank block; comments ``//`` and ``/* */`` at the
start of a statement.

**Writing** (:func:`dumps`) avoids every shape LogGOPSim misreads: every line
flush left, no comment after an operation, all operations of a rank before its
dependencies, labels ``l0, l1, ...`` (never a keyword), one block per rank in
order.

**Reading** (:func:`parse`) is tolerant where LogGOPSim is strict, so that a
file can be shown, and reports every problem with its line: syntax errors,
the silent traps (leading white space, which LogGOPSim's scanner mis-tokenises;
a comment after an operation), blocks out of order, missing or beyond
``num_ranks``, undefined labels (LogGOPSim stops there), labels defined twice
(LogGOPSim binds the first). :mod:`vizcoll.schedule.check` adds the checks
that need the whole schedule (unmatched messages, cycles, ranks that do not
exist).

References: [LOGGOPSIM10] (keys: ``docs/papers.md``).

>>> from vizcoll.schedule.model import Schedule
>>> s = Schedule(2); _ = s.send(0, 1, 8); _ = s.recv(1, 0, 8)
>>> print(dumps(s), end="")
num_ranks 2
rank 0 {
l0: send 8b to 1 tag 0
}
rank 1 {
l0: recv 8b from 0 tag 0
}
>>> parse(dumps(s)).schedule.ops == s.ops
True
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from vizcoll.errors import VizcollError
from vizcoll.schedule import goal_columns
from vizcoll.schedule.model import ANY, MAX_OPS, Op, Schedule
from vizcoll.words import noun

__all__ = ["MAX_GOAL_BYTES", "Problem", "Parsed", "GoalError", "dumps", "parse", "loads"]

MAX_GOAL_BYTES = 64 * 1024 * 1024
MAX_RANKS = 1_000_000
KEYWORDS = ("num_ranks", "rank", "send", "recv", "calc")
_LABEL = r"[A-Za-z][A-Za-z0-9_]*"
_NUM = r"[0-9]+"
_OPTS = {"send": ("tag", "cpu", "nic"), "recv": ("tag", "cpu", "nic"), "calc": ("cpu",)}
_OP = re.compile(
    rf"(?:(?P<label>{_LABEL})[ \t]*:[ \t]*)?"
    rf"(?:(?P<kind>send|recv)[ \t]*(?P<size>{_NUM})[ \t]*b[ \t]*(?P<dir>to|from)[ \t]*(?P<peer>-1|{_NUM})"
    rf"|(?P<calc>calc)[ \t]*(?P<time>{_NUM}))"
    rf"(?P<rest>(?:[ \t]+(?:tag|cpu|nic)[ \t]*(?:-1|{_NUM}))*)[ \t]*$"
)
_DEP = re.compile(rf"(?P<a>{_LABEL})[ \t]+(?P<how>requires|irequires)[ \t]+(?P<b>{_LABEL})[ \t]*$")
_RANK = re.compile(rf"rank[ \t]+(?P<rank>{_NUM})[ \t]*\{{[ \t]*$")
_NUM_RANKS = re.compile(rf"num_ranks[ \t]+(?P<n>{_NUM})[ \t]*$")
_OPT = re.compile(rf"(tag|cpu|nic)[ \t]*(-1|{_NUM})")


class GoalError(VizcollError):
    """A GOAL file that cannot be read (the message names the line)."""


@dataclass(frozen=True)
class Problem:
    """Something wrong in a GOAL file: its ``line`` (0 = the whole file), ``severity`` (``error``: LogGOPSim
    refuses the file, crashes or times it wrongly; ``warning``: it runs but not as written) and what."""

    line: int
    severity: str
    message: str

    def __str__(self) -> str:
        where = f"line {self.line}: " if self.line else ""
        return f"{where}{self.severity}: {self.message}"


@dataclass
class Parsed:
    """The schedule read from a file (None when it could not be read at all), the problems found, and the line
    of every operation (``lines[rank][op]``)."""

    schedule: Schedule | None
    problems: list[Problem] = field(default_factory=list)
    lines: list[list[int]] = field(default_factory=list)

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "error"]


# ---------------------------------------------------------------- writing
def dumps(schedule: Schedule, comment: str = "") -> str:
    """The schedule as GOAL text LogGOPSim reads exactly as written.

    The text avoids every shape LogGOPSim misreads: every line flush left, no comment after an operation, all
    operations of a rank before its dependencies, labels ``l0, l1, ...``, one block per rank in order.

    Parameters
    ----------
    schedule : Schedule
        The schedule.
    comment : str
        Written first, each line as a ``//`` comment.

    Returns
    -------
    str
        The GOAL text (LogGOPSim's ``txt2bin`` input).

    References
    ----------
    [LOGGOPSIM10] Torsten Hoefler, Timo Schneider, Andrew Lumsdaine, "LogGOPSim — Simulating Large-Scale
    Applications in the LogGOPS Model", HPDC 2010, pp. 597–604, DOI
    [10.1145/1851476.1851564](https://doi.org/10.1145/1851476.1851564). The GOAL format (``txt2bin``).

    Examples
    --------
    >>> s = Schedule(2); _ = s.send(0, 1, 8); _ = s.recv(1, 0, 8)
    >>> dumps(s, "ping").splitlines()[:4]
    ['// ping', 'num_ranks 2', 'rank 0 {', 'l0: send 8b to 1 tag 0']
    """
    lines = [f"// {line}" for line in comment.splitlines() if line.strip()]
    lines.append(f"num_ranks {schedule.num_ranks}")
    for rank in range(schedule.num_ranks):
        lines.append(f"rank {rank} {{")
        lines += [f"l{i}: {_op_text(op)}" for i, op in enumerate(schedule.ops[rank])]
        lines += [f"l{a} requires l{b}" for a, b in schedule.requires[rank]]
        lines += [f"l{a} irequires l{b}" for a, b in schedule.irequires[rank]]
        lines.append("}")
    return "\n".join(lines) + "\n"


def _op_text(op: Op) -> str:
    extra = (f" cpu {op.cpu}" if op.cpu else "") + (f" nic {op.nic}" if op.nic else "")
    if op.kind == "calc":
        return f"calc {op.size}" + (f" cpu {op.cpu}" if op.cpu else "")
    way = "to" if op.kind == "send" else "from"
    return f"{op.kind} {op.size}b {way} {op.peer} tag {op.tag}{extra}"


# ---------------------------------------------------------------- reading
def loads(text: str | bytes, source: str = "GOAL file") -> Schedule:
    """The schedule of a GOAL file; :class:`GoalError` naming the first error's line if it has errors."""
    parsed = parse(text)
    if parsed.errors:
        raise GoalError(
            f"{source}: {parsed.errors[0]}"
            + (f" (and {len(parsed.errors) - 1} more errors)" if len(parsed.errors) > 1 else "")
        )
    return parsed.schedule


def parse(text: str | bytes) -> Parsed:
    """Read GOAL text tolerantly; every problem is reported with its line.

    Reading is tolerant where LogGOPSim is strict, so that a file can be shown: syntax errors, the silent traps
    (leading white space, a comment after an operation), blocks out of order, missing or beyond ``num_ranks``,
    undefined labels and labels defined twice are problems, not exceptions (see the module docstring;
    :func:`vizcoll.schedule.check.check` adds the checks that need the whole schedule). A plain file
    (:mod:`vizcoll.schedule.goal_columns`) is read all at once, any other line by line.

    Parameters
    ----------
    text : str or bytes
        The GOAL file's content (at most :data:`MAX_GOAL_BYTES`).

    Returns
    -------
    Parsed
        The schedule (None when it could not be read at all), the problems and the line of every operation.

    Examples
    --------
    >>> parsed = parse("num_ranks 1\\nrank 0 {\\n  l0: calc 5\\n}\\n")
    >>> parsed.schedule.n_ops, [(p.line, p.severity) for p in parsed.problems]
    (1, [(3, 'warning')])
    """
    plain = goal_columns.read(text, MAX_RANKS, MAX_OPS) if len(text) <= MAX_GOAL_BYTES else None
    if plain is not None:
        return Parsed(Schedule.of_columns(plain[0]), [], plain[1])
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            return Parsed(None, [Problem(0, "error", f"not UTF-8 text (byte {exc.start})")])
    if len(text) > MAX_GOAL_BYTES:
        return Parsed(None, [Problem(0, "error", f"the file is larger than {MAX_GOAL_BYTES >> 20} MB")])
    reader = _Reader()
    for number, line in enumerate(text.splitlines(), start=1):
        reader.line(number, line)
    return reader.finish()


class _Reader:
    """One pass over the lines: blocks, operations, labels, dependencies, problems."""

    def __init__(self) -> None:
        self.problems: list[Problem] = []
        self.num_ranks: int | None = None
        self.blocks: dict[int, tuple[list[Op], list, list]] = {}
        self.op_lines: dict[int, list[int]] = {}
        self.rank: int | None = None
        self.labels: dict[str, int] = {}
        self.in_comment = False
        self.n_ops = 0

    def problem(self, line: int, severity: str, message: str) -> None:
        self.problems.append(Problem(line, severity, message))

    # ------------------------------------------------------------ lines
    def line(self, number: int, raw: str) -> None:
        text = self._strip_comments(number, raw)
        if text is None or not text.strip():
            return
        if text[0] in " \t":
            self.problem(
                number,
                "warning",
                "white space at the start of the line: LogGOPSim's parser then "
                "misreads the next character (write every line flush left)",
            )
        self.statement(number, text.strip())

    def _strip_comments(self, number: int, raw: str) -> str | None:
        """The line without its comments (None when it is all comment); flags a comment after an operation."""
        text = raw.rstrip("\r")
        if self.in_comment:
            end = text.find("*/")
            if end < 0:
                return None
            self.in_comment, text = False, text[end + 2 :]
        stripped = text.lstrip(" \t")
        if stripped.startswith("//"):
            return None
        if stripped.startswith("/*"):
            end = stripped.find("*/", 2)
            if end < 0:
                self.in_comment = True
                return None
            return self._strip_comments(number, stripped[end + 2 :])
        for mark in ("//", "/*"):
            if mark in text:
                self.problem(
                    number,
                    "error",
                    f"a comment ({mark}) after a statement: LogGOPSim only takes comments at the start of a line",
                )
                text = text[: text.index(mark)]
        return text

    def statement(self, number: int, text: str) -> None:
        if match := _NUM_RANKS.match(text):
            self.num_ranks_line(number, int(match["n"]))
        elif match := _RANK.match(text):
            self.open_block(number, int(match["rank"]))
        elif text == "}":
            self.close_block(number)
        elif self.rank is None:
            self.problem(number, "error", f"{text[:40]!r} outside a rank block")
        elif match := _DEP.match(text):
            self.dependency(number, match)
        elif match := _OP.match(text):
            self.operation(number, match)
        else:
            self.problem(number, "error", _syntax_hint(text))

    # ------------------------------------------------------------ structure
    def num_ranks_line(self, number: int, n: int) -> None:
        if self.num_ranks is not None:
            self.problem(number, "warning", "num_ranks given twice: the first one counts")
        elif not 1 <= n <= MAX_RANKS:
            self.problem(number, "error", f"num_ranks must be from 1 to {MAX_RANKS:,}, got {n}")
        else:
            self.num_ranks = n

    def open_block(self, number: int, rank: int) -> None:
        if self.rank is not None:
            self.problem(number, "error", f"rank {rank} opens inside the block of rank {self.rank} (a missing }}?)")
        if self.num_ranks is None:
            self.problem(number, "error", "a rank block before num_ranks")
        expected = len(self.blocks)
        if rank in self.blocks:
            self.problem(number, "error", f"rank {rank} has a second block")
        elif rank != expected:
            self.problem(
                number,
                "error",
                f"rank {rank} comes where rank {expected} should: blocks must be in "
                "order (LogGOPSim aborts, or misassigns the operations)",
            )
        if self.num_ranks is not None and rank >= self.num_ranks:
            self.problem(
                number, "warning", f"rank {rank} is beyond num_ranks {self.num_ranks}: LogGOPSim ignores the block"
            )
        self.rank, self.labels = rank, {}
        self.blocks.setdefault(rank, ([], [], []))
        self.op_lines.setdefault(rank, [])

    def close_block(self, number: int) -> None:
        if self.rank is None:
            self.problem(number, "error", "a } without an open rank block")
        self.rank = None

    # ------------------------------------------------------------ contents
    def operation(self, number: int, match: re.Match) -> None:
        kind = match["kind"] or "calc"
        opts = self._options(number, kind, match["rest"] or "")
        if kind == "calc":
            op = Op("calc", int(match["time"]), cpu=opts.get("cpu", 0))
        else:
            if (match["dir"] == "to") != (kind == "send"):
                self.problem(
                    number, "error", f"{kind} takes '{'to' if kind == 'send' else 'from'}', not {match['dir']!r}"
                )
            peer = int(match["peer"])
            if kind == "send" and peer == ANY:
                self.problem(number, "error", "a send needs a destination rank (-1 is only for receives)")
            op = Op(kind, int(match["size"]), peer, opts.get("tag", 0), opts.get("cpu", 0), opts.get("nic", 0))
        self.n_ops += 1
        if self.n_ops > MAX_OPS:
            if self.n_ops == MAX_OPS + 1:
                self.problem(number, "error", f"more than {MAX_OPS:,} operations")
            return
        ops = self.blocks[self.rank][0]
        if match["label"]:
            self._define(number, match["label"], len(ops))
        ops.append(op)
        self.op_lines[self.rank].append(number)

    def _options(self, number: int, kind: str, rest: str) -> dict[str, int]:
        """``tag`` / ``cpu`` / ``nic`` values; LogGOPSim takes them only in that order and -1 only as a tag."""
        found = _OPT.findall(rest)
        names = [name for name, _ in found]
        allowed = _OPTS[kind]
        if (
            any(name not in allowed for name in names)
            or names != sorted(names, key=allowed.index)
            or len(set(names)) != len(names)
        ):
            self.problem(
                number, "error", f"{kind} takes the options {' '.join(allowed)} at most once each and in that order"
            )
        values = {name: int(value) for name, value in found}
        if any(v == ANY for name, v in values.items() if name != "tag" or kind != "recv"):
            self.problem(number, "error", "-1 (any) is only allowed as a receive's source or tag")
        return values

    def _define(self, number: int, label: str, index: int) -> None:
        if label in KEYWORDS:
            self.problem(number, "error", f"the label {label!r} is a keyword")
        if label in self.labels:
            self.problem(
                number, "warning", f"label {label} defined twice in rank {self.rank}: LogGOPSim binds the first one"
            )
            return
        self.labels[label] = index

    def dependency(self, number: int, match: re.Match) -> None:
        missing = [name for name in (match["a"], match["b"]) if name not in self.labels]
        if missing:
            self.problem(
                number,
                "error",
                f"the dependency names label {missing[0]}, which is not defined on an "
                f"earlier line of rank {self.rank} (LogGOPSim stops here)",
            )
            return
        _, requires, irequires = self.blocks[self.rank]
        (requires if match["how"] == "requires" else irequires).append(
            (self.labels[match["a"]], self.labels[match["b"]])
        )

    # ------------------------------------------------------------ the end
    def finish(self) -> Parsed:
        if self.in_comment:
            self.problem(0, "error", "a /* comment is never closed")
        if self.rank is not None:
            self.problem(0, "error", f"the block of rank {self.rank} is never closed")
        if self.num_ranks is None:
            self.problem(0, "error", "no num_ranks line")
            return Parsed(None, self.problems)
        absent = [r for r in range(self.num_ranks) if r not in self.blocks]
        if absent:
            shown = ", ".join(map(str, absent[:8])) + (" ..." if len(absent) > 8 else "")
            self.problem(0, "error", f"no block for {noun(len(absent), 'rank')} {shown} (LogGOPSim fails badly)")
        schedule = Schedule(self.num_ranks)
        for rank, (ops, requires, irequires) in self.blocks.items():
            if rank < self.num_ranks:
                schedule.ops[rank], schedule.requires[rank], schedule.irequires[rank] = ops, requires, irequires
        lines = [self.op_lines.get(rank, []) for rank in range(self.num_ranks)]
        return Parsed(schedule, self.problems, lines)


def _syntax_hint(text: str) -> str:
    """A message for a line that is no statement, naming the usual mistakes."""
    head = text.split()[0].rstrip(":") if text.split() else text
    lowered = text.lower()
    if any(word in lowered.split() for word in ("send", "recv", "calc", "requires")) and text != lowered:
        return f"keywords are lower case only: {text[:60]!r}"
    if re.search(r"(send|recv)\s*\d+\s+(to|from)", lowered):
        return f"a message size needs the b suffix (8b): {text[:60]!r}"
    return f"not a GOAL statement: {text[:60]!r} (starting with {head[:20]!r})"
