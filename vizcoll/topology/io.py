"""Reading and writing topology files: the public face of :mod:`vizcoll.topology.formats` (its registry).

Formats read (:data:`vizcoll.topology.formats.registry.REGISTRY`, recognised by content, not by a file's name:
only a registered format that has no content test is read by its extension):

``json``
    :meth:`Topology.to_dict` as JSON (schema ``vizcoll.topology/1``): lossless.
    A hand-written node-link JSON (a ``nodes`` list and a ``links`` list, see
    :mod:`vizcoll.topology.formats.nodelink`) is read too.
``graphml``
    Written and parsed with networkx, lossless too (see
    :mod:`vizcoll.topology.formats.graphml`); anyone else's GraphML (Topology
    Zoo, networkx, yEd) is read as a node-link graph. Untrusted XML is checked
    with defusedxml first: a DTD (and so any entity trick) is refused.
``ibnetdiscover`` and ``ibsim``
    The text ``ibnetdiscover`` prints and the ibsim net file (the same
    grammar, as ibsim's ``sim_net.c`` reads it): :mod:`vizcoll.topology.formats.ibnet`.
``ibnetdiscover-ports``, ``iblinkinfo``, ``slurm``
    ``ibnetdiscover -p`` (:mod:`~vizcoll.topology.formats.ibports`), ``iblinkinfo``
    (:mod:`~vizcoll.topology.formats.iblinkinfo`) and Slurm's ``topology.conf``
    (:mod:`~vizcoll.topology.formats.slurm`): read only.

Nodes are named as people name them (:mod:`vizcoll.topology.names`): a host name or
a node description where a file gives GUID-derived ids; GUIDs still find them.

What the text formats cannot express: broken links are written as present,
node and link attributes and ``meta`` are dropped, links are renumbered in
file order, a node with no ports is written with one, and a node without a
GUID gets an invented one (``GUID_BASE + 256 * (index + 1)``; CA port GUIDs
are the node GUID plus the port number unless ``port_guids`` says otherwise).
The ibsim writer writes no port GUIDs (ibsim derives them the same way).
The real ibsim holds 2048 nodes, 256 switches and 13312 ports unless started
with ``-N``/``-S``/``-P``; InfiniBand switches have at most 255 ports, the
reader accepts up to :data:`MAX_PORTS`.
"""

from __future__ import annotations

from pathlib import Path

from vizcoll.errors import FileFormatError
from vizcoll.topology.formats import DEFAULT, REGISTRY, FileFormat, by_extension, readable, writable
from vizcoll.topology.formats.ibnet import GUID_BASE, MAX_PORTS
from vizcoll.topology.formats.ibnet import export_guids as _export_guids  # noqa: F401 (vizcoll.multicast.mcfdbs)
from vizcoll.topology.generators import from_spec
from vizcoll.topology.model import Topology

__all__ = [
    "DEFAULT",
    "MAX_FILE_BYTES",
    "MAX_PORTS",
    "GUID_BASE",
    "detect",
    "parse",
    "dumps",
    "read",
    "write",
    "load",
]

MAX_FILE_BYTES = 20 * 1024 * 1024


# ====================================================================== public API
def parse(data: bytes | str, filename: str = "upload") -> Topology:
    """Read a topology file of any supported format from its content.

    The format is recognised from the content alone: the first format of
    :data:`~vizcoll.topology.formats.registry.REGISTRY` that the content fits; when none
    does, the message names each format tried and the first line that ruled it out.

    Parameters
    ----------
    data : bytes or str
        The file content (UTF-8 when bytes), at most :data:`MAX_FILE_BYTES`.
    filename : str
        Name used in error messages and as a format hint.

    Returns
    -------
    Topology
        The fabric the file describes.

    Raises
    ------
    FileFormatError
        For anything wrong with the file; the message starts with
        ``filename`` and, where it applies, the line.

    Examples
    --------
    >>> topo = parse('Switch 8 "s"\\n[1] "h"[1]\\n\\nHca 1 "h"\\n[1] "s"[1]\\n', "tiny.net")
    >>> topo.names, topo.n_links
    (['s', 'h'], 1)
    """
    if len(data) > MAX_FILE_BYTES:
        raise FileFormatError(f"the file is {len(data):,} bytes; the limit is {MAX_FILE_BYTES:,}", source=filename)
    text = _decode(data, filename)
    if not text.strip():
        raise FileFormatError("the file is empty", source=filename)
    return detect(text, filename).reader(text, filename)


