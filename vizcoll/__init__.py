"""vizcoll: a visualizer and calculator for collective communication on HPC interconnects.

The engine packages (topology, comm, sim, ...) never import dash or plotly;
the Dash pages live in ``vizcoll.ui`` and the command line in ``vizcoll.cli``.
"""

__version__ = "0.5.0"
