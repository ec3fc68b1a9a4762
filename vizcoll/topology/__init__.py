"""Topologies: the model, generators, files and min-hop tables."""

from vizcoll.topology.generators import GENERATORS, from_spec, parse_spec
from vizcoll.topology.model import ENDPOINT, SWITCH, Topology

__all__ = ["ENDPOINT", "GENERATORS", "SWITCH", "Topology", "from_spec", "parse_spec"]
