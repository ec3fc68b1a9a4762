"""The pages' export controls (called directly, as the background job runs them) and the CLI's two commands."""

from __future__ import annotations

import base64
import io
import json
import subprocess
import sys
import zipfile

import imageio.v3 as iio
import pytest
from dash import no_update

from tests.callback_context import find_component
from vizcoll.cli import main
from vizcoll.ui.components.exports import ExportRequest, animation_job, pack_job
from vizcoll.ui.export.names import pack_pages, player_pages
from vizcoll.ui.export.names import players as names_of
from vizcoll.ui.pages.barrier import page as barrier
from vizcoll.ui.pages.erasure import page as erasure
from vizcoll.ui.pages.faults import page as faults
from vizcoll.ui.pages.multicast import page as multicast
from vizcoll.ui.pages.schedules import page as schedules
from vizcoll.ui.pages.schedules._model import example_goal
from vizcoll.ui.pages.topology import page as topology
from vizcoll.ui.pages.trees import page as trees
from vizcoll.ui.store import DEFAULT_SCENARIO

PAGES = {
    "topology": (topology, ["topo-player"], "topo-pack"),
    "trees": (trees, ["trees-player", "trees-cmp"], "trees-pack"),
    "multicast": (multicast, ["mc-player", "mc-cmp"], "mc-pack"),
    "barrier": (barrier, ["bar-player", "bar-cmp"], "bar-pack"),
    "faults": (faults, ["ft-red-player", "ft-treft-player"], "ft-pack"),
    "erasure": (erasure, [], "era-pack"),
    "schedules": (schedules, ["sched-player"], "sched-pack"),
}


class Progress:
    def __init__(self):
        self.calls = []

    def __call__(self, value):
        self.calls.append(value)


@pytest.mark.parametrize("page", pack_pages())
def test_every_page_shows_its_figure_pack_and_an_export_under_each_player(page):
    module, players, pack = PAGES[page]
    layout = module.body(DEFAULT_SCENARIO)
    assert find_component(layout, f"{pack}-button").children == "Download figure pack"
    for part in ("file", "message", "job", "cancel", "progress"):
        assert find_component(layout, f"{pack}-{part}") is not None
    for player in players:
        assert find_component(layout, f"{player}-export").children[0].children == "Export animation"
        for part in (
            "format",
            "first",
            "last",
            "fps",
            "size",
            "button",
            "file",
            "message",
            "job",
            "cancel",
            "progress",
        ):
            assert find_component(layout, f"{player}-export-{part}") is not None, (player, part)
    assert len(players) == len(names_of(page))


def test_every_export_is_wired_as_a_background_job():
    from app import create_app

    callbacks = create_app().callback_map
    for page, (_, players, pack) in PAGES.items():
        outputs = [key for key in callbacks if f"{pack}-file.data" in key]
        assert len(outputs) == 1 and callbacks[outputs[0]].get("background"), page
        for player in players:
            outputs = [key for key in callbacks if f"{player}-export-file.data" in key]
            assert len(outputs) == 1 and callbacks[outputs[0]].get("background"), player


def job(run, *args) -> tuple:
    """(the download, the line) of export job ``run`` (no_update for a download it does not send)."""
    answer = run(*args)
    assert set(answer) <= {"file", "message"}
    return answer.get("file", no_update), answer["message"]


def test_the_animation_job_sends_the_gif_and_says_what_it_made():
    progress = Progress()
    request = ExportRequest("gif", 0, 3, 2, "640x360")
    data, message = job(animation_job, progress, "barrier", None, request, DEFAULT_SCENARIO.to_dict())
    assert data["filename"] == "vizcoll-barrier.gif" and data["base64"] is True
    assert data["type"] == "image/gif"
    frames = iio.imread(base64.b64decode(data["content"]), index=None, extension=".gif")
    assert frames.shape[0] == 4
    assert message.startswith("vizcoll-barrier.gif: 4 frames (steps 0 to 3)")
    assert progress.calls[0] == (0, 4, "Rendering 4 frames…") and progress.calls[-1] == (4, 4, "4 of 4 frames")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("gif", 0, 3, 2, "640x361"), "⚠ width and height must be even"),
        (("gif", 0, 1000, 2, "640x360"), "⚠ last step must be between 0 and 72"),
        (("svg", 0, 3, 2, "640x360"), "⚠ unknown format 'svg'"),
    ],
)
def test_the_animation_job_refuses_bad_options_with_a_message(args, message):
    data, said = job(animation_job, Progress(), "barrier", None, ExportRequest(*args), DEFAULT_SCENARIO.to_dict())
    assert data is no_update and said.startswith(message)


