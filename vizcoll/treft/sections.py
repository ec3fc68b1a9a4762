"""Fault-tolerant program sections and the paper's five placement rules.

A *section* is a range of statements between a start sync point and a compare
sync point. Its *live variables* are the stream variables its kernel calls
define that a statement after the section reads (definition 2 (3)): exactly
the data that leaves the section, so the data the three replicas compare.

Placement per variant (:data:`VARIANTS`):

- ``"treft"``: the programmer's pragmas if the program has some, otherwise the
  largest sections the rules allow (rule 5): a section opens at the first
  kernel call and closes only before a Write that reads data it defined
  (rule 1) -- for the NGB workflows this is the paper's "one large section";
- ``"e1"``: the same sections, with eager stream transfer (rule 4 then
  applies: data sent early is checked, and re-sent if wrong, in the section
  that defined it);
- ``"e2"``: one section per kernel call (per parallel pattern: rule 3 wins
  over "one per kernel" when they disagree).

The rules, as checked by :func:`check_sections`:

1. a Write must not read data of a section before that section's compare sync
   point (the Write sits inside the section, or its data is never checked);
2. every kernel call lies in a section;
3. all calls of one parallel pattern lie in the same section;
4. with eager transfer, data sent out of a section is checked in the section
   that defined it (fails only for kernels outside every section);
5. sensible granularity: two neighboring sections that could be merged
   without breaking rule 1 are reported (advice, not an error: merging saves
   one OPRS/OPRFS round and the check of the data passed between them).

References: [TREFT15] (keys: ``docs/papers.md``).
"""

from __future__ import annotations

from dataclasses import dataclass

from vizcoll.errors import SpecError
from vizcoll.treft.program import KernelCall, Program, Write

__all__ = ["VARIANTS", "Section", "Violation", "check_sections", "live_variables", "place_sections"]

VARIANTS = ("treft", "e1", "e2")
RULES = {
    1: "a section before every Write",
    2: "every kernel call in a section",
    3: "a parallel pattern in one section",
    4: "eager data checked in its own section",
    5: "sensible granularity",
}


@dataclass(frozen=True)
class Section:
    """Section ``index`` (from 1): statements ``first..last``, its kernels and live variables."""

    index: int
    first: int
    last: int
    kernels: tuple[str, ...]
    live: tuple[str, ...]

    def to_dict(self) -> dict:
        return {
            "index": self.index,
            "first": self.first,
            "last": self.last,
            "kernels": list(self.kernels),
            "live": list(self.live),
        }


@dataclass(frozen=True)
class Violation:
    """A broken placement rule (``rule`` 1..5) with a readable message."""

    rule: int
    message: str
    section: int | None = None
    statement: int | None = None

    def to_dict(self) -> dict:
        return {"rule": self.rule, "message": self.message, "section": self.section, "statement": self.statement}


def live_variables(program: Program, first: int, last: int) -> tuple[str, ...]:
    """Stream variables defined by kernel calls in ``first..last`` and read after ``last``."""
    out = []
    for stmt in program.statements[first : last + 1]:
        if isinstance(stmt, KernelCall):
            out.extend(v for v in stmt.outputs if program.last_use[v] > last)
    return tuple(out)


def _make(program: Program, ranges: list[tuple[int, int]]) -> list[Section]:
    sections = []
    for k, (first, last) in enumerate(ranges, start=1):
        kernels = tuple(s.name for s in program.statements[first : last + 1] if isinstance(s, KernelCall))
        sections.append(Section(k, first, last, kernels, live_variables(program, first, last)))
    return sections


def _defined_in(program: Program, var: str, first: int, last: int) -> bool:
    i = program.producer[var]
    return first <= i <= last and isinstance(program.statements[i], KernelCall)


def _auto_ranges(program: Program) -> list[tuple[int, int]]:
    """Largest sections: close only before a Write of data defined in the open section."""
    ranges: list[tuple[int, int]] = []
    first = last = None
    for i, stmt in enumerate(program.statements):
        if isinstance(stmt, Write) and first is not None and _defined_in(program, stmt.var, first, i):
            ranges.append((first, last))
            first = last = None
        elif isinstance(stmt, KernelCall):
            first = i if first is None else first
            last = i
    if first is not None:
        ranges.append((first, last))
    return ranges


def _per_kernel_ranges(program: Program) -> list[tuple[int, int]]:
    return [(g[0], g[-1]) for g in program.groups() if isinstance(program.statements[g[0]], KernelCall)]


