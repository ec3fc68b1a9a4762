"""A player's timeline exported as an animation: GIF, MP4 (H.264) or a ZIP of PNG frames.

An :class:`Animation` is what one player shows: its timeline and the figure
of any player position (the same builder, or the same cytoscape drawing and
stylesheet, as the page; see :mod:`vizcoll.ui.export.animations`). Frame
``k`` of an export is the player at position ``k`` (slider value ``k``: 0 is
the initial state, ``k`` the state after the timeline's step ``k - 1``), in
the paper theme's fonts and the app's own colours (a broken link stays red and
dashed, not the vermillion of print, which a class would take for the orange
of a message), with the animation's title on top, the page's legend under it,
the player's caption below and "step k of n" in the corner (so no two frames
are alike and a GIF keeps every one of them). A whole timeline is
``n_steps + 1`` frames.

:class:`AnimationOptions` are checked on the server (:func:`read_options`,
limits in :mod:`vizcoll.ui.limits`); :func:`export_animation` renders the
frames with kaleido in one browser session, reports ``progress(done, total)``
frame by frame and encodes them: GIF with Pillow (each frame reduced to a
256-colour palette, looping), MP4 with the ffmpeg of ``imageio-ffmpeg``
(H.264, yuv420p, which every player and slide program reads), or a ZIP of
the PNG frames with ``captions.csv`` (position, time, caption).
"""

from __future__ import annotations

import csv
import io
import os
import tempfile
import textwrap
import zipfile
from collections.abc import Callable
from dataclasses import dataclass

import plotly.graph_objects as go

from vizcoll.errors import VizcollError
from vizcoll.sim.timeline import Timeline
from vizcoll.ui.components.legend import Key, legend_traces
from vizcoll.ui.components.player import timeline_step
from vizcoll.ui.export.render import render
from vizcoll.ui.figures.paper import FONT_FAMILY, paper_figure
from vizcoll.ui.figures.style import legend_rows
from vizcoll.ui.forms import choice, number, text, whole
from vizcoll.ui.limits import (
    EXPORT_FRAME_PIXELS,
    EXPORT_MAX_FPS,
    EXPORT_MAX_FRAMES,
    EXPORT_MAX_HEIGHT,
    EXPORT_MAX_WIDTH,
    EXPORT_MIN_FPS,
    EXPORT_MIN_HEIGHT,
    EXPORT_MIN_WIDTH,
)

__all__ = [
    "Animation",
    "AnimationOptions",
    "FORMATS",
    "SIZES",
    "FRAME_MARGIN",
    "read_options",
    "read_size",
    "frame_margin",
    "frame_figure",
    "export_animation",
    "zip_entry",
]

FORMATS = {
    "gif": ("GIF (loops; slides, web pages)", "image/gif", "gif"),
    "mp4": ("MP4 video (H.264)", "video/mp4", "mp4"),
    "frames": ("ZIP of PNG frames", "application/zip", "zip"),
}
SIZES = ("1280x720", "1920x1080", "960x540", "640x360")
FRAME_MARGIN = {"l": 20, "r": 20, "t": 70, "b": 100}  # at 1280x720: room for the title and 3 caption lines
CAPTION_CHARS = 110  # characters per caption line at 1280 px
ZIP_TIME = (2020, 1, 1, 0, 0, 0)  # a fixed date in every ZIP entry: the same content gives the same bytes


@dataclass(frozen=True)
class Animation:
    """What one player shows: ``figure_at(position, width, height)`` is its figure at a slider position."""

    name: str  # the file name's stem, e.g. "vizcoll-barrier"
    title: str
    timeline: Timeline
    figure_at: Callable[[int, int, int], go.Figure]
    legend: tuple[Key, ...] = ()  # the legend the page shows beside its canvas (a Plotly figure has its own)


@dataclass(frozen=True)
class AnimationOptions:
    """Checked export options: the format, the positions ``first..last`` (inclusive), fps and frame size."""

    fmt: str = "gif"
    first: int = 0
    last: int | None = None  # None: the last position
    fps: float = 2.0
    width: int = 1280
    height: int = 720

    @property
    def positions(self) -> range:
        return range(self.first, self.last + 1)


