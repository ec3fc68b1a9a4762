"""The help page's content (``page`` lays it out): a guide to each page, its examples as links, the files vizcoll
reads and the keys it answers.

Whatever the code already holds is read from it, so the guide cannot drift from the app: the examples are what
each page module's ``examples()`` gives (its own presets: Topology's example fabrics, the trees' and multicast's
quick presets, the barrier's grid) and the shipped lessons (:func:`vizcoll.lessons.shipped`), each opened as a
share link (``/trees#s=...``, the scenario it makes) or as ``/lessons/present?lesson=NAME``; the file formats
are :func:`vizcoll.topology.formats.readable`; the keys are the titles of the player's buttons
(:data:`~vizcoll.ui.components.player.BUTTONS`) and of undo and redo
(:func:`~vizcoll.ui.components.history.history_controls`). What only prose can say (what a page shows, its main
controls) is in :data:`GUIDES`, with control names between backquotes (tests check each against the page's layout)
and papers by their key of ``docs/papers.md`` (:data:`PAPERS`, its table's words; tests check them against that
file and the engine's ``References:``).

Design choices (the issue is silent): an example link *replaces* the shared scenario, as a preset does (the page
says so, and that "Download scenario" keeps yours); paper-scale presets are listed too, labelled as their menus
label them; a lesson is linked from the page its steps show, opened on the first of those steps.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from vizcoll.lessons import load_shipped, shipped
from vizcoll.scenario import Scenario
from vizcoll.topology import formats
from vizcoll.ui.components.history import history_controls
from vizcoll.ui.components.player import BUTTONS
from vizcoll.ui.limits import MAX_UPLOAD_BYTES

__all__ = [
    "Guide",
    "GUIDES",
    "PAPERS",
    "EVERY_PAGE",
    "PRESENTER_KEYS",
    "controls",
    "example_links",
    "lesson_links",
    "file_formats",
    "player_keys",
    "scenario_keys",
    "present_href",
    "UPLOAD_LIMIT",
]


@dataclass(frozen=True)
class Guide:
    """One page's guide: what it shows, the keys of the papers it reproduces, its main interactions."""

    shows: str
    papers: tuple[str, ...]
    does: tuple[str, ...]
    no_paper: str = ""
    """What the page says in place of papers when it reproduces none."""


PAPERS = {
    "AGGT24": (
        "Chen Shuping et al., aggregation trees for hardware-supported collectives (Sunway)",
        "J. Computer Research and Development, 2024",
    ),
    "FULB22": (
        "Chen Shuping et al., FULB-MC load-balanced multicast routing for InfiniBand",
        "Computer Engineering and Applications, 2022",
    ),
    "DLCT19": (
        "Xiang Zhehui et al., DLCT barrier with an adjustable communication pattern",
        "J. Frontiers of Computer Science and Technology, 2019",
    ),
    "FTRED18": (
        "Li Chao et al., task-parallel fault-tolerant distributed reduction",
        "J. Beijing University of Aeronautics and Astronautics, 2018",
    ),
    "TREFT15": (
        "Li Xin, Lin Yufei, Guo Xiaowei, TREFT triple-modular eager fault tolerance",
        "Computer Engineering & Science, 2015",
    ),
    "FMEL23": (
        "Bao Han, Wang Yijie, FMEL erasure codes with small cross-DC repair traffic",
        "J. Computer Research and Development, 2023",
    ),
    "LOGGOPSIM10": ("Hoefler, Schneider, Lumsdaine, LogGOPSim", "HPDC 2010"),
    "LOGGP95": ("Alexandrov, Ionescu, Schauser, Scheiman, LogGP", "SPAA 1995"),
}
"""(paper, venue) by key, as the table of ``docs/papers.md`` words them (the file is not shipped with the app)."""

EVERY_PAGE = (
    "Every page looks at one shared scenario: the fabric, its broken links and the communicators, shown in the "
    "bar under the navigation (each break with its `repair` button); `↶ Undo` and `↷ Redo` step through its changes.",
    "`Link to this view` is an address that reopens exactly this view; `Download scenario` and "
    "`Open scenario…` save and load it as a file.",
    "A player (▶) steps through every run: speeds up to 16×, `pause at key moments`, and `Export animation` "
    "(GIF, MP4 or PNG frames) under it; `Describe the figures` tells each figure as text and tables.",
)
"""What every page has (control names between backquotes)."""