def place_sections(program: Program, variant: str = "treft") -> tuple[list[Section], list[Violation]]:
    """The sections of ``program`` for ``variant`` and the rules they break.

    ``"treft"`` takes the programmer's pragmas if the program has some, otherwise the largest sections the rules
    allow (for the NGB workflows the paper's "one large section"); ``"e1"`` the same sections with eager stream
    transfer (rule 4 applies); ``"e2"`` one section per kernel call (per parallel pattern). The rules are checked
    by :func:`check_sections`.

    Parameters
    ----------
    program : Program
        The main program; its ``pragmas`` (if any) are used by ``"treft"`` and ``"e1"``.
    variant : str
        ``"treft"``, ``"e1"`` (eager transfer) or ``"e2"`` (one section per kernel).

    Returns
    -------
    sections : list of Section
        Sections in program order.
    violations : list of Violation
        Violations of rules 1-4 make the program unsafe (an error can escape), rule 5 is advice about cost.

    Raises
    ------
    SpecError
        For an unknown variant.

    References
    ----------
    [TREFT15] Li Xin, Lin Yufei, Guo Xiaowei, "A triple modular eager redundancy fault-tolerant technique for
    distributed stream architecture", Computer Engineering & Science, 37(12): 2233–2241, 2015, DOI
    [10.3969/j.issn.1007-130X.2015.12.007](https://doi.org/10.3969/j.issn.1007-130X.2015.12.007). Definition 2 and
    the five placement rules of fault-tolerant sections.

    Examples
    --------
    >>> from vizcoll.treft.workflows import workflow
    >>> sections, violations = place_sections(workflow("HC", "A"))
    >>> len(sections), violations
    (1, [])
    >>> len(place_sections(workflow("HC", "A"), "e2")[0])
    18
    """
    if variant not in VARIANTS:
        raise SpecError(f"unknown variant {variant!r}; choose one of {', '.join(VARIANTS)}")
    if variant == "e2":
        ranges = _per_kernel_ranges(program)
    elif program.pragmas is not None:
        ranges = list(program.pragmas)
    else:
        ranges = _auto_ranges(program)
    sections = _make(program, ranges)
    return sections, check_sections(program, sections, eager=variant == "e1")


def _section_of(sections: list[Section], i: int) -> Section | None:
    return next((s for s in sections if s.first <= i <= s.last), None)


def _rule1(program: Program, sections: list[Section]) -> list[Violation]:
    out = []
    for i, stmt in enumerate(program.statements):
        if not isinstance(stmt, Write):
            continue
        home = _section_of(sections, program.producer[stmt.var])
        if home is None:
            out.append(
                Violation(
                    1,
                    f"statement {i} writes {stmt.var} back to the main program, but no section checks {stmt.var} first",
                    None,
                    i,
                )
            )
        elif home.first <= i <= home.last:
            out.append(
                Violation(
                    1,
                    f"statement {i} writes {stmt.var} inside section {home.index}, before its "
                    f"compare sync point: the main program could receive a wrong value",
                    home.index,
                    i,
                )
            )
    return out


def _rule2_3(program: Program, sections: list[Section]) -> list[Violation]:
    out = []
    for group in program.groups():
        stmt = program.statements[group[0]]
        if not isinstance(stmt, KernelCall):
            continue
        homes = {getattr(_section_of(sections, i), "index", None) for i in group}
        for i in group:
            if _section_of(sections, i) is None:
                name = program.statements[i].name
                out.append(
                    Violation(
                        2,
                        f"kernel call {name} (statement {i}) is outside every section: a soft error "
                        "in its output is never checked",
                        None,
                        i,
                    )
                )
        if len(group) > 1 and len(homes) > 1:
            out.append(
                Violation(
                    3,
                    f"the calls of parallel pattern {stmt.pattern} are split over sections "
                    f"{sorted(h for h in homes if h is not None)}{' and none' * (None in homes)}: "
                    "their real order is unknown, so they must be checked together",
                    None,
                    group[0],
                )
            )
    return out


def _rule4(program: Program, sections: list[Section]) -> list[Violation]:
    out = []
    for name, kernel in program.kernels.items():
        i = program.index[name]
        if _section_of(sections, i) is not None:
            continue
        sent = [v for v in kernel.outputs if program.readers[v]]
        if sent:
            out.append(
                Violation(
                    4,
                    f"{name}'s output {', '.join(sent)} is sent eagerly but no section checks it, so "
                    "a wrong value can never be re-sent",
                    None,
                    i,
                )
            )
    return out


def _mergeable(program: Program, a: Section, b: Section) -> bool:
    for i in range(a.first, b.last + 1):
        stmt = program.statements[i]
        if isinstance(stmt, Write) and _defined_in(program, stmt.var, a.first, i):
            return False
    return True


def _rule5(program: Program, sections: list[Section]) -> list[Violation]:
    out = []
    for a, b in zip(sections, sections[1:], strict=False):
        if _mergeable(program, a, b):
            saved = sum(program.sizes[v] for v in a.live if program.last_use[v] <= b.last)
            extra = f" and the check of {saved / 1e6:.1f} MB passed between them" if saved else ""
            out.append(
                Violation(
                    5,
                    f"sections {a.index} and {b.index} could be one section: no Write separates "
                    f"them; merging saves one OPRS/OPRFS round{extra}",
                    a.index,
                    b.first,
                )
            )
    return out


def check_sections(program: Program, sections: list[Section], eager: bool = False) -> list[Violation]:
    """The placement rules (1-5) that ``sections`` break for ``program``.

    1: a Write must not read data of a section before its compare sync point; 2: every kernel call lies in a
    section; 3: all calls of one parallel pattern lie in the same section; 4: with eager transfer, data sent out
    of a section is checked in the section that defined it; 5: neighboring sections that could be merged are
    reported (advice).

    Parameters
    ----------
    program : Program
        The main program.
    sections : list of Section
        The sections to check.
    eager : bool
        Eager stream transfer: enables rule 4.

    Returns
    -------
    list of Violation
        Rules 1-3 (and 4) first, then rule 5.

    Examples
    --------
    >>> from vizcoll.treft.workflows import workflow
    >>> program = workflow("HC", "A")
    >>> sorted({v.rule for v in check_sections(program, place_sections(program, "e2")[0])})
    [5]
    """
    out = _rule1(program, sections) + _rule2_3(program, sections)
    if eager:
        out += _rule4(program, sections)
    return out + _rule5(program, sections)
