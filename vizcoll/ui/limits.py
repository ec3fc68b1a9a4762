"""Every limit the app enforces on what a browser may ask, with the reason for each number.

The pages check their values against these on the server, in the callback,
whatever their widgets allow; over a limit gives a message that names it.
The engines keep their own argument checks (k ≤ P and the like), so the
command line is safe too; their hard caps are quoted here where a page
inherits them.
"""

from __future__ import annotations

from vizcoll.erasure.codes import MAX_BLOCKS, MAX_DCS
from vizcoll.topology.model import MAX_LINKS, MAX_NODES
from vizcoll.ui.security import MAX_REQUEST_BYTES, MAX_UPLOAD_BYTES

__all__ = [
    "MAX_REQUEST_BYTES",
    "MAX_UPLOAD_BYTES",
    "UI_MAX_NODES",
    "UI_MAX_LINKS",
    "UI_MAX_RAIL_NODES",
    "UI_MAX_RAIL_LINKS",
    "BUILT_IN_JOB_NODES",
    "BROADCAST_MAX_NODES",
    "DRAWN_NODES",
    "MAX_BLOCKS",
    "MAX_DCS",
    "TREE_MAX_K",
    "TREE_MAX_DEGREE",
    "TREE_MAX_PROCESSES",
    "TREE_MAX_BYTES",
    "BARRIER_MAX_SIDE",
    "BARRIER_MAX_PROCESSES",
    "BARRIER_MAX_RANDOM_LINKS",
    "FAULTS_MAX_PROCS",
    "SCHEDULE_MAX_BYTES",
    "SCHEDULE_MAX_RANKS",
    "SCHEDULE_MAX_DRAWN_MESSAGES",
    "MAX_SEED",
    "MAX_OPTIONS",
    "MAX_LOGGP",
    "EXPORT_MAX_FRAMES",
    "EXPORT_FRAME_PIXELS",
    "EXPORT_MAX_WIDTH",
    "EXPORT_MAX_HEIGHT",
    "EXPORT_MIN_WIDTH",
    "EXPORT_MIN_HEIGHT",
    "EXPORT_MIN_FPS",
    "EXPORT_MAX_FPS",
]

# ---------------------------------------------------------------- requests and files
# MAX_REQUEST_BYTES (20 MB, VIZCOLL_MAX_REQUEST_MB): a larger request body is answered 413 before it is read.
# MAX_UPLOAD_BYTES: the largest file an upload box takes (base64 makes it 4/3 larger inside the request).
# UI_MAX_NODES / UI_MAX_LINKS (200,000 / 1,000,000): the largest fabric the app takes (vizcoll.ui.store refuses a
# larger one, a generated one before it is built); the paper fabrics are 65,536 end nodes at most, and a fabric
# this size still fits a worker's memory several times. The engine's own caps (vizcoll.topology.checks: 1,250,000
# nodes, 3,500,000 links, 2**20 end nodes, for the AI-scale rail fabrics of the command line) are higher.
UI_MAX_NODES = 200_000
UI_MAX_LINKS = 1_000_000
# UI_MAX_RAIL_NODES / UI_MAX_RAIL_LINKS: a rail-optimized fabric (rail-fat-tree:...) up to the engine's own caps, so
# that the 1,048,576-NIC preset opens: its rails are separate networks (one block of min hops per rail), it is built
# by a background job (BUILT_IN_JOB_NODES) whose peak is 802 MB (the fabric, its drawing positions and its overview;
# measured at servers=131072,rails=8,radix=128), within a job's 2 GB (VIZCOLL_JOB_MEMORY_MB).
UI_MAX_RAIL_NODES = MAX_NODES
UI_MAX_RAIL_LINKS = MAX_LINKS
BUILT_IN_JOB_NODES = 200_000
"""A generated fabric of more nodes is built by a background job (the 1,114,112-node rail fabric with its positions
and blocks takes seconds: docs/design.md); until it is built, a page says so instead of building it in the request."""

BROADCAST_MAX_NODES = UI_MAX_NODES
"""The topology page plays its broadcast on fabrics of up to 200,000 nodes: its timeline names every node and
every message (a rail of the 1,048,576-NIC fabric alone, 139,264 nodes, took far longer, cold: docs/design.md)."""

DRAWN_NODES = 1500
"""Fabrics drawn node by node (cytoscape) and animated; larger ones are drawn on their overview (blocks)."""

