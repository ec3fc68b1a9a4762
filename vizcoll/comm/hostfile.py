"""MPI host lists: Open MPI hostfiles, MPICH/Hydra machinefiles, PBS nodefiles and Slurm hostlists.

=================================  ===================================================
line                               hosts and slots
=================================  ===================================================
``node01 slots=4 max_slots=8``     Open MPI: node01 with 4 slots
``node01:4 binding=user:0,1``      MPICH/Hydra: node01 with 4 slots
``node01``                         one host with ``ppn`` slots (default 1)
``node01,node02:2``                node01 with ``ppn`` slots, node02 with 2
``node[01-16] slots=2``            Slurm hostlist: node01 ... node16, 2 slots each
``10.1.2.3:4``, ``[fe80::1]:4``    IP addresses (an IPv6 count needs the brackets)
``# text``                         a comment, at the start of a line or after a host
=================================  ===================================================

A host named on several lines (a PBS nodefile names a host once per core) gets the
sum of their slots, as Hydra's ``HYDU_add_to_node_list`` adds the counts of repeated
lines (``core_count += num_procs``); the entries come in the order of first appearance.

What the manuals (and the parsers behind them) say, and what this reader does
-------------------------------------------------------------------------------
- Open MPI / PRRTE, "Hostfiles" (docs.prrte.org, ``hosts/hostfiles``): "one node
  name on each line, optionally including a designated number of slots";
  "Blank lines and lines beginning with a ``#`` are ignored"; without ``slots``
  a host gets the number of its CPUs, which only ``ppn`` can stand for here.
  PRRTE's lexer (``src/util/hostfile/hostfile_lex.l``) also reads ``count=`` and
  ``cpu=`` as the slot count, eight spellings of the ceiling (``max_slots``,
  ``max-slots``, ``slots_max``, ``cpu_max``, ``max_count``, ...), ``username=``
  and ``port=``; older ORTE read ``boards=``, ``sockets=`` and ``cores=``. All are
  accepted; only the slot count counts, except that a line with a ceiling and no
  count gets the ceiling, as ``hostfile.c`` does (``got_max && !SLOTS_GIVEN``).
  Any other ``key=`` is refused, as PRRTE refuses it. ``#`` starts a comment
  anywhere on a line (the lexer's ``#.*\\n`` rule); blanks around ``=`` are allowed.
- MPICH/Hydra (``Using_the_Hydra_Process_Manager``, ``HYDU_parse_hostfile``):
  ``donner:2``, "Comments in the host file start with a ``#`` character", and after
  the host only ``binding=`` and ``user=`` (others: "token ... not supported");
  MPICH2's older mpd also wrote ``ifhn=``. These three are accepted and ignored.
- Slurm hostlists (``slurm_hostlist_create(3)``: "linux[1-3,6]" is linux1, linux2,
  linux3 and linux6) are expanded by python-hostlist (``hostlist.expand_hostlist``),
  with duplicates kept so that a name written twice counts twice. Commas outside
  brackets separate hosts. A line starting with ``[`` must be a bracketed IPv6
  address; otherwise it is refused as JSON-like.
- IPv6: PRRTE's lexer has a rule for bare IPv6 addresses, so ``fe80::1 slots=2``
  is read; Hydra cuts a host at its first ``:``, so a count after an IPv6 address
  needs brackets (``[fe80::1]:4``). A bare address never carries a count.
- Names are kept as written: ``node01`` and ``node001`` differ, and so do
  ``node01`` and ``node01.cluster.example.org`` (another layer maps names to the
  fabric). Repeats are matched ignoring case, because DNS names are case
  insensitive (RFC 4343: "Domain Name System (DNS) names are 'case insensitive'"),
  and the first spelling is kept (RFC 4343, section 4.1, preserves case on output).
  ``user@host`` reads as ``host`` (Open MPI's ``hostfile.c`` splits it at ``@``).
- Differences from Open MPI, by choice: a host given ``slots=`` on two lines gets
  the sum (Open MPI refuses it); ``^host`` (Open MPI's exclusion) and ``+n0``
  (relative nodes) are refused, and so are the ``//`` and ``/* */`` comments
  PRRTE's lexer reads but its manual never mentions; a bare number or a second
  host after a host (``node01 4``, ``node01 node02``) is refused, since Open MPI
  would ignore it and Hydra would stop. Host names are ASCII (internationalised
  names are written ``xn--...`` in DNS) of at most 253 characters (RFC 1035).

Limits: :data:`MAX_HOSTFILE_BYTES` of text, :data:`MAX_HOSTS` distinct hosts and
:data:`MAX_PROCESSES` slots in all; a hostlist is counted before it is expanded,
so ``n[0-999999999]`` is refused without building it.
"""

