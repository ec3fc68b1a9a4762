"""Slurm ``topology.conf``: the switch tree (topology/tree) or the blocks (topology/block) of a cluster.

The authority is Slurm's manual page *topology.conf(5)* (https://slurm.schedmd.com/topology.conf.html) with
the *Topology Guide* it points to (https://slurm.schedmd.com/topology.html); where both are silent, this reader
does what Slurm's own parser does (``src/common/parse_config.c``, ``src/plugins/topology/tree/switch_record.c``,
``src/plugins/topology/block/block_record.c``) and says so below.

**Lines.** "Any text following a "#" ... is treated as a comment through the end of that line", so a comment may
hold ``=``; as in Slurm's parser, ``\\#`` is a literal ``#``, a line ending in ``\\`` goes on on the next line and
``\\`` escapes the character after it. Blank lines, CRLF line ends and a missing final newline are fine.
"Parameter names are case insensitive" (``switchname=`` is ``SwitchName=``); values (names) are not. ``Key=value``
pairs are separated by blanks or TABs, blanks may surround ``=``, and a value may be double-quoted.

**topology/tree.** "each line defining a switch name and its children, either node names or switch names": a line
begins with ``SwitchName=`` and may add ``Switches=``, ``Nodes=`` and ``LinkSpeed=``, nothing else (Slurm:
"Parsing error at unrecognized key"); ``Nodes=``/``Switches=`` on a line without ``SwitchName=`` first is refused
too. ``LinkSpeed`` is ignored: "The units used are arbitrary and this information is currently not used". A switch
with both ``Nodes=`` and ``Switches=`` is refused (Slurm: "switch %s has both child switches and nodes"); one with
neither is kept as an isolated empty leaf switch (Slurm's "empty leaf switch"). ``SwitchName`` is one name, not a
hostlist, of at most 64 characters ("cannot be longer than 64 characters"), defined once ("Each switch should
have a unique name"; slurmctld stops with "Switch (%s) has already been defined"). A ``Switches=`` name that no
``SwitchName=`` defines, and a cycle (a switch its own ancestor), are refused (Slurm: "has invalid child",
"Switch configuration is not a tree"). A parent line may come before its children's lines.

*Several parents.* The Topology Guide's second example lists ``Switches=s[0-3]`` under each of ``s4`` to ``s7``,
so a switch may be the child of several parents: each parent gets its own link to it. *Several roots.* The Guide:
"it is legal to remove the line "SwitchName=s4 Switches=s[0-3]"" (leaf switches "that lack a common parent
switch"): no switch is invented to join them, and the fabric then has several components. *A host under two
leaf switches.* The manual asks that "All nodes in the network must be connected to at least one switch" and
slurmctld only warns ("Multiple leaf switches contain nodes"): the host keeps a link to each.

**topology/block.** "each line defining a block name and its children node names": ``BlockName=b1 Nodes=...``
becomes a switch named ``b1`` linked to its nodes (a block without ``Nodes=`` is refused, as Slurm does);
blocks are not joined by an invented switch either (Slurm's higher-level blocks are groups for its scheduler, not
hardware). ``BlockSizes=30,120`` stands on its own line, once, and is kept as ``meta["block_sizes"]``; as the
manual asks, "Successive BlockSizes must be a power of two larger than the prior values" and "Each block must
have at least the planning base block size count of nodes" (the first size). A file holds the lines of one
plugin: ``SwitchName=`` with ``BlockName=``/``BlockSizes=`` is refused. ``RingName=`` (topology/ring) and
``include`` lines are refused with a message that says so.

**Hostlists.** "Slurm's hostlist expression parser is used" for ``Nodes=`` and ``Switches=``: they are expanded
with python-hostlist (``node[001-032,040]``, ``rack[1-2]n[01-16]``, ``sw.1.[9-10]``); a name listed twice in one
value counts once (Slurm keeps node sets). Before expanding, :func:`vizcoll.hostlists.count` counts the names, so that
``n[0-999999999]`` is refused instead of filling the memory; more than ``model.MAX_NODES`` nodes or
``model.MAX_LINKS`` links are refused with the line that goes over.

**The fabric.** Nodes: every switch (or block) in file order, then every host in order of first appearance.
Links: one per (switch, listed host) and one per (parent, child switch), in file order; each node's ports are
numbered 1..d in that order (an isolated switch has one port). ``meta = {"format": "slurm"}`` (plus
``"block_sizes"``); no GUIDs, no descriptions.

>>> topo = read("SwitchName=s0 Nodes=tux[0-1]\\nSwitchName=s1 Switches=s0  # root\\n", "topology.conf")
>>> topo.names
['s0', 's1', 'tux0', 'tux1']
>>> [topo.link_label(row) for row in range(topo.n_links)]
['s0[1]-tux0[1]', 's0[2]-tux1[1]', 's1[1]-s0[3]']
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from itertools import pairwise

from vizcoll import hostlists
from vizcoll.errors import FileFormatError, TopologyError
from vizcoll.topology import model
from vizcoll.topology.model import ENDPOINT, SWITCH, Topology

__all__ = ["read", "rules_out"]

MAX_SWITCH_NAME = 64
_PAIR = re.compile(r'\s*([A-Za-z0-9_.]+)\s*=\s*(?:"([^"]*)"|(\S+))(?=\s|$)')  # Slurm's key=value pattern
_MISSING_VALUE = re.compile(r"[A-Za-z0-9_.]+=")
_INCLUDE = re.compile(r"\s*include\s", re.I)
_LINE_KEYS = {
    "switchname": ("switches", "nodes", "linkspeed"),
    "blockname": ("nodes",),
    "blocksizes": (),
    "ringname": ("nodes",),
}
_WRITTEN = {"switches": "Switches=", "nodes": "Nodes=", "linkspeed": "LinkSpeed="}


# ====================================================================== lines
def _cut_comment(text: str) -> str:
    """``text`` up to its first ``#`` that no (odd run of) backslash escapes."""
    if "\\" not in text:
        return text.split("#", 1)[0]
    slashes = 0
    for i, char in enumerate(text):
        if char == "#" and slashes % 2 == 0:
            return text[:i]
        slashes = slashes + 1 if char == "\\" else 0
    return text