GUIDES = {
    "/topology": Guide(
        "The fabric every page shares, drawn node by node (a large one as an overview of blocks): its switches, "
        "end nodes and links, the communicators in colour, and a broadcast from a root along shortest paths.",
        (),
        (
            "Choose an example fabric in the fabric menu, or type a spec and press `Generate` (Enter in the spec "
            "box does too).",
            "Drop your cluster's file on `choose a topology file` (the formats are listed below).",
            "Click a link to break it, again to repair it, or find it under `Links and nodes by name`.",
            "Type a pattern such as grid2d:4x4 and press `Apply`, or drop an MPI hostfile on "
            "`choose a communicators file`.",
            "`Export topology`, `Download PNG`, `Download SVG` and `Download figure pack` save the fabric.",
        ),
        "none of its own: it builds the fabric on which the other pages reproduce theirs.",
    ),
    "/trees": Guide(
        "Aggregation trees for a communicator of the scenario (k-ary, k-nomial, Zhao et al.'s, hierarchical "
        "k-nomial): their cost under the paper's model, type I against type II, their links on the fabric, and "
        "the aggregation played step by step.",
        ("AGGT24",),
        (
            "Choose one of the `Quick presets` and press `Replace the scenario with this preset`.",
            "Set the tree `kind`, `k (width / base)` and the `Cost model (paper defaults)`; every change applies "
            "at once.",
            "Side by side: `compare with` plays another tree kind beside the animated tree, on one clock.",
            "`Download figure pack` for a paper; `Download GOAL` writes the tree as a LogGOPSim schedule.",
        ),
    ),
    "/multicast": Guide(
        "The communicators routed as InfiniBand multicast groups by two algorithms, A and B (MINIHOP-MC, "
        "SSSP-MC, FULB-MC…), each link coloured by its edge forwarding index (EFI), and the join / leave "
        "protocol of one group.",
        ("FULB22",),
        (
            "Choose a `Quick preset` and press `Use this preset`.",
            "Choose `algorithm A` and `algorithm B`; click a link of a drawing to break it.",
            "Side by side: `compare with` routes the groups one by one under A and B, on one clock, and says "
            "where they part.",
            "Drop OpenSM's dump on `Load the fabric's multicast tables (opensm.mcfdbs)` to see your fabric's "
            "own routes.",
        ),
    ),
    "/barrier": Guide(
        "A barrier's Gather and Release messages, hop by hop, around broken links: MS, Tree, Tournament, "
        "Dissemination and DLCT, which adjusts its pattern to the breaks; LCT against BST (Fig. 3) and the run "
        "times of every algorithm (Fig. 6 and 7).",
        ("DLCT19",),
        (
            "`Use this grid` makes the fabric a grid (DLCT needs one); `Break at random` or click links to "
            "break them, `Repair all` to mend them.",
            "Choose the `algorithm`; `compare with` plays a second algorithm beside it, under one player.",
            "`Download GOAL` writes the barrier as a LogGOPSim schedule.",
        ),
    ),
    "/faults": Guide(
        "Two fault-tolerance mechanisms replayed step by step: the task-based reduction (a master pairs ready "
        "workers into tasks; a lost worker's tasks are done again) and TREFT (three replicas, a soft error, the "
        "2-of-3 vote and the correction).",
        ("FTRED18", "TREFT15"),
        (
            "Choose a `fault` at one of the paper's three places, or `kill the worker I click, at the shown step`.",
            "TREFT: choose the `workflow`, the `variant` and where the error strikes (`soft error on`, "
            "`after kernel`).",
            "`Download GOAL` writes the static reduction (binomial, MST or Rabenseifner) as a LogGOPSim schedule.",
        ),
    ),
    "/erasure": Guide(
        "A stripe of k data blocks coded into n blocks over N data centres: each block's minimum cross-DC repair "
        "group, what survives DC failures, and every code family (Reed–Solomon, Azure LRC, replication, FMEL) "
        "beside the paper's Table 2.",
        ("FMEL23",),
        (
            "Set `n (coded blocks)`, `k (data blocks)`, `N (data centres)` and the `code`.",
            "Click a block for its repair group (remote reads in red); click a DC's square to fail it, "
            "`Restore every DC` to bring them back.",
            "`count cross-DC traffic as` every remote block read or one combined block per remote DC.",
        ),
    ),
    "/schedules": Guide(
        "A GOAL file (LogGOPSim's schedules) checked for problems, timed with the LogGP model as LogGOPSim times "
        "it, and replayed on the scenario's fabric: rank r runs where the scenario places process r.",
        ("LOGGOPSIM10", "LOGGP95"),
        (
            "Drop a file on `choose a GOAL file`, or press `Open an example: dissemination barrier`.",
            "Set the `LogGP parameters (LogGOPSim's defaults)`; Trees, Barrier and Fault replays write GOAL files "
            "to open here.",
        ),
    ),
    "/lessons": Guide(
        "Lessons: views of the app in order, each with its narration and speaker notes, presented at a "
        "projector with the page live beside the narration (break a link mid-lesson, then go on). One ships for "
        "each paper; your own are kept in this browser.",
        (),
        (
            "Open a lesson below to present it; → and ← (a clicker's Page Down and Page Up) step through it.",
            "`Speaker notes` opens the notes in a second window, which follows the presenter.",
            "`Add this view to the lesson`, in the bar of every page, adds the view to your own lesson; "
            "`Open a lesson file…` loads one.",
        ),
        "one lesson for each paper of the other pages (below).",
    ),
}
"""The guide of each page of the navbar, by path (tests check that each has one)."""