from __future__ import annotations

import io
import ipaddress
import operator
import re
from collections.abc import Iterator
from dataclasses import dataclass

from vizcoll import hostlists
from vizcoll.errors import SpecError

__all__ = ["HostEntry", "parse_hostfile", "looks_like_hostfile", "MAX_HOSTFILE_BYTES"]

MAX_HOSTFILE_BYTES = 20 * 1024 * 1024
"""Largest host list read, in bytes of UTF-8."""
MAX_HOSTS = 200_000
"""Most distinct hosts in one host list (and in one hostlist expression)."""
MAX_PROCESSES = 1_000_000
"""Most slots in all, and the largest slot count on one line."""
MAX_NAME_LENGTH = 253
"""Longest host name (RFC 1035: 255 octets on the wire, 253 characters written)."""

COUNT_KEYS = frozenset({"slots", "count", "cpu"})
CEILING_KEYS = frozenset(
    {
        f"{a}{sep}{b}"
        for a, b in (
            ("max", "slots"),
            ("slots", "max"),
            ("max", "cpu"),
            ("cpu", "max"),
            ("max", "count"),
            ("count", "max"),
        )
        for sep in "_-"
    }
)
IGNORED_KEYS = frozenset(
    {
        "username",
        "user-name",
        "user_name",
        "port",
        "boards",
        "sockets",
        "sockets_per_board",
        "sockets-per-board",
        "cores",
        "cores_per_socket",
        "cores-per-socket",  # Open MPI
        "user",
        "binding",
        "ifhn",
    }
)  # Hydra, mpd

_BLANKS = re.compile(r"[ \t\f\v]+")
_BLANK_CHARS = " \t\f\v"
_NOT_HOST_CHAR = re.compile(r"[^A-Za-z0-9._\-\[\],:@]")
_PART = re.compile(r"(?:[^,\[\]]+|\[[^\[\]]*\])+")
_BRACKET_GROUP = re.compile(r"\[([^\[\]]*)\]")
_BRACKETED_V6 = re.compile(r"\[([0-9A-Fa-f:.]*)\](?::(.*))?")
_HOST_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._\-]*")
_USER_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._\-]*")
_INTEGER = re.compile(r"-?[0-9]+")
_FIRST_TOKEN = re.compile(r"[^ \t\f\v\r\n#,]*")


@dataclass(frozen=True)
class HostEntry:
    """One host of a host list.

    Attributes
    ----------
    host : str
        As written (FQDN, short name or IP address), surrounding blanks stripped.
    slots : int
        Processes on that host, summed over every line naming it.
    line : int
        1-based line of its first appearance.
    """

    host: str
    slots: int
    line: int


class _Tally:
    """Hosts met so far (keyed by lower-cased name) and the slots given in all."""

    def __init__(self) -> None:
        self.hosts: dict[str, list] = {}
        self.processes = 0

    def make_room(self, names: int, slots: int, what: str, where: str) -> None:
        """Refuse ``names`` more names of ``slots`` slots each if they break a limit."""
        if names > MAX_HOSTS:
            raise SpecError(f"{where}: {what} names {names:,} hosts, more than the limit of {MAX_HOSTS:,}")
        if self.processes + names * slots > MAX_PROCESSES:
            raise SpecError(f"{where}: more than {MAX_PROCESSES:,} processes in all (the limit)")

    def add(self, host: str, slots: int, line: int, where: str) -> None:
        entry = self.hosts.get(host.lower())
        if entry is not None:
            entry[1] += slots
        elif len(self.hosts) >= MAX_HOSTS:
            raise SpecError(f"{where}: more than {MAX_HOSTS:,} hosts (the limit)")
        else:
            self.hosts[host.lower()] = [host, slots, line]
        self.processes += slots


