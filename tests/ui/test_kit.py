"""The UI kit: the layout pieces every page uses, and the one blank figure."""

from __future__ import annotations

import os
import time

from dash import Dash, dcc, html

from vizcoll.ui.components import kit
from vizcoll.ui.figures.common import blank_figure


def test_graphs_save_svg_named_by_their_page_and_never_link_out():
    config = kit.graph_config("vizcoll-trees")
    assert config["toImageButtonOptions"] == {"format": "svg", "filename": "vizcoll-trees"}
    assert config["showSendToCloud"] is False and config["displaylogo"] is False  # no "Share chart…", no logo link
    assert config["showEditInChartStudio"] is False and config["showLink"] is False
    assert "sendChartToCloud" in config["modeBarButtonsToRemove"]
    graph = kit.graph("trees-fk", "vizcoll-trees", style={"height": 10})
    assert isinstance(graph, dcc.Graph) and graph.id == "trees-fk" and graph.config["toImageButtonOptions"]
    assert graph.style == {"height": 10}


def test_sections_panels_and_boxes():
    folded = kit.section("Cost model", html.P("x"), open=False, id="costs")
    assert isinstance(folded, html.Details) and folded.open is False and folded.id == "costs"
    assert folded.className == "panel" and folded.children[0].children == "Cost model"
    assert kit.section("Fabric").open is True
    assert kit.panel(html.P("a"), className="player-panel").className == "panel player-panel"
    assert kit.panel().className == "panel"
    box = kit.message_box("trees-message")
    assert (box.id, box.className, box.role) == ("trees-message", "message", "status")
    status = kit.status_box("trees-flag")
    assert (status.className, status.role) == ("flag", "status")
    assert kit.info("one").children == "one" and kit.info("a", "b").children == ["a", "b"]
    assert kit.info(id="x").id == "x"


def test_controls():
    row = kit.field("k", kit.number_input("trees-k", 4, min=2))
    assert row.className == "row" and row.children[0].children == "k"
    box = row.children[1]
    assert (box.type, box.value, box.debounce, box.min) == ("number", 4, True, 2)
    choice = kit.dropdown("bar-algo", ["a", "b"], "a", disabled=True)
    assert (choice.clearable, choice.className, choice.disabled) == (False, "grow", True)
    assert kit.download_button("Download PNG", "bar-png").n_clicks == 0


def test_image_download_is_wired_on_the_app():
    app = Dash(__name__)
    kit.register_image_download(app, "bar-png", "bar-canvas", "barrier", "vizcoll-barrier")
    assert any(key.startswith("..bar-canvas.generateImage..") for key in app.callback_map)


def test_one_blank_figure():
    fig = blank_figure("Choose a group.", height=200)
    assert fig.layout.height == 200 and fig.layout.annotations[0].text == "Choose a group."
    assert fig.layout.xaxis.visible is False and fig.layout.yaxis.visible is False
    assert blank_figure().layout.height == 320
    long = blank_figure("Computed in the background: see the progress bar at the top of the page, then wait.")
    assert "<br>" in long.layout.annotations[0].text  # wrapped to fit half a page
    # the page's text joins the lines as they are: each break keeps its space ("see the message above", not
    # "see the messageabove")
    message = "No multicast group to route: see the message above."
    assert blank_figure(message).layout.annotations[0].text.replace("<br>", "") == message


def test_a_job_process_runs_below_the_web_workers_priority(tmp_path):
    import diskcache

    from vizcoll.ui.pool import JOB_NICENESS, LowPriorityJobs

    manager = LowPriorityJobs(diskcache.Cache(str(tmp_path)))
    pid = manager.call_job_fn("key", _sleep, [0.5], {})
    try:
        assert os.getpriority(os.PRIO_PROCESS, pid) == os.getpriority(os.PRIO_PROCESS, 0) + JOB_NICENESS
    finally:
        os.kill(pid, 9)


def _sleep(_key, _progress_key, args, _context):
    time.sleep(args[0])


def test_a_job_is_never_forked_while_a_thread_is_inside_the_jobs_sqlite(tmp_path):
    """A fork taken while another thread is inside SQLite copies SQLite's locks held: the job then hung forever on
    its first cache call. The fork waits for the thread to leave, and the job uses the cache."""
    import threading

    from vizcoll.ui import jobs, pool

    cache = pool.JobsCache(str(tmp_path))
    manager, order, inside = pool.LowPriorityJobs(cache), [], threading.Event()

    def busy():  # a web worker's thread in the middle of a cache call
        with pool._SQLITE:
            inside.set()
            time.sleep(0.3)
            order.append("left SQLite")

    thread = threading.Thread(target=busy)
    thread.start()
    inside.wait()
    pid = manager.call_job_fn("job", _write, [cache], {})
    order.append("forked")
    thread.join()
    assert order == ["left SQLite", "forked"] and isinstance(jobs.manager().handle, pool.JobsCache)
    deadline = time.monotonic() + 30
    while cache.get("job") is None and time.monotonic() < deadline:
        time.sleep(0.05)
    os.waitpid(pid, 0)
    assert cache.get("job") == "written by the job"  # the job's own lock was free


def test_a_job_never_closes_the_sqlite_connection_it_inherits(tmp_path):
    """Closing the parent's connection in a job hung it in sqlite3's close: the job opens its own connection and
    leaves the parent's open and untouched."""
    from vizcoll.ui import pool

    cache = pool.JobsCache(str(tmp_path))
    cache.set("parent", 1)  # this thread's connection, inherited by the fork
    parent_con = cache._local.con
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the job
        cache.set("job", 2)
        kept = any(getattr(local, "con", None) is parent_con for local in pool._INHERITED)
        os.write(write, b"kept" if kept and cache._local.con is not parent_con else b"closed")
        os._exit(0)
    os.waitpid(pid, 0)
    assert os.read(read, 16) == b"kept" and cache.get("job") == 2
    assert cache._local.con is parent_con  # the parent's own connection goes on


def _write(key, _progress_key, args, _context):
    args[0].set(key, "written by the job")  # the cache the job was forked with
