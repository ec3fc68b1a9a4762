"""One module per topology file format, behind the façade :mod:`vizcoll.topology.io`.

- :mod:`~vizcoll.topology.formats.jsonfile`: vizcoll's own JSON export and hand-written node-link JSON;
- :mod:`~vizcoll.topology.formats.graphml`: lossless GraphML (networkx), untrusted XML checked with defusedxml;
- :mod:`~vizcoll.topology.formats.ibnet`: ``ibnetdiscover`` output and ibsim net files (one tolerant reader,
  two writers).

Each module offers ``read(text, filename, ...) -> Topology`` and, where the format is written,
``write(topo, ...) -> str``; :func:`vizcoll.topology.io.parse` picks the module.
"""