def parse_hostfile(text: str | bytes, ppn: int = 1, source: str = "hostfile") -> list[HostEntry]:
    """Hosts in order of first appearance with their slots.

    Parameters
    ----------
    text : str or bytes
        An Open MPI hostfile, an MPICH/Hydra machinefile, a plain or PBS host list
        or Slurm hostlists, in any mix (see the module docstring); bytes are read as UTF-8.
    ppn : int
        Slots of a host written without a count (``node01``, not ``node01:2``).
    source : str
        The name errors give the text (a path, say).

    Returns
    -------
    list of HostEntry

    Raises
    ------
    SpecError
        ``"{source}, line {n}: ..."`` naming what is wrong on that line, or
        ``"{source}: ..."`` for text that is too large, not UTF-8 or names no host.

    Examples
    --------
    >>> parse_hostfile("node01 slots=4  # Open MPI\\nnode02:2\\nnode01\\n")
    [HostEntry(host='node01', slots=5, line=1), HostEntry(host='node02', slots=2, line=2)]
    >>> [(e.host, e.slots) for e in parse_hostfile("gpu[03-04],login1", ppn=8)]
    [('gpu03', 8), ('gpu04', 8), ('login1', 8)]
    """
    ppn = _checked_ppn(ppn)
    text = _as_text(text, source)
    tally = _Tally()
    for number, line in _numbered_lines(text):
        body = line.split("#", 1)[0].strip(_BLANK_CHARS)
        if body:
            _read_line(body, line, number, f"{source}, line {number}", ppn, tally)
    if not tally.hosts:
        raise SpecError(f"{source}: no host in it (the text is empty or holds only comments)")
    return [HostEntry(host, slots, line) for host, slots, line in tally.hosts.values()]


def looks_like_hostfile(text: str | bytes) -> bool:
    """True when the text reads as a host list (used to tell it from a communicators JSON file).

    JSON starts with ``{``, ``[`` or ``"`` and never with ``#``; a host list starts
    with a comment, a host name or IPv4 address (a letter or a digit), a bracketed
    IPv6 address (``[fe80::1]:4``, which JSON never is) or a bare one (``::1``).
    Blank text is neither. Only the start is read: a host list with an error further
    on still looks like one, so that :func:`parse_hostfile` names the error.

    Examples
    --------
    >>> looks_like_hostfile("node01 slots=4\\n"), looks_like_hostfile("node[01-16]")
    (True, True)
    >>> looks_like_hostfile('{"communicators": [["h0", "h1"]]}'), looks_like_hostfile("[[0, 1]]")
    (False, False)
    """
    if isinstance(text, bytes | bytearray):
        text = bytes(text).removeprefix(b"\xef\xbb\xbf").lstrip(b" \t\f\v\r\n")[:1024].decode("utf-8", "replace")
    if not isinstance(text, str):
        return False
    body = text.removeprefix("\ufeff").lstrip(_BLANK_CHARS + "\r\n")
    if not body:
        return False
    if body[0] == "[":
        return _starts_with_bracketed_ipv6(body)
    if body[0] == ":":  # a bare IPv6 address such as ::1
        return _is_ipv6(_FIRST_TOKEN.match(body).group())
    return body[0] == "#" or (body[0].isascii() and body[0].isalnum())


def _checked_ppn(ppn: int) -> int:
    try:
        value = operator.index(ppn)
    except TypeError:
        value = 0
    if not 1 <= value <= MAX_PROCESSES:
        raise SpecError(f"ppn must be a whole number from 1 to {MAX_PROCESSES:,}, got {ppn!r}")
    return value