def dumps(topo: Topology, fmt: str) -> str:
    """The text of ``topo`` in format ``fmt`` (one of :func:`~vizcoll.topology.formats.writable`: the registry's
    formats with a writer).

    What the text formats cannot express is dropped (see the module docstring): broken links are written as
    present, attributes and ``meta`` are lost, links are renumbered in file order.

    Parameters
    ----------
    topo : Topology
        The fabric.
    fmt : str
        A format with a writer: ``json``, ``graphml``, ``ibnetdiscover``, ``ibsim``, ...

    Returns
    -------
    str
        The file's text.

    Raises
    ------
    FileFormatError
        For an unknown format or one that is read only.

    Examples
    --------
    >>> topo = from_spec("fat-tree:radix=4,levels=2")
    >>> parse(dumps(topo, "graphml")) == topo
    True
    """
    if fmt in writable():
        return REGISTRY[fmt].writer(topo)
    raise FileFormatError(f"unknown format {fmt!r}; choose one of {', '.join(writable())}", source="export")


def read(path: str | Path) -> Topology:
    """Read the topology file at ``path`` (see :func:`parse`)."""
    path = Path(path)
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            raise FileFormatError(f"the file is larger than the limit of {MAX_FILE_BYTES:,} bytes", source=str(path))
        data = path.read_bytes()
    except OSError as exc:
        raise FileFormatError(f"cannot read the file ({exc.strerror or exc})", source=str(path)) from None
    return parse(data, str(path))


def write(topo: Topology, path: str | Path, fmt: str | None = None) -> None:
    """Write ``topo`` to the file ``path`` (UTF-8, ``\\n`` line ends), in the format :func:`dumps` writes.

    Parameters
    ----------
    topo : Topology
        The fabric.
    path : str or pathlib.Path
        The file to write.
    fmt : str, optional
        The format; defaults to the format whose extensions include the file's (``.json`` json,
        ``.graphml``/``.xml`` graphml, ``.net`` ibsim, ``.ibnd``/``.txt`` ibnetdiscover, and those of any format
        registered since).

    Raises
    ------
    FileFormatError
        When the format cannot be told from the extension, or is unknown.
    """
    path = Path(path)
    if fmt is None:
        named = by_extension(path.suffix)
        if named is None:
            raise FileFormatError(
                f"cannot tell the format from the extension {path.suffix!r}; give one of {', '.join(writable())}",
                source=str(path),
            )
        fmt = named.name
    text = dumps(topo, fmt)
    path.write_text(text, encoding="utf-8", newline="\n")


def load(spec_or_path: str) -> Topology:
    """The topology of a file if ``spec_or_path`` names one, else of a generator spec.

    This is how the command line reads ``--topo``: a file of any readable format (:func:`read`, recognised by its
    content), or a spec for :func:`~vizcoll.topology.generators.from_spec`.

    Parameters
    ----------
    spec_or_path : str
        A path to a topology file, or a generator spec such as ``fat-tree:radix=8,levels=3``.

    Returns
    -------
    Topology
        The fabric.

    Raises
    ------
    FileFormatError
        When the file is malformed, or a path with a known topology extension does not exist.
    SpecError
        When the text is neither a file nor a valid spec.

    Examples
    --------
    >>> load("torus:3x3,hosts=1").n_nodes
    18
    """
    path = Path(spec_or_path)
    if path.is_file():
        return read(path)
    if by_extension(path.suffix) is not None:
        raise FileFormatError("no such file", source=spec_or_path)
    return from_spec(spec_or_path)


# ====================================================================== detection
def _decode(data: bytes | str, filename: str) -> str:
    if isinstance(data, str):
        try:
            data.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise FileFormatError(
                "the text holds an invalid character (a lone surrogate)",
                line=data.count("\n", 0, exc.start) + 1,
                source=filename,
            ) from None
        return data.removeprefix("\ufeff")
    data = bytes(data)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise FileFormatError(
            f"not UTF-8 text (byte {exc.start})", line=data.count(b"\n", 0, exc.start) + 1, source=filename
        ) from None


def detect(text: str, filename: str = "upload") -> FileFormat:
    """The format of a file's text (see :func:`parse`); :class:`FileFormatError` saying why each was ruled out.

    The readable formats are tried in registry order; a format without a content test is chosen only by the
    extension of ``filename``, when no other fits.

    Examples
    --------
    >>> detect("SwitchName=s0 Nodes=node[01-04]\\n").name
    'slurm'
    """
    lines = text.split("\n")
    tried = []
    for fmt in readable():
        if fmt.sniff is None:
            continue
        ruled_out = fmt.ruled_out(text, lines)
        if ruled_out is None:
            return fmt
        line, reason = ruled_out
        tried.append(f"{fmt.label} ({f'line {line}: ' if line else ''}{reason})")
    named = by_extension(Path(filename).suffix)
    if named is not None and named.reader is not None and named.sniff is None:
        return named
    raise FileFormatError("cannot tell the format; tried " + "; ".join(tried), source=filename)
