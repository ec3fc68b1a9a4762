"""Aggregation trees for hardware-offloaded collectives and their cost model (aggregation-trees.md)."""