def _as_text(text: str | bytes, source: str) -> str:
    """The text as ``str`` without a byte-order mark, refusing what is too large or not UTF-8."""
    too_large = SpecError(f"{source}: the text is larger than the limit of {MAX_HOSTFILE_BYTES:,} bytes")
    if isinstance(text, bytes | bytearray):
        if len(text) > MAX_HOSTFILE_BYTES:
            raise too_large
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError:
            raise SpecError(f"{source}: not UTF-8 text") from None
    elif not isinstance(text, str):
        raise SpecError(f"{source}: expected text, got {type(text).__name__}")
    elif len(text) > MAX_HOSTFILE_BYTES or len(text.encode("utf-8", "surrogatepass")) > MAX_HOSTFILE_BYTES:
        raise too_large
    return text.removeprefix("\ufeff")


def _numbered_lines(text: str) -> Iterator[tuple[int, str]]:
    """``(1-based number, line)`` split at LF only (as editors number lines), a CR before it dropped."""
    for number, line in enumerate(io.StringIO(text, newline="\n"), 1):
        yield number, line.removesuffix("\n").removesuffix("\r")


def _quote(text: str, width: int = 40) -> str:
    """``repr`` of ``text`` without surrounding blanks, cut to ``width`` characters."""
    text = text.strip(_BLANK_CHARS)
    return repr(text if len(text) <= width else text[:width] + "...")


def _starts_with_bracketed_ipv6(text: str) -> bool:
    match = _BRACKETED_V6.match(text)
    return match is not None and _is_ipv6(match.group(1))


def _is_ipv6(text: str) -> bool:
    try:
        ipaddress.IPv6Address(text)
    except ValueError:
        return False
    return True


def _read_line(body: str, line: str, number: int, where: str, ppn: int, tally: _Tally) -> None:
    """Add to ``tally`` the hosts of one line (``body``: the line without its comment and outer blanks)."""
    if body[0] in '{"' or (body[0] == "[" and not _starts_with_bracketed_ipv6(body)):
        raise SpecError(f"{where}: {_quote(line)} starts with {body[0]!r} like JSON; a host list starts with a host")
    hosts, *options = _glued(_BLANKS.split(body))
    _check_characters(hosts, line, where)
    line_count = _line_count(options, where)
    for part in _PART.finditer(hosts):
        name, count, is_address = _name_and_count(part.group(), where)
        if count is not None and line_count is not None:
            raise SpecError(f"{where}: {_quote(part.group())} has a count and the line has slots=; give one")
        slots = count or line_count or ppn
        if is_address or "[" not in name:
            tally.make_room(1, slots, repr(name), where)
            tally.add(name, slots, number, where)
        else:
            for host in _expand(name, slots, where, tally):
                tally.add(host, slots, number, where)


def _glued(tokens: list[str]) -> list[str]:
    """Blank-separated tokens with blanks around ``=`` and ``,`` dropped (``slots = 4``, ``node01, node02``)."""
    out: list[str] = []
    for token in tokens:
        if out and (token[0] in ",=" or out[-1][-1] in ",="):
            out[-1] += token
        else:
            out.append(token)
    return out


def _line_count(options: list[str], where: str) -> int | None:
    """The slot count the ``key=value`` options after the host give (Open MPI), or None."""
    count = ceiling = None
    for option in options:
        key, equals, value = option.partition("=")
        name = key.lower()
        if not equals:
            hint = "write node01:4 or node01 slots=4" if option.isdigit() else "join hosts with commas"
            raise SpecError(f"{where}: unexpected {_quote(option)} after the host; {hint}")
        if name in COUNT_KEYS:
            if count is not None:
                raise SpecError(f"{where}: the slot count is given twice ({key}=)")
            count = _count(value, f"{key}={value[:20]}", where)
        elif name in CEILING_KEYS:
            ceiling = _count(value, f"{key}={value[:20]}", where)
        elif name not in IGNORED_KEYS:
            raise SpecError(
                f"{where}: unknown key {_quote(key)}; a host takes slots=N, max_slots=N or Open MPI's "
                "count=, cpu=, username=, port=; Hydra's binding=, user=; mpd's ifhn="
            )
    if count is not None and ceiling is not None and ceiling < count:
        raise SpecError(f"{where}: the ceiling {ceiling} (max_slots) is below the slot count {count}")
    return count if count is not None else ceiling