def read_size(value) -> tuple[int, int]:
    """``"1280x720"`` as (width, height), each even and within the limits; VizcollError says what is wrong.

    >>> read_size("1280x720")
    (1280, 720)
    """
    parts = text(value).lower().replace("×", "x").split("x")
    if len(parts) != 2:
        raise VizcollError(f"size must be WIDTHxHEIGHT like 1280x720, got {text(value)[:20]!r}")
    width = whole(parts[0], "width", EXPORT_MIN_WIDTH, EXPORT_MAX_WIDTH)
    height = whole(parts[1], "height", EXPORT_MIN_HEIGHT, EXPORT_MAX_HEIGHT)
    if width % 2 or height % 2:
        raise VizcollError(f"width and height must be even (H.264 video needs it), got {width}x{height}")
    return width, height


def read_options(fmt, first, last, fps, size, n_positions: int) -> AnimationOptions:
    """The export options a page or the CLI gave, checked against a player of ``n_positions`` positions
    (``last`` empty: the last one); VizcollError names the first bad value and the limit."""
    fmt = choice(fmt, tuple(FORMATS), "format")
    top = n_positions - 1
    first = 0 if first in (None, "") else whole(first, "first step", 0, top)
    last = top if last in (None, "") else whole(last, "last step", first, top)
    fps = number(fps, "frames per second", float, EXPORT_MIN_FPS, EXPORT_MAX_FPS)
    width, height = read_size(size)
    most = min(EXPORT_MAX_FRAMES, EXPORT_FRAME_PIXELS // (width * height))
    if last - first + 1 > most:
        raise VizcollError(
            f"{last - first + 1:,} frames is more than an export of {width}x{height} may have "
            f"({most:,}): export steps {first} to {first + most - 1}, then the next ones, or a "
            "smaller size"
        )
    return AnimationOptions(fmt, first, last, fps, width, height)


def _caption_text(caption: str) -> str:
    lines = textwrap.wrap(caption, CAPTION_CHARS, max_lines=3, placeholder=" …") or [""]
    return " <br>".join(lines)


def frame_margin(height: int) -> dict:
    """:data:`FRAME_MARGIN` scaled to a frame ``height`` px high (everything in a frame scales with it)."""
    return {side: round(px * height / 720) for side, px in FRAME_MARGIN.items()}


def frame_figure(animation: Animation, position: int, width: int, height: int) -> go.Figure:
    """Frame ``position`` of ``animation``: the player's figure at that position in the paper theme, with the
    title, the player's caption and the step counter; fonts scale with the frame's height (at 1280x720 none is
    below 13.5 px, the caption 22 px)."""
    tl = animation.timeline
    step = timeline_step(position, tl.n_steps)
    zoom, margin = height / 720, frame_margin(height)
    fig = paper_figure(
        animation.figure_at(position, width, height), width, height, min_font=13.5 * zoom, app_colours=True
    )
    own_title = fig.layout.title.text
    sides = isinstance(fig.layout.meta, dict) and bool(fig.layout.meta.get("sides"))  # two drawings named above
    top = margin["t"] + (_add_legend(fig, animation.legend, width, height) if animation.legend else 0)
    margin = {**margin, "t": top + (round(30 * zoom) if sides else 0)}
    fig.update_layout(
        margin=margin,
        title={
            "text": own_title or animation.title,
            "x": 0.01,
            "xanchor": "left",
            "y": 0.98,
            "yanchor": "top",
            "font": {"size": 24 * zoom, "family": FONT_FAMILY},
        },
    )
    fig.add_annotation(
        text=_caption_text(tl.caption(step)),
        xref="paper",
        yref="paper",
        x=0,
        y=0,
        yshift=-margin["b"] + 8 * zoom,
        xanchor="left",
        yanchor="bottom",
        align="left",
        showarrow=False,
        font={"size": 22 * zoom, "family": FONT_FAMILY, "color": "#000000"},
    )
    fig.add_annotation(
        text=f"step {step + 1} of {tl.n_steps}",
        xref="paper",
        yref="paper",
        x=1,
        y=1,
        yshift=margin["t"] - 12 * zoom,
        xanchor="right",
        yanchor="top",
        showarrow=False,
        font={"size": 18 * zoom, "family": FONT_FAMILY, "color": "#333333"},
    )
    return fig


def _add_legend(fig: go.Figure, keys: tuple[Key, ...], width: int, height: int) -> int:
    """The page's legend ``keys`` in rows under the frame's title; returns the pixels it takes."""
    zoom = height / 720
    size = 16 * zoom
    for trace in legend_traces(list(keys), size=size):
        fig.add_trace(trace)
    fig.update_layout(
        showlegend=True,
        legend={
            "orientation": "h",
            "x": 0,
            "xanchor": "left",
            "yref": "container",
            "y": 1 - FRAME_MARGIN["t"] / 720,  # right under the title
            "yanchor": "top",
            "font": {"size": size, "family": FONT_FAMILY},
            "bgcolor": "rgba(255,255,255,0)",
        },
    )
    return round(legend_rows([k.label for k in keys], width, size) * 26 * zoom + 6 * zoom)


def zip_entry(name: str) -> zipfile.ZipInfo:
    """A ZIP entry with a fixed date, deflated."""
    info = zipfile.ZipInfo(name, date_time=ZIP_TIME)
    info.compress_type = zipfile.ZIP_DEFLATED
    return info


def _gif(pngs, options: AnimationOptions) -> bytes:
    from PIL import Image

    frames = [Image.open(io.BytesIO(png)).convert("RGB").quantize(256) for png in pngs]
    out = io.BytesIO()
    frames[0].save(
        out, format="GIF", save_all=True, append_images=frames[1:], loop=0, duration=max(round(1000 / options.fps), 20)
    )
    return out.getvalue()


def _mp4(pngs, options: AnimationOptions) -> bytes:
    import imageio.v2 as imageio
    import imageio.v3 as iio

    with tempfile.TemporaryDirectory(prefix="vizcoll-mp4-") as folder:
        path = os.path.join(folder, "animation.mp4")
        writer = imageio.get_writer(
            path,
            format="FFMPEG",
            fps=options.fps,
            codec="libx264",
            pixelformat="yuv420p",
            macro_block_size=2,
            ffmpeg_log_level="error",
        )
        try:
            for png in pngs:
                writer.append_data(iio.imread(png, extension=".png")[..., :3])
        finally:
            writer.close()
        with open(path, "rb") as file:
            return file.read()


def _frames_zip(pngs, animation: Animation, options: AnimationOptions) -> bytes:
    out = io.BytesIO()
    table = io.StringIO()
    rows = csv.writer(table, lineterminator="\n")
    rows.writerow(["frame", "position", "time", "caption"])
    tl = animation.timeline
    with zipfile.ZipFile(out, "w") as archive:
        for frame, (position, png) in enumerate(zip(options.positions, pngs, strict=True)):
            archive.writestr(zip_entry(f"frame-{frame:04d}.png"), png)
            step = timeline_step(position, tl.n_steps)
            rows.writerow([frame, position, tl.time_at(step), tl.caption(step)])
        archive.writestr(zip_entry("captions.csv"), table.getvalue())
    return out.getvalue()


def export_animation(
    animation: Animation, options: AnimationOptions, progress: Callable[[int, int], None] | None = None
) -> dict:
    """The animation as ``{"content": bytes, "filename", "mime", "frames"}``; ``progress(done, total)`` after
    every frame rendered."""
    total = len(options.positions)

    def pngs():
        for done, position in enumerate(options.positions, start=1):
            fig = frame_figure(animation, position, options.width, options.height)
            yield render(fig, "png", options.width, options.height)
            if progress is not None:
                progress(done, total)

    if options.fmt == "gif":
        content = _gif(list(pngs()), options)
    elif options.fmt == "mp4":
        content = _mp4(pngs(), options)
    else:
        content = _frames_zip(list(pngs()), animation, options)
    _, mime, ext = FORMATS[options.fmt]
    return {"content": content, "filename": f"{animation.name}.{ext}", "mime": mime, "frames": total}
