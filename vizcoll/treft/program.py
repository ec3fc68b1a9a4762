"""The program model of TREFT: a main program of serial statements, kernel calls and Writes.

A DSA main program (the AK) runs on a host node; its statements are

- :class:`Serial`: a serial statement on the host (reads and defines *host*
  variables, e.g. generating the input data); the host is assumed reliable;
- :class:`KernelCall`: a parallel kernel run on a remote device node, split
  into ``subtasks``; it reads host or stream variables and defines *stream*
  variables (its outputs). Consecutive calls with the same ``pattern`` form a
  parallel-execution pattern: they are launched together and their real
  order is unknown;
- :class:`Write`: brings a stream variable back into the main program (a host
  variable), the only way a serial statement can read kernel results.

Every variable is defined exactly once (single assignment) and has a modelled
size in bytes (``Program.sizes``) used by the timing model; the values
themselves are real numpy arrays computed by the statements' ``fn``.
``Program.pragmas`` optionally marks fault-tolerant sections by hand, like
``#pragma brs treftsyn startProgramCode`` / ``finish``: a list of inclusive
``(first, last)`` statement indices.

>>> import numpy as np
>>> prog = Program("tiny", (
...     Serial("S0", (), ("x",), lambda: np.ones(4)),
...     KernelCall("K1", ("x",), ("u1",), lambda x: 2 * x, time=1.0),
...     Write("u1", "y"),
... ), sizes={"x": 32, "u1": 32}, outputs=("y",))
>>> prog.is_stream("u1"), prog.is_stream("y"), prog.last_use["x"]
(True, False, 1)
>>> run_reference(prog)["y"].tolist()
[2.0, 2.0, 2.0, 2.0]
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from vizcoll.errors import SpecError

__all__ = ["KernelCall", "Program", "Serial", "Statement", "Write", "execute", "run_reference"]


def _check_name(name: str, what: str) -> None:
    if not isinstance(name, str) or not name or any(c in name for c in ": \t\n,"):
        raise SpecError(f"{what} name {name!r} must be a non-empty string without ':', ',' or spaces")


def _check_time(value: float, what: str) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise SpecError(f"{what} must be a finite number of seconds >= 0, got {value!r}")


@dataclass(frozen=True)
class Serial:
    """A serial statement on the host: ``outputs = fn(*inputs)`` on host variables, taking ``time`` s."""

    name: str
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    fn: Callable = field(repr=False, compare=False)
    time: float = 0.0
    text: str = ""

    @property
    def label(self) -> str:
        """Caption name, e.g. ``"S0 (generate the input)"``."""
        return f"{self.name} ({self.text})" if self.text else self.name


@dataclass(frozen=True)
class KernelCall:
    """A kernel call: ``outputs = fn(*inputs)`` on a device node, ``time`` s of computation.

    ``solver`` is a display tag (``"BT"``); ``pattern`` groups consecutive
    calls into one parallel-execution pattern.
    """

    name: str
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    fn: Callable = field(repr=False, compare=False)
    time: float = 0.0
    subtasks: int = 3
    solver: str = ""
    pattern: str | None = None

    @property
    def label(self) -> str:
        """Caption name, e.g. ``"K3 (LU)"``."""
        return f"{self.name} ({self.solver})" if self.solver else self.name


@dataclass(frozen=True)
class Write:
    """``target = var``: the stream variable ``var`` comes back into the main program."""

    var: str
    target: str

    @property
    def name(self) -> str:
        """A display name, ``"Write(u18)"``."""
        return f"Write({self.var})"

    @property
    def label(self) -> str:
        return f"Write({self.var} → {self.target})"

    @property
    def inputs(self) -> tuple[str, ...]:
        return (self.var,)

    @property
    def outputs(self) -> tuple[str, ...]:
        return (self.target,)


Statement = Serial | KernelCall | Write


@dataclass(frozen=True)
class Program:
    """A main program; see the module docstring. Validated on construction (:class:`SpecError`)."""

    name: str
    statements: tuple[Statement, ...]
    sizes: Mapping[str, int]
    outputs: tuple[str, ...]
    pragmas: tuple[tuple[int, int], ...] | None = None
    description: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "statements", tuple(self.statements))
        object.__setattr__(self, "outputs", tuple(self.outputs))
        sizes = dict(self.sizes)
        for stmt in self.statements:
            if isinstance(stmt, Write) and stmt.var in sizes:
                sizes.setdefault(stmt.target, sizes[stmt.var])
        object.__setattr__(self, "sizes", sizes)
        if self.pragmas is not None:
            object.__setattr__(self, "pragmas", tuple((int(a), int(b)) for a, b in self.pragmas))
        self._validate()

    # ------------------------------------------------------------ validation
    def _validate(self) -> None:
        if not self.statements:
            raise SpecError("a program needs at least one statement")
        defined: dict[str, int] = {}
        names: set[str] = set()
        for i, stmt in enumerate(self.statements):
            self._check_statement(i, stmt, names)
            group_start = self.group_of(i)[0] if isinstance(stmt, KernelCall) else i
            for var in stmt.inputs:
                if var not in defined or defined[var] >= group_start:
                    where = "inside its own parallel pattern" if var in defined else "before it is defined"
                    raise SpecError(f"statement {i} ({stmt.name}) reads {var!r} {where}")
            self._check_kinds(i, stmt)
            for var in stmt.outputs:
                _check_name(var, "variable")
                if var in defined:
                    raise SpecError(f"variable {var!r} is defined twice (statements {defined[var]} and {i})")
                defined[var] = i
        missing = sorted(v for v in defined if v not in self.sizes)
        if missing:
            raise SpecError(f"no size given for variable {missing[0]!r}")
        for var, size in self.sizes.items():
            if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size <= 0:
                raise SpecError(f"size of {var!r} must be a positive number of bytes, got {size!r}")
        for out in self.outputs:
            if out not in defined or self.is_stream(out):
                raise SpecError(
                    f"program output {out!r} must be a host variable (defined by a serial statement or a Write)"
                )
        self._check_patterns()
        self._check_pragmas()

    def _check_statement(self, i: int, stmt: Statement, names: set[str]) -> None:
        if not isinstance(stmt, (Serial, KernelCall, Write)):
            raise SpecError(f"statement {i} is not a Serial, KernelCall or Write: {stmt!r}")
        if isinstance(stmt, Write):
            return
        _check_name(stmt.name, "statement")
        if stmt.name in names:
            raise SpecError(f"two statements are named {stmt.name!r}")
        names.add(stmt.name)
        _check_time(stmt.time, f"time of {stmt.name}")
        if isinstance(stmt, KernelCall):
            if isinstance(stmt.subtasks, bool) or not isinstance(stmt.subtasks, int) or stmt.subtasks < 1:
                raise SpecError(f"{stmt.name}: subtasks must be an integer >= 1, got {stmt.subtasks!r}")
            if not stmt.outputs:
                raise SpecError(f"kernel {stmt.name} defines no variable")

    def _check_kinds(self, i: int, stmt: Statement) -> None:
        if isinstance(stmt, Serial):
            stream = [v for v in stmt.inputs if self.is_stream(v)]
            if stream:
                raise SpecError(
                    f"serial statement {stmt.name} reads the stream variable {stream[0]!r}: "
                    "bring it into the main program with a Write first"
                )
        elif isinstance(stmt, Write) and not self.is_stream(stmt.var):
            raise SpecError(f"statement {i} writes {stmt.var!r}, which no kernel defines")

    def _check_patterns(self) -> None:
        seen: dict[str, int] = {}
        previous = None
        for i, stmt in enumerate(self.statements):
            pattern = stmt.pattern if isinstance(stmt, KernelCall) else None
            if pattern is not None and pattern in seen and previous != pattern:
                raise SpecError(
                    f"the calls of parallel pattern {pattern!r} must be consecutive "
                    f"(statements {seen[pattern]} and {i})"
                )
            if pattern is not None:
                seen.setdefault(pattern, i)
            previous = pattern

    def _check_pragmas(self) -> None:
        if self.pragmas is None:
            return
        end = -1
        for first, last in self.pragmas:
            if not 0 <= first <= last < len(self.statements):
                raise SpecError(f"section ({first}, {last}) is not a range of statements 0..{len(self.statements) - 1}")
            if first <= end:
                raise SpecError(f"sections must be in order and must not overlap: ({first}, {last})")
            end = last

    # ------------------------------------------------------------ structure
    @cached_property
    def producer(self) -> dict[str, int]:
        """Index of the statement defining each variable."""
        return {var: i for i, stmt in enumerate(self.statements) for var in stmt.outputs}

    @cached_property
    def readers(self) -> dict[str, tuple[int, ...]]:
        """Indices of the statements reading each variable (in program order)."""
        out: dict[str, list[int]] = {var: [] for var in self.producer}
        for i, stmt in enumerate(self.statements):
            for var in dict.fromkeys(stmt.inputs):
                out[var].append(i)
        return {var: tuple(ix) for var, ix in out.items()}

    @cached_property
    def last_use(self) -> dict[str, int]:
        """Index of the last statement reading each variable (-1 if none does)."""
        return {var: (ix[-1] if ix else -1) for var, ix in self.readers.items()}

    @cached_property
    def kernels(self) -> dict[str, KernelCall]:
        """The kernel calls by name, in program order."""
        return {s.name: s for s in self.statements if isinstance(s, KernelCall)}

    @cached_property
    def index(self) -> dict[str, int]:
        """Statement index of each named (serial or kernel) statement."""
        return {s.name: i for i, s in enumerate(self.statements) if not isinstance(s, Write)}

    def is_stream(self, var: str) -> bool:
        """True for a variable defined by a kernel call."""
        i = self.producer.get(var)
        return i is not None and isinstance(self.statements[i], KernelCall)

    def group_of(self, i: int) -> tuple[int, ...]:
        """The statements launched together with statement ``i``: its parallel pattern, or just ``i``."""
        stmt = self.statements[i]
        if not isinstance(stmt, KernelCall) or stmt.pattern is None:
            return (i,)
        lo = i
        while lo > 0 and getattr(self.statements[lo - 1], "pattern", None) == stmt.pattern:
            lo -= 1
        hi = i
        while hi + 1 < len(self.statements) and getattr(self.statements[hi + 1], "pattern", None) == stmt.pattern:
            hi += 1
        return tuple(range(lo, hi + 1))

    def groups(self) -> list[tuple[int, ...]]:
        """The statements in execution units: one per statement, one per parallel pattern."""
        out, i = [], 0
        while i < len(self.statements):
            group = self.group_of(i)
            out.append(group)
            i = group[-1] + 1
        return out


def _as_tuple(result, n: int, name: str) -> tuple[np.ndarray, ...]:
    values = result if isinstance(result, tuple) else (result,)
    if len(values) != n:
        raise SpecError(f"{name} returned {len(values)} values for {n} outputs")
    return tuple(np.asarray(v) for v in values)


def execute(stmt: Statement, values: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The variables ``stmt`` defines, computed from ``values`` (which must hold its inputs)."""
    if isinstance(stmt, Write):
        return {stmt.target: np.array(values[stmt.var], copy=True)}
    outs = _as_tuple(stmt.fn(*(values[v] for v in stmt.inputs)), len(stmt.outputs), stmt.name)
    return dict(zip(stmt.outputs, outs, strict=True))


def run_reference(program: Program) -> dict[str, np.ndarray]:
    """Every variable's fault-free value: the program run once, statement by statement."""
    values: dict[str, np.ndarray] = {}
    for stmt in program.statements:
        values.update(execute(stmt, values))
    return values
