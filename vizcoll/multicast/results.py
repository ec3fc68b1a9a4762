"""What multicast routing returns: one :class:`MulticastTree` per group and the link EFIs (:class:`MulticastResult`).

Both serialise with ``to_dict`` / ``from_dict`` (schema ``vizcoll.multicast/1``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vizcoll.errors import VizcollError

__all__ = ["SCHEMA", "MulticastResult", "MulticastTree"]

SCHEMA = "vizcoll.multicast/1"


def ints(values) -> np.ndarray:
    if isinstance(values, np.ndarray) and values.dtype == np.int64 and values.ndim == 1:
        return values  # already the shape the routing passes around (taken as is: no copy per level)
    return np.asarray(values, dtype=np.int64).reshape(-1)


@dataclass(eq=False)
class MulticastTree:
    """The multicast tree of one group: its root switch, its nodes and each node's parent link.

    Serialises with :meth:`to_dict` / :meth:`from_dict`.

    Attributes
    ----------
    group : int
        Index of the group (communicator).
    root : int
        Node index of the root switch.
    members : ndarray of int64
        The group's distinct member nodes, in member order.
    nodes : ndarray of int64
        Every node of the tree (switches and end-node members), root first.
    parent : ndarray of int64
        ``parent[i]`` is the node index of ``nodes[i]``'s parent (-1 for the root).
    parent_link : ndarray of int64
        Id (``Topology.link_id``) of the link from ``nodes[i]`` to its parent (-1 for the root).
    height : int
        Most hops from the root to a member (= the root's eccentricity).
    """

    group: int
    root: int
    members: np.ndarray
    nodes: np.ndarray
    parent: np.ndarray
    parent_link: np.ndarray
    height: int

    @property
    def links(self) -> np.ndarray:
        """Ids of the links the tree uses (one per non-root node)."""
        return self.parent_link[self.parent_link >= 0]

    def parent_of(self, node: int) -> tuple[int, int]:
        """The parent of a tree node and the link to it.

        Parameters
        ----------
        node : int
            A node index of the tree.

        Returns
        -------
        tuple of (int, int)
            ``(parent node, link id)``; ``(-1, -1)`` for the root.

        Raises
        ------
        VizcollError
            When ``node`` is not in the tree.
        """
        hit = np.flatnonzero(self.nodes == int(node))
        if not len(hit):
            raise VizcollError(f"node {node} is not in the tree of group {self.group}")
        return int(self.parent[hit[0]]), int(self.parent_link[hit[0]])

    def depths(self) -> np.ndarray:
        """Hops from the root to each of :attr:`nodes` (raises if the parents hold a cycle)."""
        order = np.argsort(self.nodes)
        has_parent = self.parent >= 0
        up = np.arange(len(self.nodes))
        up[has_parent] = order[np.searchsorted(self.nodes[order], self.parent[has_parent])]
        depth = np.zeros(len(self.nodes), dtype=np.int64)
        at = np.arange(len(self.nodes))
        moving = has_parent.copy()
        for _ in range(len(self.nodes)):
            if not moving.any():
                return depth
            depth[moving] += 1
            at[moving] = up[at[moving]]
            moving &= self.parent[at] >= 0
        raise VizcollError(f"the parents of group {self.group}'s tree hold a cycle")

    def to_dict(self) -> dict:
        """JSON-serialisable form.

        Returns
        -------
        dict
            ``group``, ``root``, ``height`` and the lists ``members``, ``nodes``, ``parent``, ``parent_link``.
        """
        return {
            "group": self.group,
            "root": self.root,
            "height": self.height,
            "members": self.members.tolist(),
            "nodes": self.nodes.tolist(),
            "parent": self.parent.tolist(),
            "parent_link": self.parent_link.tolist(),
        }

    @classmethod
    def from_dict(cls, data: dict) -> MulticastTree:
        """Inverse of :meth:`to_dict`.

        Parameters
        ----------
        data : dict
            What :meth:`to_dict` returned.

        Returns
        -------
        MulticastTree
            The tree.

        Raises
        ------
        VizcollError
            When ``nodes``, ``parent`` and ``parent_link`` differ in length or the first node is not the root.
        """
        tree = cls(
            int(data["group"]),
            int(data["root"]),
            ints(data["members"]),
            ints(data["nodes"]),
            ints(data["parent"]),
            ints(data["parent_link"]),
            int(data["height"]),
        )
        if not len(tree.nodes) == len(tree.parent) == len(tree.parent_link) or tree.nodes[0] != tree.root:
            raise VizcollError(f"tree of group {tree.group}: nodes, parent and parent_link do not match")
        return tree


@dataclass(eq=False)
class MulticastResult:
    """Trees of all groups routed by one algorithm, and the link EFIs they make.

    What :func:`~vizcoll.multicast.routing.route` returns; serialises with :meth:`to_dict` / :meth:`from_dict`
    (schema ``vizcoll.multicast/1``).

    Attributes
    ----------
    algo : str
        The algorithm's name: one of :data:`~vizcoll.multicast.algorithms.ALGORITHMS` (or the fabric's tables).
    trees : list of MulticastTree or None
        One entry per group, None for an unroutable group.
    unroutable : list of int
        Indices of the groups that got no tree.
    efi : ndarray of int64
        Per link row of the topology: number of groups whose tree uses the link.
    link_ids : ndarray of int64
        ``Topology.link_id`` of each row (see :meth:`efi_by_link_id`).
    live_links : int
        Number of links that were not broken.
    runtime_s : float
        Wall-clock seconds of routing (root choice and trees; not the min-hop table).
    """

    algo: str
    trees: list[MulticastTree | None]
    unroutable: list[int]
    efi: np.ndarray
    link_ids: np.ndarray
    live_links: int
    runtime_s: float

    def __reduce__(self):
        """Pickled as a few flat arrays rather than five small arrays per tree: a paper-scale result's 5,120 trees
        were slow to pickle tree by tree (the engine cache stores every routing), and as slow to load (measured:
        docs/design.md)."""
        return _unpack, (
            self.algo,
            _pack(self.trees),
            self.unroutable,
            self.efi,
            self.link_ids,
            self.live_links,
            self.runtime_s,
        )

    def efi_by_link_id(self) -> dict[int, int]:
        """The EFI of every link by its stable id.

        Returns
        -------
        dict of int to int
            ``{link id: EFI}`` for every link.
        """
        return dict(zip(self.link_ids.tolist(), self.efi.tolist(), strict=True))

    def summary(self) -> dict:
        """The figures the CLI prints.

        Returns
        -------
        dict
            ``algo``, ``groups``, ``unroutable``, ``max_efi``, ``mean_efi`` (averaged over the links some tree
            uses, EFI > 0), ``mean_efi_all`` (over all live links), ``max_height``, ``runtime_s`` and
            ``efi_histogram`` (an EFI to its number of live links, including EFI 0).
        """
        used = self.efi[self.efi > 0]
        values, counts = np.unique(used, return_counts=True)
        histogram = {0: self.live_links - len(used)} if self.live_links > len(used) else {}
        histogram.update(zip(values.tolist(), counts.tolist(), strict=True))
        heights = [t.height for t in self.trees if t is not None]
        return {
            "algo": self.algo,
            "groups": len(self.trees),
            "unroutable": len(self.unroutable),
            "max_efi": int(used.max()) if len(used) else 0,
            "mean_efi": round(float(used.mean()), 4) if len(used) else 0.0,
            "mean_efi_all": round(float(used.sum()) / self.live_links, 4) if self.live_links else 0.0,
            "max_height": max(heights, default=0),
            "runtime_s": round(self.runtime_s, 4),
            "efi_histogram": histogram,
        }

    def to_dict(self) -> dict:
        """JSON-serialisable form (schema ``vizcoll.multicast/1``).

        Returns
        -------
        dict
            ``schema``, ``algo``, ``runtime_s``, ``unroutable``, ``live_links``, ``link_ids``, ``efi`` and
            ``trees`` (:meth:`MulticastTree.to_dict` each, or None).
        """
        return {
            "schema": SCHEMA,
            "algo": self.algo,
            "runtime_s": self.runtime_s,
            "unroutable": list(self.unroutable),
            "live_links": self.live_links,
            "link_ids": self.link_ids.tolist(),
            "efi": self.efi.tolist(),
            "trees": [None if t is None else t.to_dict() for t in self.trees],
        }

    @classmethod
    def from_dict(cls, data: dict) -> MulticastResult:
        """Inverse of :meth:`to_dict`.

        Parameters
        ----------
        data : dict
            What :meth:`to_dict` returned.

        Returns
        -------
        MulticastResult
            The result.

        Raises
        ------
        VizcollError
            On a malformed dict (wrong schema, missing field, wrong type, ``efi`` and ``link_ids`` of different
            lengths).
        """
        if not isinstance(data, dict) or data.get("schema") != SCHEMA:
            raise VizcollError(f"not a vizcoll multicast result: the field 'schema' must be {SCHEMA!r}")
        try:
            result = cls(
                str(data["algo"]),
                [None if t is None else MulticastTree.from_dict(t) for t in data["trees"]],
                [int(g) for g in data["unroutable"]],
                ints(data["efi"]),
                ints(data["link_ids"]),
                int(data["live_links"]),
                float(data["runtime_s"]),
            )
        except KeyError as exc:
            raise VizcollError(f"multicast result: missing field {exc.args[0]!r}") from None
        except (TypeError, ValueError) as exc:
            raise VizcollError(f"multicast result: a field has the wrong type or value ({exc})") from None
        if len(result.efi) != len(result.link_ids):
            raise VizcollError("multicast result: 'efi' and 'link_ids' differ in length")
        return result


_TREE_ARRAYS = ("members", "nodes", "parent", "parent_link")


def _pack(trees: list[MulticastTree | None]) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    """The trees as ``(present, head, arrays)``: which groups have one, each tree's ``(group, root, height,
    members, nodes)`` (the last two: lengths), and the concatenation of each of :data:`_TREE_ARRAYS`."""
    kept = [t for t in trees if t is not None]
    present = np.array([t is not None for t in trees], dtype=bool)
    head = np.array([(t.group, t.root, t.height, len(t.members), len(t.nodes)) for t in kept], dtype=np.int64)
    arrays = [
        np.concatenate([getattr(t, name) for t in kept]) if kept else np.zeros(0, dtype=np.int64)
        for name in _TREE_ARRAYS
    ]
    return present, head.reshape(-1, 5), arrays


def _unpack(algo, packed, unroutable, efi, link_ids, live_links, runtime_s) -> MulticastResult:
    """Inverse of :meth:`MulticastResult.__reduce__`: each tree's arrays are views of the flat ones."""
    present, head, arrays = packed
    cuts = [np.cumsum(head[:-1, 3]), np.cumsum(head[:-1, 4])]
    parts = [np.split(a, cuts[i > 0]) if len(head) else [] for i, a in enumerate(arrays)]
    kept = iter(
        MulticastTree(group, root, *tree, height)
        for (group, root, height), *tree in zip(head[:, :3].tolist(), *parts, strict=True)
    )
    trees = [next(kept) if has else None for has in present.tolist()]
    return MulticastResult(algo, trees, unroutable, efi, link_ids, live_links, runtime_s)