def _unescape(text: str) -> str:
    """Slurm drops each ``\\`` and keeps the character after it (``\\\\`` is one backslash)."""
    return re.sub(r"\\(.?)", r"\1", text, flags=re.S) if "\\" in text else text


def _logical_lines(lines: Iterable[str]) -> Iterator[tuple[int, str]]:
    """(1-based number of its first line, text) of each line as Slurm reads it.

    Comments are cut, a line ending in an odd run of backslashes is joined to the next one, escapes are removed.

    Examples
    --------
    >>> list(_logical_lines(["SwitchName=s0 \\\\", "  Nodes=n[1-2]  # rack 1\\r", "", "# all=comment"]))
    [(1, 'SwitchName=s0   Nodes=n[1-2]  '), (3, ''), (4, '')]
    """
    start, held = 0, ""
    for number, raw in enumerate(lines, 1):
        text = _cut_comment(raw.removeprefix("\ufeff") if number == 1 else raw).rstrip("\r")
        start = start if held else number
        body = text.rstrip()
        if (len(body) - len(body.rstrip("\\"))) % 2:
            held += body[:-1]
            continue
        yield start, _unescape(held + text)
        held = ""
    if held:
        yield start, _unescape(held)


def _first_key(text: str) -> str | None:
    """The lower-cased key of the first ``key=value`` pair that begins ``text``, None when it does not."""
    match = _PAIR.match(text)
    return match.group(1).lower() if match else None


def rules_out(lines: list[str]) -> tuple[int, str] | None:
    """Why ``lines`` (a text split on ``"\\n"``) is no Slurm topology.conf, or None when it is one.

    A topology.conf line is blank, a comment, an ``include`` line, or begins with ``SwitchName=``, ``BlockName=``,
    ``BlockSizes=`` or ``RingName=`` (a ring file is recognised so that :func:`read` can say it is not read).

    Parameters
    ----------
    lines : list of str
        The text's lines.

    Returns
    -------
    tuple of (int, str) or None
        None for a topology.conf; else the 1-based number of the first line that rules it out and why, or
        ``(0, "no SwitchName= or BlockName= line")`` when every line fits but none defines a switch or block.

    Examples
    --------
    >>> rules_out(["# rack 1", "SwitchName=s0 Nodes=n[1-4]"]) is None
    True
    >>> rules_out(["SwitchName=s0 Nodes=n1", "", "foo bar"])
    (3, "'foo bar' is no SwitchName=/BlockName=/BlockSizes= line")
    >>> rules_out(["# nothing here"])
    (0, 'no SwitchName= or BlockName= line')
    """
    defines = False
    for number, text in _logical_lines(lines):
        if not text.strip() or _INCLUDE.match(text):
            continue
        key = _first_key(text)
        if key not in _LINE_KEYS:
            return number, f"{text.strip()[:40]!r} is no SwitchName=/BlockName=/BlockSizes= line"
        defines = defines or key != "blocksizes"
    return None if defines else (0, "no SwitchName= or BlockName= line")


