"""The figure pack of a page (its builder in :data:`vizcoll.ui.export.names.REGISTRY`) and the one call a page or the
CLI makes: :func:`pack_file`."""

from __future__ import annotations

from collections.abc import Callable

from vizcoll.errors import VizcollError
from vizcoll.scenario import Scenario
from vizcoll.ui.export.names import REGISTRY, builder, pack_pages
from vizcoll.ui.export.packs import Pack, figure_pack, pack_files

__all__ = ["pack_of", "pack_file"]


def pack_of(page: str, scenario: Scenario, extra=None, progress=None) -> Pack:
    """What ``page``'s figure pack holds for ``scenario`` (``extra``: what the page knows besides it)."""
    if page not in pack_pages():
        raise VizcollError(f"no figure pack for page {str(page)[:20]!r}; pages: {', '.join(pack_pages())}")
    return builder(REGISTRY[page].pack)(scenario, extra, progress)


def pack_file(
    page: str,
    scenario: Scenario,
    extra=None,
    progress: Callable[[int, int], None] | None = None,
    drawing: Callable[[int, int], None] | None = None,
) -> dict:
    """``page``'s figure pack as ``{"content": ZIP bytes, "filename", "files"}`` (``files``: the ZIP's entries);
    ``progress(done, total)`` as the page's long computations (a sweep, a code search) advance, then
    ``drawing(done, total)`` (default: ``progress``) figure by figure."""
    pack = pack_of(page, scenario, extra, progress)
    return {
        "content": figure_pack(pack, scenario, drawing or progress),
        "filename": f"vizcoll-{page}-figures.zip",
        "files": pack_files(pack),
    }