def _count(value: str, label: str, where: str) -> int:
    """A slot count: a whole number from 1 to MAX_PROCESSES (``label`` names it in errors)."""
    if not _INTEGER.fullmatch(value):
        raise SpecError(f"{where}: {label} is not a whole number of slots")
    digits = value.lstrip("-").lstrip("0")
    if value.startswith("-") or not digits:
        raise SpecError(f"{where}: {label} must be at least 1")
    if len(digits) > len(str(MAX_PROCESSES)) or int(digits) > MAX_PROCESSES:
        raise SpecError(f"{where}: {label} is absurd (more than {MAX_PROCESSES:,} slots)")
    return int(digits)


def _check_characters(hosts: str, line: str, where: str) -> None:
    bad = _NOT_HOST_CHAR.search(hosts)
    if bad and hosts.startswith("^"):
        raise SpecError(f"{where}: {_quote(line)} excludes a host (Open MPI's ^); list only the hosts to use")
    if bad:
        raise SpecError(f"{where}: {_quote(line)} holds {bad.group()!r}, which no host name has")
    rest = _BRACKET_GROUP.sub("", hosts)
    if "[" in rest or "]" in rest:
        raise SpecError(f"{where}: {_quote(line)} has unbalanced or nested brackets")


def _name_and_count(part: str, where: str) -> tuple[str, int | None, bool]:
    """``(name or hostlist, count after ':' or None, whether it is an IPv6 address)`` of one comma-separated part."""
    if "@" in part:
        user, _, part = part.partition("@")
        if not _USER_NAME.fullmatch(user) or "@" in part:
            raise SpecError(f"{where}: {_quote(user + '@' + part)} is not user@host")
    if part.startswith("["):
        match = _BRACKETED_V6.fullmatch(part)
        if match is None or not _is_ipv6(match.group(1)):
            raise SpecError(f"{where}: {_quote(part)} is not a bracketed IPv6 address like [fe80::1]:4")
        count = None if match.group(2) is None else _count(match.group(2), f"the count in {_quote(part)}", where)
        return match.group(1), count, True
    if "[" not in part and part.count(":") > 1:
        if not _is_ipv6(part):
            raise SpecError(f"{where}: {_quote(part)} is neither host:count nor an IPv6 address ([address]:count)")
        return part, None, True
    tail_start = part.rfind("]") + 1
    name, colon, count_text = part[tail_start:].partition(":")
    name = part[:tail_start] + name
    if ":" in count_text:
        raise SpecError(f"{where}: {_quote(part)} has more than one ':'")
    if not _HOST_NAME.fullmatch(_BRACKET_GROUP.sub("", name)):
        raise SpecError(
            f"{where}: {_quote(name)} is not a host name (letters, digits, '-', '_' and '.', "
            "starting with a letter or a digit)"
        )
    if "[" not in name and len(name) > MAX_NAME_LENGTH:
        raise SpecError(f"{where}: {_quote(name)} is longer than a host name can be ({MAX_NAME_LENGTH})")
    return name, (_count(count_text, f"the count in {_quote(part)}", where) if colon else None), False


def _expand(expression: str, slots: int, where: str, tally: _Tally) -> list[str]:
    """The names of a Slurm hostlist (no top-level comma), after checking its size against the limits."""
    if expression.count("[") > MAX_NAME_LENGTH:  # each bracket group adds a character at least
        raise SpecError(f"{where}: {_quote(expression, 60)} makes names over {MAX_NAME_LENGTH} characters")
    names = hostlists.count(expression)
    if names >= hostlists.ASTRONOMICAL:
        raise SpecError(f"{where}: {_quote(expression, 60)} expands to an astronomical number of hosts")
    tally.make_room(names, slots, _quote(expression, 60), where)
    try:
        expanded = hostlists.expand(expression)
    except hostlists.BadHostlist as exc:
        raise SpecError(f"{where}: bad hostlist {_quote(expression, 60)}: {exc}") from None
    if max(map(len, expanded), default=0) > MAX_NAME_LENGTH:
        raise SpecError(f"{where}: {_quote(expression, 60)} makes names over {MAX_NAME_LENGTH} characters")
    return expanded
