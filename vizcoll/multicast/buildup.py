"""The edge forwarding index built up group by group: a routing's trees added one at a time, as a timeline.

A multicast routing (:class:`~vizcoll.multicast.results.MulticastResult`) is static: the subnet manager computes
every group's tree, and a link's EFI is the number of trees that use it (the FULB-MC paper, [FULB22] in
``docs/papers.md``: load-balanced multicast routing for InfiniBand). :func:`efi_buildup` replays it in
the order the algorithm routes the groups (the order of the communicators): step ``g`` adds group ``g``'s tree,
each of its links' EFI one higher (state ``link:<id>``), and a ``"peak"`` key moment marks each group that raises
the largest EFI. Two algorithms' build-ups share their clock (step ``g``: ``g`` groups routed), so side by side
(:mod:`vizcoll.sim.lockstep`) they part at the first group that raises one algorithm's largest EFI and not the
other's: where MINIHOP-MC-new starts to pile groups on one link and FULB-MC's rotation spreads them.
"""

from __future__ import annotations

import numpy as np

from vizcoll.multicast.results import MulticastResult
from vizcoll.sim.events import Event
from vizcoll.sim.timeline import Timeline
from vizcoll.topology.model import Topology
from vizcoll.words import plural

__all__ = ["efi_buildup", "efi_at", "PREFIX"]

PREFIX = "link:"  # a link's entity key: PREFIX + its id


def efi_buildup(topo: Topology, result: MulticastResult, name: str) -> Timeline:
    """The groups of ``result`` (routed on ``topo`` by the algorithm called ``name``) added one by one; the EFI of
    the last step is ``result.efi``."""
    row = np.full(int(topo.link_id.max(initial=-1)) + 1, -1, dtype=np.int64)
    row[topo.link_id] = np.arange(topo.n_links)
    efi, top, events = np.zeros(topo.n_links, dtype=np.int64), 0, []
    for step, tree in enumerate((t for t in result.trees if t is not None), start=1):
        links = tree.links
        efi[row[links]] += 1
        now = int(efi.max())
        changes = {f"{PREFIX}{lid}": int(efi[row[lid]]) for lid in links.tolist()}
        label = f"group {tree.group}: a tree of {plural(len(links), 'link')} over {plural(len(tree.members), 'node')}"
        events.append(Event(step, "send", path_links=links.tolist(), label=label, state_changes=changes))
        if now > top:
            events.append(Event(step, "peak", label=f"group {tree.group} raises the largest EFI {top} → {now}"))
            top = now
    return Timeline(
        title=f"{name}: the groups routed one by one",
        events=events,
        intro=f"{name} routes the groups one by one (t counts the groups routed)",
        summary={"max_efi": top},
    )


def efi_at(topo: Topology, tl: Timeline, step: int) -> np.ndarray:
    """Each link row's EFI after ``step`` of :func:`efi_buildup`'s timeline (-1: none routed)."""
    row = {lid: r for r, lid in enumerate(topo.link_id.tolist())}
    efi = np.zeros(topo.n_links, dtype=np.int64)
    for key, value in tl.state_at(step).items():
        if key.startswith(PREFIX) and int(key[len(PREFIX) :]) in row:
            efi[row[int(key[len(PREFIX) :])]] = int(value)
    return efi
