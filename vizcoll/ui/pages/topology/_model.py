"""The topology page's model: example fabrics, links named by id or label, communicators drawn by hand, the
broadcast root and its cached timeline, and what the page says of file formats (read from their registry)."""

from __future__ import annotations

import hashlib
import json

import numpy as np

from vizcoll.errors import VizcollError
from vizcoll.scenario import Scenario
from vizcoll.sim.broadcast import broadcast
from vizcoll.sim.timeline import Timeline
from vizcoll.topology import formats
from vizcoll.topology.generators import GENERATORS
from vizcoll.topology.model import Topology
from vizcoll.ui.cache import cached
from vizcoll.ui.figures.topology import PALETTE, SMALL_LIMIT
from vizcoll.ui.models.parts import natural_part, read_part
from vizcoll.ui.store import fabric_of, topology_of
from vizcoll.words import plural

__all__ = [
    "PAGE",
    "example_specs",
    "LARGE_UPLOAD_BYTES",
    "NEW_COMM",
    "ANIMATION_LIMIT",
    "large_upload",
    "example_of",
    "link_label",
    "source_digest",
    "root_of",
    "clicked_part",
    "with_part",
    "spec_help",
    "communicator_colours",
    "comm_edit_options",
    "broadcast_of",
    "broadcast_timeline",
    "upload_hint",
    "export_options",
    "export_name",
]

PAGE = "topology"
LARGE_UPLOAD_BYTES = 2 * 1024 * 1024
"""Files of more bytes are read in a background job (progress bar, Cancel), smaller ones in the request.
Measured on two cores (the figures: docs/design.md): GraphML reads the slowest, ibnetdiscover in half its time per
MB, vizcoll's JSON faster still; a file of this size reads in under half a second in any of them."""
NEW_COMM = -1  # the "a new communicator" choice of the hand-drawing dropdown
ANIMATION_LIMIT = SMALL_LIMIT


def example_specs() -> dict[str, str]:
    """The fabric menu: generator name -> its example spec, read from the generators' registry (in its order)."""
    return {generator.name: generator.example for generator in GENERATORS.values() if generator.example}


def example_of(scenario: Scenario | None) -> str | None:
    """The example menu's entry of the scenario's generator (None for a file, or a generator it has no example of)."""
    generator = scenario.spec.partition(":")[0] if scenario is not None and not scenario.ref else None
    return generator if generator in example_specs() else None


def large_upload(contents) -> bool:
    """Whether an upload box's data URL holds a file of more than :data:`LARGE_UPLOAD_BYTES`."""
    return isinstance(contents, str) and len(contents) * 3 // 4 > LARGE_UPLOAD_BYTES


def link_label(scenario: Scenario, ref) -> str:
    """The ``a[pa]-b[pb]`` label of a link typed as its id (``17``) or as its label."""
    text = str(ref if ref is not None else "").strip()
    if not text:
        raise VizcollError("type a link id or a[1]-b[2] first (click a link to see both)")
    if not text.isdigit():
        return text
    fabric = fabric_of(scenario)
    return fabric.link_label(fabric.link_row(int(text)))


def source_digest(scenario: Scenario) -> str:
    """A short key of the scenario's fabric source (spec or uploaded file), the same after edits and breaks."""
    raw = json.dumps([scenario.spec, scenario.ref], sort_keys=True, separators=(",", ":")).encode()
    return hashlib.sha256(raw).hexdigest()[:16]


def root_of(scenario: Scenario, topo: Topology) -> str | None:
    """The broadcast root: the stored one when the fabric has it, else the first end node (or switch)."""
    wanted = scenario.params.get(PAGE, {}).get("root")
    if isinstance(wanted, str) and wanted in topo:
        return wanted
    names = topo.endpoints if len(topo.endpoints) else topo.switches
    return topo.names[names[0]] if len(names) else None


def spec_help(generator: str) -> str:
    """The generator's spec with every parameter at its default, as an example to edit."""
    if not isinstance(generator, str) or generator not in GENERATORS:
        return "A topology read from a file."
    return f"Defaults: {GENERATORS[generator].defaults()}"


def communicator_colours(scenario: Scenario, topo: Topology) -> tuple[dict[int, int], str]:
    """Node -> index of the first communicator it hosts, and a one-line description."""
    comms = scenario.communicators(topo)
    if comms is None:
        return {}, "No communicators: type a pattern and press Apply, or upload a file."
    nodes, first = np.unique(comms.node_array(), return_index=True)  # entries are in communicator order
    colour = dict(zip(nodes.tolist(), comms.comm_of_entry()[first].tolist(), strict=True))
    sizes = ", ".join(f"{count:,} of size {size:,}" for size, count in sorted(comms.sizes().items()))
    return (
        colour,
        f"{plural(len(comms), 'communicator')} ({sizes}); end nodes take the colour "
        f"of their first communicator ({len(PALETTE)} colours repeat).",
    )


def comm_edit_options(scenario: Scenario, topo: Topology) -> list[dict]:
    """The communicators a click can edit (first 200), plus a new one."""
    comms = scenario.communicators(topo)
    options = (
        [
            {"label": f"communicator {i} ({plural(len(comms[i]), 'process')})", "value": i}
            for i in range(min(len(comms), 200))
        ]
        if comms is not None
        else []
    )
    return options + [{"label": "a new communicator", "value": NEW_COMM}]


@cached
def broadcast_of(source: dict, root: str) -> Timeline:
    """The broadcast from ``root`` on the scenario source's topology (its events as columns: it pickles in the
    cache and reads back without an object per event, nor the checks of a timeline's dict)."""
    return broadcast(topology_of(Scenario(**source)), root)


def broadcast_timeline(source: dict, root: str) -> dict:
    """The broadcast from ``root`` on the scenario source's topology, as a timeline dict."""
    return broadcast_of(source, root).to_dict()


def clicked_part(click) -> str | None:
    """The group a click on the overview's blocks chose (its ``customdata``, ``"group:7"``), or None."""
    points = click.get("points") if isinstance(click, dict) else None
    point = points[0] if isinstance(points, list) and points and isinstance(points[0], dict) else {}
    part = point.get("customdata")
    return part if isinstance(part, str) and part else None


def with_part(scenario: Scenario, value) -> Scenario:
    """The scenario drawing ``value`` (checked: a part of its fabric; the natural one is not stored)."""
    topo = topology_of(scenario)
    part = read_part(value, scenario, topo)
    part = None if part == natural_part(topo) else part
    return scenario.with_params(PAGE, {**scenario.params.get(PAGE, {}), "part": part})


def upload_hint() -> tuple[str, str]:
    """The topology upload's hint (the formats read, in the order they are tried) and its tooltip (their help)."""
    read = formats.readable()
    return ", ".join(fmt.label for fmt in read), "\n".join(map(formats.describe, read))


def export_options() -> list[dict]:
    """The download menu: every format written, with the extension of its file and its help as tooltip."""
    return [
        {"label": f"{name} ({_extension(name)})", "value": name, "title": formats.describe(formats.REGISTRY[name])}
        for name in formats.writable()
    ]


def export_name(fmt) -> str | None:
    """The downloaded file's name in format ``fmt`` (``topology.net``), or None when vizcoll writes no such format."""
    return "topology" + _extension(fmt) if isinstance(fmt, str) and fmt in formats.writable() else None


def _extension(name: str) -> str:
    return (formats.REGISTRY[name].extensions or (".txt",))[0]
