"""Aggregation trees for hardware-offloaded collectives and their cost model (the Sunway aggregation-tree paper).

- :mod:`vizcoll.trees.cost`: the cost model (eq. 2–11), the best width k (eq. 5, Table 2) and the
  type I / type II choice (Table 3);
- :mod:`vizcoll.trees.typeone`: k-ary, k-nomial (Algorithm 1), Zhao et al.'s and the hierarchical
  k-nomial tree (Algorithms 2–4), process groups of a placement;
- :mod:`vizcoll.trees.metrics`: height, radius, packets per link, cross-group packets, switch entries
  and the modelled latency of a tree mapped on a topology.

References: [AGGT24]; Zhao et al.'s tree: [AGGT24, ref. 25] (keys: ``docs/papers.md``).
"""
