"""The registry of topology file formats: one :class:`FileFormat` per name, in the order detection tries them.

:mod:`vizcoll.topology.io` (parse, dumps, write by extension), the CLI (``topo info``, ``topo export --format``)
and the topology page (upload hint, download menu and file name) read it when they run, so a format given to
:func:`register` appears everywhere. The built-in formats register in :mod:`vizcoll.topology.formats`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from vizcoll.registry import Registry
from vizcoll.topology.model import Topology

__all__ = [
    "FileFormat",
    "REGISTRY",
    "DEFAULT",
    "register",
    "unregister",
    "readable",
    "writable",
    "by_extension",
    "extensions",
    "describe",
]

RuledOut = tuple[int, str] | None


@dataclass(frozen=True)
class FileFormat:
    """A topology file format.

    ``name`` is its word (``--format``, ``meta["format"]``), ``label`` what people call it (messages, the upload
    hint), ``help`` one sentence for help texts. ``reader(text, filename) -> Topology`` raises
    :class:`~vizcoll.errors.FileFormatError` for a bad file; ``writer(topo) -> str`` (None: read only).
    ``extensions`` (``".json"``, lower case) choose the format when writing to a path; the first names downloads.
    ``sniff(text) -> bool`` says whether a text is of this format; ``rules_out(lines) -> (line, reason) | None``
    may replace it to say why not (``sniff`` is then derived). A reader without either is used only for a file
    whose extension is one of its own, when no other format's content fits.
    """

    name: str
    label: str
    reader: Callable[[str, str], Topology] | None = None
    writer: Callable[[Topology], str] | None = None
    extensions: tuple[str, ...] = ()
    sniff: Callable[[str], bool] | None = None
    help: str = ""
    rules_out: Callable[[list[str]], RuledOut] | None = None

    def __post_init__(self) -> None:
        if not self.name or any(not ext.startswith(".") or ext != ext.lower() for ext in self.extensions):
            raise ValueError(f"format {self.name!r}: a name and lower-case extensions starting with '.'")
        if self.sniff is None and self.rules_out is not None:
            rules_out = self.rules_out
            object.__setattr__(self, "sniff", lambda text: rules_out(text.split("\n")) is None)

    def ruled_out(self, text: str, lines: list[str]) -> RuledOut:
        """None when ``text`` (split into ``lines``) is of this format, else (line or 0, why not)."""
        if self.rules_out is not None:
            return self.rules_out(lines)
        return None if self.sniff(text) else (0, "the content does not fit")


REGISTRY: Registry[FileFormat] = Registry("format")
"""Every format by name, in the order :func:`vizcoll.topology.io.detect` tries them."""
unregister = REGISTRY.unregister

DEFAULT = "json"
"""The format written when nothing names one (stdout of ``topo export``, the download menu's first choice)."""


def register(fmt: FileFormat, before: str | None = None) -> FileFormat:
    """Add ``fmt`` last in detection order, or just before the format named ``before``; returns it (a name or an
    extension taken already is a ValueError)."""
    taken = set(fmt.extensions) & set(extensions())
    if taken and fmt.name not in REGISTRY:
        raise ValueError(f"format {fmt.name!r}: the extensions {sorted(taken)} belong to other formats")
    return REGISTRY.register(fmt, before)


def readable() -> tuple[FileFormat, ...]:
    """The formats vizcoll reads, in detection order."""
    return tuple(fmt for fmt in REGISTRY.values() if fmt.reader is not None)


def writable() -> tuple[str, ...]:
    """The names of the formats vizcoll writes (``topo export --format``, the topology page's downloads)."""
    return tuple(name for name, fmt in REGISTRY.items() if fmt.writer is not None)


def extensions() -> dict[str, str]:
    """Extension (``".net"``) -> format name, of every format."""
    return {ext: fmt.name for fmt in REGISTRY.values() for ext in fmt.extensions}


def by_extension(suffix: str) -> FileFormat | None:
    """The format whose extensions include ``suffix`` (any case), or None."""
    name = extensions().get(suffix.lower())
    return None if name is None else REGISTRY[name]


def describe(fmt: FileFormat, with_extensions: bool = False) -> str:
    """``"name: help"`` (``"name (.ext, .ext2): help"``): one format in a help text (the CLI's and the page's)."""
    exts = f" ({', '.join(fmt.extensions)})" if with_extensions and fmt.extensions else ""
    return f"{fmt.name}{exts}: {fmt.help or fmt.label}"
