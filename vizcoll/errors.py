"""Errors the engine raises for bad input; their message is shown to the user as is."""

__all__ = ["VizcollError", "TopologyError", "FileFormatError", "SpecError"]


class VizcollError(ValueError):
    """Base class: a user-facing problem with the input (never a bug)."""


class TopologyError(VizcollError):
    """A topology is inconsistent or an edit is impossible."""


class SpecError(VizcollError):
    """A generator spec, pattern or parameter is malformed or absurd."""


class FileFormatError(VizcollError):
    """A topology file is malformed; the message names the line or field."""

    def __init__(self, message: str, line: int | None = None, source: str = "file"):
        where = f"{source}, line {line}: " if line is not None else f"{source}: "
        super().__init__(where + message)
        self.line = line