# ====================================================================== reading
@dataclass
class _Link:
    upper: str  # the switch or block whose line lists the link
    lower: str  # a host, or a child switch
    line: int
    to_switch: bool


@dataclass
class _ConfReader:
    """Line-by-line reader of a topology.conf: switches (or blocks), hosts and links as the file gives them.

    :meth:`topology` then checks what needs the whole file (children defined, no cycle, block sizes) and builds.
    """

    filename: str
    plugin: str | None = None
    plugin_line: int = 0
    switches: dict[str, int] = field(default_factory=dict)  # name -> line that defines it
    hosts: dict[str, tuple[str, int]] = field(default_factory=dict)  # name -> (switch, line) that first list it
    block_hosts: dict[str, int] = field(default_factory=dict)  # block name -> how many hosts it lists
    links: list[_Link] = field(default_factory=list)
    block_sizes: list[int] | None = None
    block_sizes_line: int = 0
    warnings: list[str] = field(default_factory=list)  # "line N: ..." of what is odd but kept

    def error(self, message: str, line: int | None) -> FileFormatError:
        return FileFormatError(message, line=line, source=self.filename)

    # ------------------------------------------------------------ lines
    def feed(self, line: int, text: str) -> None:
        """Read one logical line (numbered by its first physical line)."""
        if not text.strip():
            return
        if _INCLUDE.match(text):
            raise self.error("'include' lines are not followed: put the included file's lines in this file", line)
        pairs = self.pairs(line, text)
        key, written, _ = pairs[0]
        if key == "blocksizes":
            self.sizes_line(line, pairs)
        elif key in ("switchname", "blockname"):
            self.switch_line(line, pairs)
        elif key == "ringname":
            raise self.error(
                "RingName= lines (topology/ring) are not read: vizcoll reads the switches of "
                "topology/tree and the blocks of topology/block",
                line,
            )
        elif key in _WRITTEN:
            raise self.error(
                f"{written}= without SwitchName= or BlockName= (a line begins with SwitchName=, "
                "BlockName= or BlockSizes=)",
                line,
            )
        else:
            raise self.error(
                f"unknown key {written!r}: a line begins with SwitchName=, BlockName= or BlockSizes=", line
            )

    def pairs(self, line: int, text: str) -> list[tuple[str, str, str]]:
        """The ``(lower-case key, key as written, value)`` pairs of a line, in order."""
        pairs, at = [], 0
        while match := _PAIR.match(text, at):
            quoted, plain = match.group(2), match.group(3)
            if plain is not None and _MISSING_VALUE.match(plain):
                raise self.error(f"{match.group(1)}= has no value", line)
            pairs.append((match.group(1).lower(), match.group(1), plain if quoted is None else quoted))
            at = match.end()
        if text[at:].strip():
            raise self.error(f"unexpected text {text[at:].strip()[:40]!r} (expected Key=value pairs)", line)
        return pairs

    def use_plugin(self, plugin: str, line: int, written: str) -> None:
        """Note which plugin's lines the file holds; refuse a line of the other one."""
        if self.plugin is None:
            self.plugin, self.plugin_line = plugin, line
        elif self.plugin != plugin:
            raise self.error(
                f"a {written}= line in a topology/{self.plugin} file (line {self.plugin_line}): "
                "a topology.conf holds the lines of one topology plugin",
                line,
            )

    def sizes_line(self, line: int, pairs: list[tuple[str, str, str]]) -> None:
        """``BlockSizes=8,16``: the planning base block size and the larger ones, once, on a line of its own."""
        self.use_plugin("block", line, "BlockSizes")
        if len(pairs) > 1:
            raise self.error(f"unknown key {pairs[1][1]!r} on a BlockSizes= line (BlockSizes= stands alone)", line)
        if self.block_sizes is not None:
            raise self.error(f"BlockSizes= is given twice (lines {self.block_sizes_line} and {line})", line)
        value = pairs[0][2]
        sizes = [int(v) for v in value.split(",")] if re.fullmatch(r"[0-9]{1,9}(,[0-9]{1,9})*", value) else [0]
        if 0 in sizes:
            raise self.error(f"BlockSizes= takes positive whole numbers separated by commas, got {value[:40]!r}", line)
        for prior, size in pairwise(sizes):
            ratio = size // prior
            if size <= prior or size % prior or ratio & (ratio - 1):
                raise self.error(
                    f"BlockSizes={value}: each size must be the one before it times a power of two "
                    f"(2, 4, 8, ...), but {size} follows {prior}",
                    line,
                )
        self.block_sizes, self.block_sizes_line = sizes, line

    def switch_line(self, line: int, pairs: list[tuple[str, str, str]]) -> None:
        """``SwitchName=s Switches=...|Nodes=... [LinkSpeed=...]`` or ``BlockName=b Nodes=...``."""
        key, written, name = pairs[0]
        self.use_plugin("tree" if key == "switchname" else "block", line, written)
        values = self.line_values(line, pairs)
        what = "switch" if key == "switchname" else "block"
        self.check_name(line, name, written, what)
        if "nodes" in values and "switches" in values:
            raise self.error(f"switch {name!r} has both Nodes= and Switches= (Slurm refuses a switch with both)", line)
        if what == "block" and "nodes" not in values:
            raise self.error(f"block {name!r} has no Nodes=", line)
        self.switches[name] = line
        if len(self.switches) + len(self.hosts) > model.MAX_NODES:
            raise self.error(f"more than the limit of {model.MAX_NODES:,} nodes", line)
        for child in self.expand(line, values.get("switches", ""), "Switches="):
            self.add_link(_Link(name, child, line, to_switch=True))
        hosts = self.expand(line, values.get("nodes", ""), "Nodes=")
        self.add_hosts(line, name, hosts)
        if what == "block":
            self.block_hosts[name] = len(hosts)

    def line_values(self, line: int, pairs: list[tuple[str, str, str]]) -> dict[str, str]:
        """The values of the keys after ``SwitchName=``/``BlockName=``, each key known and given once."""
        allowed, values = _LINE_KEYS[pairs[0][0]], {}
        for key, written, value in pairs[1:]:
            if key not in allowed:
                takes = ", ".join(_WRITTEN[k] for k in allowed)
                raise self.error(f"unknown key {written!r} on a {pairs[0][1]}= line (it takes {takes})", line)
            if key in values:
                raise self.error(f"{written}= is given twice on the line", line)
            values[key] = value
        return values

    def check_name(self, line: int, name: str, written: str, what: str) -> None:
        if not name:
            raise self.error(f"{written}= is empty", line)
        if set("[],") & set(name):
            raise self.error(f"{written}= takes one name, not a hostlist: {name[:40]!r}", line)
        if what == "switch" and len(name) > MAX_SWITCH_NAME:
            raise self.error(f"switch name {name[:40]!r}... is longer than {MAX_SWITCH_NAME} characters", line)
        if name in self.switches:
            raise self.error(f"{what} {name!r} is defined twice (lines {self.switches[name]} and {line})", line)

    def expand(self, line: int, value: str, written: str) -> list[str]:
        """The names of a hostlist, counted before they are expanded; an empty value names nothing."""
        if not value:
            return []
        count = hostlists.count(value)
        if count > model.MAX_NODES:
            raise self.error(
                f"{written}{value[:40]} names {count:,} nodes, more than the limit of {model.MAX_NODES:,}", line
            )
        try:
            names = hostlists.expand(value, allow_duplicates=False)
        except hostlists.BadHostlist as exc:
            raise self.error(f"bad hostlist {written}{value[:40]}: {exc}", line) from None
        if not names:
            raise self.error(f"{written}{value[:40]} names nothing", line)
        if count > len(names):
            twice = [name for name, n in Counter(hostlists.expand(value)).items() if n > 1]
            listed = ", ".join(twice[:5]) + (f" and {len(twice) - 5:,} more" if len(twice) > 5 else "")
            self.warnings.append(f"line {line}: {written} lists {listed} more than once (kept once)")
        return names

    def add_hosts(self, line: int, switch: str, hosts: list[str]) -> None:
        for host in hosts:
            if host in self.hosts:
                first, at = self.hosts[host]
                self.warnings.append(
                    f"line {line}: host {host} is under {switch} and under {first} (line {at}): it keeps a link to each"
                )
            else:
                self.hosts[host] = switch, line
                if len(self.switches) + len(self.hosts) > model.MAX_NODES:
                    raise self.error(f"more than the limit of {model.MAX_NODES:,} nodes", line)
            self.add_link(_Link(switch, host, line, to_switch=False))

    def add_link(self, link: _Link) -> None:
        self.links.append(link)
        if len(self.links) > model.MAX_LINKS:
            raise self.error(f"more than the limit of {model.MAX_LINKS:,} links", link.line)

    # ------------------------------------------------------------ whole file
    def check(self) -> None:
        """What needs the whole file: a switch at all, names, children defined, no cycle, block sizes."""
        if not self.switches:
            raise self.error("no SwitchName= or BlockName= line", None)
        for host, (_, line) in self.hosts.items():
            if host in self.switches:
                raise self.error(
                    f"{host!r} is a switch (line {self.switches[host]}) and a host (line {line})",
                    max(line, self.switches[host]),
                )
        for link in self.links:
            if link.to_switch and link.lower not in self.switches:
                raise self.error(f"Switches= names {link.lower!r}, which no SwitchName= line defines", link.line)
        self.check_cycles()
        self.check_block_sizes()

    def check_cycles(self) -> None:
        """Refuse a switch that is its own ancestor (depth-first search over the Switches= links)."""
        children: dict[str, list[_Link]] = {}
        for link in self.links:
            if link.to_switch:
                children.setdefault(link.upper, []).append(link)
        state: dict[str, int] = {}  # 1 = on the current path, 2 = done
        for root in self.switches:
            if root in state:
                continue
            path, stack = [root], [iter(children.get(root, ()))]
            state[root] = 1
            while stack:
                link = next(stack[-1], None)
                if link is None:
                    state[path.pop()] = 2
                    stack.pop()
                elif state.get(link.lower) == 1:
                    cycle = " -> ".join(path[path.index(link.lower) :] + [link.lower])
                    raise self.error(
                        f"the switches form a cycle, {cycle} (a switch cannot be its own ancestor)", link.line
                    )
                elif link.lower not in state:
                    state[link.lower] = 1
                    path.append(link.lower)
                    stack.append(iter(children.get(link.lower, ())))

    def check_block_sizes(self) -> None:
        if not self.block_sizes:
            return
        base = self.block_sizes[0]
        for block, count in self.block_hosts.items():
            if count < base:
                raise self.error(
                    f"block {block!r} has {count} nodes, fewer than the planning base block size "
                    f"{base} (BlockSizes= on line {self.block_sizes_line})",
                    self.switches[block],
                )

    def topology(self) -> Topology:
        """The fabric of everything read, validated."""
        self.check()
        names = [*self.switches, *self.hosts]
        index = {name: i for i, name in enumerate(names)}
        degree = [0] * len(names)
        rows = []
        for link in self.links:
            a, b = index[link.upper], index[link.lower]
            degree[a] += 1
            degree[b] += 1
            rows.append((a, degree[a], b, degree[b]))
        kinds = [SWITCH] * len(self.switches) + [ENDPOINT] * len(self.hosts)
        meta: dict = {"format": "slurm"}
        if self.block_sizes:
            meta["block_sizes"] = list(self.block_sizes)
        if self.warnings:
            meta["warnings"] = list(self.warnings)
        try:
            return Topology.from_arrays(names, kinds, [max(1, d) for d in degree], rows, meta=meta)
        except TopologyError as exc:
            raise self.error(str(exc), None) from None


def read(text: str, filename: str) -> Topology:
    """The fabric of a topology.conf (see the module docstring for what the reader keeps and refuses).

    Parameters
    ----------
    text : str
        The file's text.
    filename : str
        Its name, for error messages.

    Returns
    -------
    Topology
        Switches (or blocks) then hosts; one link per listed child; ``meta["format"] == "slurm"``.

    Raises
    ------
    FileFormatError
        When the text is no valid topology.conf; the message names the line.

    Examples
    --------
    >>> topo = read("BlockName=b1 Nodes=n[1-2]\\nBlockName=b2 Nodes=n[3-4]\\nBlockSizes=2,4", "blocks.conf")
    >>> topo.names, topo.n_links, topo.meta
    (['b1', 'b2', 'n1', 'n2', 'n3', 'n4'], 4, {'format': 'slurm', 'block_sizes': [2, 4]})
    """
    reader = _ConfReader(filename)
    for line, logical in _logical_lines(text.split("\n")):
        reader.feed(line, logical)
    return reader.topology()