def test_the_export_jobs_read_the_store_as_untrusted():
    forged = {"schema": "vizcoll.scenario/2", "fabric": {"spec": "/etc/passwd"}}
    request = ExportRequest("gif", 0, 1, 2, "640x360")
    data, message = job(animation_job, Progress(), "topology", None, request, forged)
    assert data is no_update and message.startswith("⚠ The scenario could not be read")
    data, message = job(pack_job, Progress(), "topology", forged)
    assert data is no_update and message.startswith("⚠ The scenario could not be read")
    data, message = job(animation_job, Progress(), "schedules", None, request, DEFAULT_SCENARIO.to_dict(), {"text": 5})
    assert message == "⚠ the browser sent a malformed GOAL file: open it again"
    data, message = job(
        animation_job, Progress(), "faults", "reduction", request, DEFAULT_SCENARIO.to_dict(), {"procs": 10**9}
    )
    assert isinstance(data, dict)  # a forged parameter store: the scenario's parameters instead


def test_the_pack_job_sends_the_zip():
    data, message = job(pack_job, Progress(), "schedules", DEFAULT_SCENARIO.to_dict(), example_goal(DEFAULT_SCENARIO))
    archive = zipfile.ZipFile(io.BytesIO(base64.b64decode(data["content"])))
    assert data["filename"] == "vizcoll-schedules-figures.zip"
    assert "figures/finish-times.svg" in archive.namelist()
    assert message.startswith("vizcoll-schedules-figures.zip: ")
    assert pack_job(Progress(), "schedules", DEFAULT_SCENARIO.to_dict()) == {
        "message": "⚠ open a GOAL file first (or the example): the page has none"
    }


# ---------------------------------------------------------------- the CLI
def run(capsys, *argv) -> dict:
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize(("page", "player"), [(p, name) for p in player_pages() for name in names_of(p)])
def test_animate_exports_every_player_from_the_default_scenario(tmp_path, capsys, page, player):
    out = tmp_path / "a.gif"
    extra = ["--group", "1"] if page == "multicast" else []
    result = run(
        capsys,
        "animate",
        "--page",
        page,
        "--player",
        player,
        "--last",
        "1",
        "--size",
        "640x360",
        "-o",
        str(out),
        *extra,
    )
    assert result["frames"] == 2 and result["file"] == str(out) and result["steps"] > 1
    assert iio.imread(out.read_bytes(), index=None, extension=".gif").shape[:3] == (2, 360, 640)


def test_animate_writes_mp4_and_frames_and_reads_a_scenario_file(tmp_path, capsys):
    scenario = tmp_path / "s.json"
    scenario.write_text(DEFAULT_SCENARIO.with_params("topology", {"root": "h5"}).dumps())
    result = run(
        capsys,
        "animate",
        "--page",
        "topology",
        "--scenario",
        str(scenario),
        "--format",
        "mp4",
        "--size",
        "640x360",
        "-o",
        str(tmp_path / "b.mp4"),
    )
    assert result["frames"] == result["steps"] + 1 and (tmp_path / "b.mp4").read_bytes()[4:8] == b"ftyp"
    result = run(
        capsys,
        "animate",
        "--page",
        "topology",
        "--scenario",
        str(scenario),
        "--format",
        "frames",
        "--last",
        "1",
        "--size",
        "640x360",
        "-o",
        str(tmp_path / "f.zip"),
    )
    captions = zipfile.ZipFile(tmp_path / "f.zip").read("captions.csv").decode().splitlines()
    assert result["frames"] == 2 and "h5" in captions[1]  # the initial state's caption names the root


def test_figures_writes_the_pages_pack(tmp_path, capsys):
    goal = tmp_path / "b.goal"
    goal.write_text(example_goal(DEFAULT_SCENARIO)["text"])
    result = run(capsys, "figures", "--page", "schedules", "--goal", str(goal), "-o", str(tmp_path / "p.zip"))
    assert zipfile.ZipFile(tmp_path / "p.zip").namelist() == result["files"]
    assert "b.goal" in zipfile.ZipFile(tmp_path / "p.zip").read("README.txt").decode()


def test_cli_errors_are_one_line(tmp_path, capsys):
    assert main(["animate", "--page", "multicast", "--group", "99", "-o", str(tmp_path / "x.gif")]) == 2
    assert capsys.readouterr().err == "vizcoll: error: group 99 does not exist: the scenario has 8 (0–7)\n"
    assert main(["animate", "--page", "barrier", "--fps", "100"]) == 2
    assert "frames per second must be at most 30" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["figures", "--page", "nowhere"])


def test_the_cli_loads_no_dash_to_list_its_commands():
    code = (
        "import sys\nfrom vizcoll.cli import build_parser\nbuild_parser()\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dash', 'plotly', 'kaleido')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