PRESENTER_KEYS = (
    (("→", "Page Down"), "the next key moment of the step's player, then the next step"),
    (("←", "Page Up"), "back the same way"),
    (("N", "P"), "the next / previous step at once"),
    (("Home", "End"), "the first / last step"),
)
"""The presenter's keys (``assets/lesson.js``; tests check each key there)."""
_KEY_IN_TITLE = re.compile(r"^(.*) \((.+)\)$")  # a player button's title: "first step (Home)"


def controls(text: str) -> list[str]:
    """The control names of a guide's sentence (between backquotes).

    >>> controls("Press `Use this grid`, then `Repair all`.")
    ['Use this grid', 'Repair all']
    """
    return text.split("`")[1::2]


def present_href(name: str, step: int | None = None) -> str:
    """The presenter's link of shipped lesson ``name`` (on its ``step``, from 1)."""
    return f"/lessons/present?lesson={name}" + (f"&step={step}" if step else "")


def example_links(path: str, found: list[tuple[str, Scenario]]) -> list[tuple[str, str]]:
    """(label, link) of the examples ``found`` of the page at ``path`` (its ``examples()``: (label, scenario) each):
    each link opens the page on its scenario, which replaces the shared one, as the page's preset button does."""
    return [(label, f"{path}#s={scenario.to_fragment()}") for label, scenario in found]


def lesson_links(path: str) -> list[tuple[str, str]]:
    """(title, presenter link) of every shipped lesson with a step on the page at ``path`` (every lesson for
    ``/lessons``), opened on its first step there."""
    found = []
    for name in shipped():
        lesson = load_shipped(name)
        steps = [k for k, step in enumerate(lesson.steps, 1) if step.page == path or path == "/lessons"]
        if steps:
            found.append((lesson.title, present_href(name, steps[0] if steps[0] > 1 else None)))
    return found


def file_formats() -> list[tuple[str, str]]:
    """(name and extensions, what it is) of every fabric format vizcoll reads, in the order it tries them."""
    return [tuple(formats.describe(fmt, with_extensions=True).split(": ", 1)) for fmt in formats.readable()]


def _keys_of(buttons) -> list[tuple[str, str]]:
    """(key, what it does) of each (label, title) whose title ends with its key: ``"first step (Home)"``."""
    keys = []
    for label, title in buttons:
        found = _KEY_IN_TITLE.match(title)
        if found:
            keys.append((found.group(2), f"{found.group(1)} ({label})"))
    return keys


def player_keys() -> list[tuple[str, str]]:
    """(key, what it does) of each player button that has a key, in the buttons' order."""
    return _keys_of((label, title) for _, label, title in BUTTONS)


def scenario_keys() -> list[tuple[str, str]]:
    """(key, what it does) of the scenario's undo and redo buttons (the bar of every page)."""
    buttons = [c for c in history_controls() if isinstance(getattr(c, "title", None), str)]
    return _keys_of((button.children, button.title) for button in buttons)


UPLOAD_LIMIT = f"{MAX_UPLOAD_BYTES / 2**20:.0f} MB"
"""The largest file an upload box takes, as the boxes say it."""