# ---------------------------------------------------------------- trees
TREE_MAX_K = 1024
"""No NIC or switch holds a 1,024-wide tree node (the paper's widths stop at 128, F(k) is drawn to 128)."""
TREE_MAX_DEGREE = 1024
"""No switch has more than 1,024 ports to aggregate from (the paper's degrees are 16 and 64)."""
TREE_MAX_PROCESSES = 65_536
"""The paper fabrics' largest job (65,536 end nodes): the five compared trees of every process of TaihuLight or of
the 64-port fat tree are computed as a background job (see :data:`vizcoll.ui.pages.trees._model.JOB_NODES`)."""
TREE_MAX_BYTES = 1 << 30
"""A message of at most 1 GiB (the cost model's S and the GOAL export's size)."""

# ---------------------------------------------------------------- barrier
BARRIER_MAX_SIDE = 16
"""Grids up to 16 x 16 run and animate on the page (the paper's largest is 20 x 20: the CLI runs it)."""
BARRIER_MAX_PROCESSES = 65_536
"""Processes of a barrier on a fabric that is not a grid: the paper fabrics' largest job, as on /trees (every end
node of a real cluster; what a run may cost is :data:`BARRIER_MAX_MESSAGES`'s to say)."""
BARRIER_MAX_MESSAGES = 250_000
"""Messages of one run the page plays (counted before it runs: :func:`vizcoll.barrier.algorithms.planned_messages`):
3 barriers of the tree, MS or tournament on TaihuLight's 40,960 processes (245,754), 16 of dissemination on a
1,356-node cluster; a message is 4 to 8 events of its timeline, which holds at most 2,000,000."""
BARRIER_MAX_RANDOM_LINKS = 20_000
"""'Break at random' keeps the fabric connected by testing every break: fabrics up to 20,000 links."""

# ---------------------------------------------------------------- fault replays
FAULTS_MAX_PROCS = 32
"""The reduction replay draws one lane per process: 32 lanes still read on a projector."""

# ---------------------------------------------------------------- erasure codes
# MAX_BLOCKS (32) and MAX_DCS (16): the exact metrics enumerate subsets of the n blocks; beyond 32 blocks the
# search and the checks no longer finish in seconds (the FMEL paper's largest code has n = 32).

# ---------------------------------------------------------------- GOAL schedules
SCHEDULE_MAX_BYTES = 2 * 1024 * 1024
"""A GOAL file opened on /schedules travels with every view's request: 2 MB is about 45,000 operations."""
SCHEDULE_MAX_RANKS = 65_536
"""The paper fabrics' largest job (65,536 end nodes)."""
SCHEDULE_MAX_DRAWN_MESSAGES = 4000
"""Messages of a replay drawn node by node: the server restyles the canvas at every step (one rule per message and
rank of the step); on a fabric drawn as its overview, up to :data:`vizcoll.ui.pages.schedules._model.
MAX_OVERVIEW_MESSAGES`."""
MAX_LOGGP = 10**9
"""LogGP parameters up to one second in LogGOPSim's nanoseconds (S up to a gigabyte)."""

# ---------------------------------------------------------------- exports (animations, figure packs)
EXPORT_MAX_FRAMES = 600
"""Frames of one exported animation: at kaleido's speed per frame (measured: docs/design.md), 600 frames keep a job
well within its time limit (the default scenario's players have 7 to 72 steps; a longer timeline is exported in
parts)."""
EXPORT_FRAME_PIXELS = 300 * 1280 * 720
"""Frames x pixels per frame: a GIF holds every frame in memory until it is written (one byte per pixel once
reduced to its palette), so 300 frames of 1280x720 (about 280 MB) at most; smaller frames allow more."""
EXPORT_MAX_WIDTH, EXPORT_MAX_HEIGHT = 1920, 1080
"""Full HD: a projector's or a video's largest common size."""
EXPORT_MIN_WIDTH, EXPORT_MIN_HEIGHT = 320, 180
"""Below this a drawing's labels no longer fit."""
EXPORT_MIN_FPS, EXPORT_MAX_FPS = 0.1, 30
"""From 10 s per frame (a lecture) to 30 frames per second (a GIF cannot show frames shorter than 20 ms)."""

# ---------------------------------------------------------------- everywhere
MAX_SEED = 2**31 - 1
"""Seeds are 31-bit, as numpy's generators and the CLI take them."""
MAX_OPTIONS = 200
"""Entries of a dropdown that lists communicators or groups (the first ones; the CLI lists all)."""
