"""The shared steps of the topology generators: size checks, link tables stacked from arrays, hosts hung below
switches, and the validated :class:`~vizcoll.topology.model.Topology` they build."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

import numpy as np

from vizcoll.errors import SpecError
from vizcoll.topology.model import MAX_ENDPOINTS, MAX_LINKS, MAX_NODES, Topology

__all__ = ["build", "check_size", "hosts_below", "planned_size", "positive", "size_limits", "stack_links"]

_LIMITS: ContextVar[tuple[int, int, str] | None] = ContextVar("vizcoll_size_limits", default=None)
_SIZING: ContextVar[bool] = ContextVar("vizcoll_sizing", default=False)


class _Planned(Exception):
    def __init__(self, nodes: int, links: int) -> None:
        super().__init__(nodes, links)
        self.nodes, self.links = nodes, links


@contextmanager
def size_limits(nodes: int, links: int, who: str) -> Iterator[None]:
    """Within the block, a generator refuses fabrics of more than ``nodes`` nodes or ``links`` links before it
    builds anything, naming ``who`` keeps them lower than the engine (the web app: its pages draw smaller fabrics
    than the command line computes)."""
    token = _LIMITS.set((nodes, links, who))
    try:
        yield
    finally:
        _LIMITS.reset(token)


def check_size(nodes: int, links: int, what: str, endpoints: int = 0) -> None:
    """SpecError when a fabric of this size is over the engine's limits, or over those of :func:`size_limits`."""
    lower = _LIMITS.get()
    if lower is not None and (nodes > lower[0] or links > lower[1]):
        raise SpecError(
            f"{what} would have {nodes:,} nodes and {links:,} links; {lower[2]} takes fabrics of up to "
            f"{lower[0]:,} nodes and {lower[1]:,} links (the command line: {MAX_NODES:,} nodes)"
        )
    if endpoints > MAX_ENDPOINTS:
        raise SpecError(f"{what} would have {endpoints:,} end nodes; the limit is {MAX_ENDPOINTS:,} (2**20)")
    if nodes > MAX_NODES:
        raise SpecError(f"{what} would have {nodes:,} nodes; the limit is {MAX_NODES:,}")
    if links > MAX_LINKS:
        raise SpecError(f"{what} would have {links:,} links; the limit is {MAX_LINKS:,}")
    if _SIZING.get():
        raise _Planned(int(nodes), int(links))


def planned_size(make: Callable[[], Topology]) -> tuple[int, int]:
    """``(nodes, links)`` of the fabric ``make()`` builds, read from its generator's :func:`check_size`, which
    every generator calls before it builds anything (so a million nodes cost nothing here); a generator without a
    size check (a small fixed fabric) is built. Its errors (a bad parameter, a size over the limits) are raised."""
    token = _SIZING.set(True)
    try:
        topo = make()
    except _Planned as planned:
        return planned.nodes, planned.links
    finally:
        _SIZING.reset(token)
    return topo.n_nodes, topo.n_links


def positive(**values: int) -> None:
    for name, value in values.items():
        if not isinstance(value, (int, np.integer)) or value < 1:
            raise SpecError(f"{name} must be a positive integer, got {value!r}")


def stack_links(*parts: tuple) -> np.ndarray:
    """Stack ``(a, pa, b, pb)`` array tuples into one ``(m, 4)`` link table."""
    blocks = [np.stack(np.broadcast_arrays(*map(np.asarray, p)), axis=-1).reshape(-1, 4) for p in parts]
    return np.concatenate(blocks) if blocks else np.zeros((0, 4), dtype=np.int64)


def build(names, kind, nports, links, meta, **attrs) -> Topology:
    topo = Topology.from_arrays(
        names,
        kind,
        nports,
        links,
        node_attrs={k: v for k, v in attrs.items() if not k.startswith("link_")},
        link_attrs={k[5:]: v for k, v in attrs.items() if k.startswith("link_")},
        meta=meta,
        validate=False,
    )
    topo.validate()
    return topo


def hosts_below(first_switch: np.ndarray, per_switch: int, host_port0: int, offset: int):
    """Hosts hung below switches: host ``i`` of switch ``s`` uses switch port ``host_port0 + i``."""
    sw = np.repeat(first_switch, per_switch)
    slot = np.tile(np.arange(per_switch), len(first_switch))
    host = offset + np.arange(len(sw))
    return host, (host, 1, sw, host_port0 + slot)
