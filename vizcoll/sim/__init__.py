"""The shared simulation core: the Timeline format every animation uses, and simulations on it."""

from vizcoll.sim.broadcast import broadcast, broadcast_tree
from vizcoll.sim.timeline import KINDS, SCHEMA, Event, Timeline, sort_events

__all__ = ["KINDS", "SCHEMA", "Event", "Timeline", "broadcast", "broadcast_tree", "sort_events"]
