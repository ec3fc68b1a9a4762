"""Registries: the named entries of one extension point (multicast algorithms, tree kinds, file formats), in
registration order, read by every consumer when it runs, so that one ``register(...)`` line adds an entry to the
engine, the command line and the app alike.

>>> from collections import namedtuple
>>> Shape = namedtuple("Shape", "name sides")
>>> shapes = Registry("shape")
>>> _ = shapes.register(Shape("square", 4)); _ = shapes.register(Shape("triangle", 3), before="square")
>>> names = shapes.names
>>> list(names), shapes.lookup("square").sides, names[0]
(['triangle', 'square'], 4, 'triangle')
>>> _ = shapes.register(Shape("pentagon", 5)); "pentagon" in names  # the names are live
True
>>> shapes.lookup("circle")
Traceback (most recent call last):
...
vizcoll.errors.SpecError: unknown shape 'circle'; choose one of triangle, square, pentagon
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Generic, TypeVar

from vizcoll.errors import SpecError

__all__ = ["Registry"]

Entry = TypeVar("Entry")  # any object with a ``name``


class Registry(dict[str, Entry], Generic[Entry]):
    """Name -> entry of one extension point; ``what`` names an entry in messages ("tree kind")."""

    def __init__(self, what: str):
        super().__init__()
        self.what = what
        self.names: Sequence[str] = _Names(self)
        """The registered names in order, live: an entry registered later appears in it."""

    def register(self, entry: Entry, before: str | None = None) -> Entry:
        """Add ``entry`` last, or just before the entry named ``before``; a name taken already is a ValueError."""
        name = entry.name
        if name in self:
            raise ValueError(f"{self.what} {name!r} is registered already")
        if before is not None and before not in self:
            raise ValueError(f"no {self.what} {before!r} to register {name!r} before")
        items = list(self.items())
        items.insert(len(items) if before is None else list(self).index(before), (name, entry))
        self.clear()
        self.update(items)
        return entry

    def unregister(self, name: str) -> Entry | None:
        """Take the entry ``name`` out (a test's toy entry); returns it (None if there was none)."""
        return self.pop(name, None)

    def lookup(self, name) -> Entry:
        """The entry ``name``; SpecError listing the choices when there is none."""
        if not isinstance(name, str) or name not in self:
            raise SpecError(f"unknown {self.what} {str(name)[:40]!r}; choose one of {', '.join(self)}")
        return self[name]


class _Names(Sequence[str]):
    """A registry's names, read from it at every use (a tuple would freeze them at import)."""

    def __init__(self, registry: Registry):
        self._registry = registry

    def __getitem__(self, index):
        return tuple(self._registry)[index]

    def __len__(self) -> int:
        return len(self._registry)

    def __iter__(self) -> Iterator[str]:
        return iter(tuple(self._registry))

    def __contains__(self, name) -> bool:
        return isinstance(name, str) and name in self._registry

    def __repr__(self) -> str:
        return f"{self._registry.what} names {tuple(self._registry)!r}"
