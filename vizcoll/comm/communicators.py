"""A set of communicators over ranks ``0..P-1``, stored CSR-style in numpy arrays.

Communicator ``i`` holds ``ranks[indptr[i]:indptr[i+1]]`` in its own order
(its first rank is its rank 0). A rank appears at most once per communicator
but may belong to several communicators (a grid split puts each process in
one communicator per dimension).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from vizcoll.comm.placement import Placement
from vizcoll.errors import SpecError

__all__ = ["Communicators"]

SCHEMA = "vizcoll.communicators/1"


@dataclass(eq=False)
class Communicators:
    """Communicators plus (optionally) the placement of their ranks on nodes.

    Communicator ``i`` holds ``ranks[indptr[i]:indptr[i+1]]`` in its own order (its first rank is its rank 0). A
    rank appears at most once per communicator but may belong to several communicators (a grid split puts each
    process in one communicator per dimension). The arrays are checked on construction (:meth:`validate`, which
    raises :class:`~vizcoll.errors.SpecError`); the dict form has schema ``vizcoll.communicators/1``.

    Attributes
    ----------
    ranks : numpy.ndarray
        Members of all communicators, concatenated.
    indptr : numpy.ndarray
        ``len(self) + 1`` offsets into ``ranks``.
    nprocs : int
        Number of processes ``P``; every rank is in ``0..P-1``.
    placement : Placement or None
        Where the ranks run; needed by :meth:`nodes`.
    label : str
        What built them, e.g. the pattern ``"grid2d:4x3"``.

    Examples
    --------
    >>> comms = Communicators.from_groups([[0, 1, 2], [2, 3]])
    >>> len(comms), comms.nprocs, comms.sizes(), comms.membership()
    (2, 4, {2: 1, 3: 1}, [[0], [0], [0, 1], [1]])
    """

    ranks: np.ndarray
    indptr: np.ndarray
    nprocs: int
    placement: Placement | None = None
    label: str = ""

    def __post_init__(self) -> None:
        self.ranks = np.asarray(self.ranks, dtype=np.int64).reshape(-1)
        self.indptr = np.asarray(self.indptr, dtype=np.int64).reshape(-1)
        self.nprocs = int(self.nprocs)
        self.validate()

    @classmethod
    def from_groups(
        cls,
        groups: Sequence[Sequence[int]],
        nprocs: int | None = None,
        placement: Placement | None = None,
        label: str = "",
    ) -> Communicators:
        """Build communicators from a list of rank lists.

        Parameters
        ----------
        groups : sequence of sequence of int
            The ranks of each communicator, in communicator order.
        nprocs : int, optional
            Number of processes; defaults to the placement's, or the largest rank + 1.
        placement : Placement, optional
            Where the ranks run.
        label : str
            What built them.

        Returns
        -------
        Communicators
            The communicators, checked.

        Raises
        ------
        SpecError
            When a rank is outside ``0..nprocs-1``, listed twice in one communicator, or the placement's size
            differs.
        """
        sizes = np.array([len(g) for g in groups], dtype=np.int64)
        ranks = np.concatenate([np.asarray(g, dtype=np.int64) for g in groups]) if len(groups) else []
        if nprocs is None:
            nprocs = placement.nprocs if placement else (int(np.max(ranks)) + 1 if len(ranks) else 0)
        return cls(ranks, np.r_[0, np.cumsum(sizes)], nprocs, placement, label)

    # ------------------------------------------------------------ checks
    def validate(self) -> None:
        """Raise :class:`SpecError` unless the arrays describe valid communicators."""
        n = len(self.indptr) - 1
        if n < 0 or self.indptr[0] != 0 or self.indptr[-1] != len(self.ranks) or np.any(np.diff(self.indptr) < 0):
            raise SpecError("communicators: 'indptr' does not match the rank list")
        if len(self.ranks) and (self.ranks.min() < 0 or self.ranks.max() >= self.nprocs):
            bad = int(self.ranks[(self.ranks < 0) | (self.ranks >= self.nprocs)][0])
            raise SpecError(f"communicators: rank {bad} is outside 0..{self.nprocs - 1}")
        if self.placement is not None and self.placement.nprocs != self.nprocs:
            raise SpecError(f"communicators: {self.nprocs} processes but the placement has {self.placement.nprocs}")
        comm = self.comm_of_entry()
        key = np.sort(comm * max(self.nprocs, 1) + self.ranks)
        dup = np.flatnonzero(key[1:] == key[:-1])
        if len(dup):
            i, r = divmod(int(key[dup[0]]), max(self.nprocs, 1))
            raise SpecError(f"communicator {i} lists rank {r} twice")

    # ------------------------------------------------------------ access
    def __len__(self) -> int:
        return len(self.indptr) - 1

    def __getitem__(self, i: int) -> np.ndarray:
        """Ranks of communicator ``i`` in communicator order."""
        if not -len(self) <= i < len(self):
            raise IndexError(f"communicator {i} does not exist (there are {len(self)})")
        i %= len(self)
        return self.ranks[self.indptr[i] : self.indptr[i + 1]]

    def __iter__(self) -> Iterator[np.ndarray]:
        return (self[i] for i in range(len(self)))

    def lists(self) -> list[list[int]]:
        """All communicators as plain lists of ranks.

        Returns
        -------
        list of list of int
            Communicator ``i``'s ranks in its order.
        """
        return [c.tolist() for c in self]

    @property
    def communicators(self) -> list[list[int]]:
        """Same as :meth:`lists` (a new list on every access; ``len(self)`` is cheaper)."""
        return self.lists()

    def size_array(self) -> np.ndarray:
        """Size of each communicator."""
        return np.diff(self.indptr)

    def sizes(self) -> dict[int, int]:
        """How many communicators there are of each size.

        Returns
        -------
        dict of int to int
            ``{size: number of communicators of that size}``, ascending sizes.
        """
        size, count = np.unique(self.size_array(), return_counts=True)
        return dict(zip(size.tolist(), count.tolist(), strict=True))

    def comm_of_entry(self) -> np.ndarray:
        """For each entry of :attr:`ranks`, the index of its communicator."""
        return np.repeat(np.arange(len(self), dtype=np.int64), self.size_array())

    def membership(self) -> list[list[int]]:
        """The communicators each rank belongs to.

        Returns
        -------
        list of list of int
            ``membership()[r]``: indices of the communicators rank ``r`` belongs to, ascending.
        """
        order = np.argsort(self.ranks, kind="stable")
        bounds = np.searchsorted(self.ranks[order], np.arange(self.nprocs + 1))
        comm = self.comm_of_entry()[order]
        return [comm[bounds[r] : bounds[r + 1]].tolist() for r in range(self.nprocs)]

    def node_array(self) -> np.ndarray:
        """Node index of every entry of :attr:`ranks` (same CSR layout)."""
        if self.placement is None:
            raise SpecError("these communicators have no placement on a topology")
        return self.placement.node[self.ranks]

    def nodes(self, i: int) -> np.ndarray:
        """Topology node indices of communicator ``i``'s processes, in communicator order.

        A node appears once per process of the communicator it runs.

        Parameters
        ----------
        i : int
            The communicator's index.

        Returns
        -------
        numpy.ndarray
            Node indices (``int64``).

        Raises
        ------
        SpecError
            When the communicators have no placement.
        """
        if self.placement is None:
            raise SpecError("these communicators have no placement on a topology")
        return self.placement.node[self[i]]

    # ------------------------------------------------------------ serialisation
    def to_dict(self) -> dict:
        """JSON-serialisable form (schema ``vizcoll.communicators/1``).

        Returns
        -------
        dict
            ``schema``, ``label``, ``nprocs``, ``communicators`` (rank lists) and ``placement`` (its dict, or
            None).
        """
        return {
            "schema": SCHEMA,
            "label": self.label,
            "nprocs": self.nprocs,
            "communicators": self.lists(),
            "placement": None if self.placement is None else self.placement.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: dict) -> Communicators:
        """Inverse of :meth:`to_dict`.

        Parameters
        ----------
        data : dict
            What :meth:`to_dict` returned.

        Returns
        -------
        Communicators
            The communicators, checked.

        Raises
        ------
        SpecError
            On a malformed dict.
        """
        if not isinstance(data, dict) or data.get("schema") != SCHEMA:
            raise SpecError(f"not vizcoll communicators: the field 'schema' must be {SCHEMA!r}")
        try:
            placement = data.get("placement")
            placement = None if placement is None else Placement.from_dict(placement)
            groups = [[int(r) for r in g] for g in data["communicators"]]
            return cls.from_groups(groups, int(data["nprocs"]), placement, str(data.get("label", "")))
        except SpecError:
            raise
        except KeyError as exc:
            raise SpecError(f"communicators: missing field {exc.args[0]!r}") from None
        except (TypeError, ValueError) as exc:
            raise SpecError(f"communicators: a field has the wrong type or value ({exc})") from None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Communicators):
            return NotImplemented
        return self.to_dict() == other.to_dict()
