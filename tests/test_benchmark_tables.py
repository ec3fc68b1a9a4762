"""Every timing table of README.md and docs/**/*.md is written by the benchmark that measured it
(``benchmarks/tables.py``): none outside a marked region, and every region's command a benchmark with ``--markdown``.
Nothing is run or timed here."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks import tables

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = tables.documents()


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_timing_table_outside_a_benchmark_region(path):
    outside = tables.timing_tables(path.read_text().splitlines())
    assert outside == [], f"write these with a benchmark's --markdown in a region (benchmarks/tables.py): {outside}"


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_region_runs_a_benchmark_that_prints_markdown(path):
    for region in tables.regions(path):
        assert tables.problems(region.command) == [], str(region)
        lines = path.read_text().splitlines()[region.start + 1 : region.end]
        assert any(line.strip().startswith("Measured on ") or "Typed by hand" in line for line in lines), str(region)


def test_the_benchmarks_page_has_regions_and_the_readme_keeps_its_two_commands_first():
    assert tables.regions(ROOT / "docs" / "benchmarks.md")
    head = (ROOT / "README.md").read_text().splitlines()[:10]
    assert "python3 -m pip install -r requirements.txt && python3 app.py" in head and "bash scripts/test.sh" in head


TEXT = """Intro.

| fabric | switches |
| --- | ---: |
| torus | 12,000 |

| page | cold | warm |
| --- | ---: | ---: |
| /trees | 1.2 s | 40 ms |

| fabric | build |
| --- | ---: |
| torus | 1.49 s |

<!-- benchmark: python benchmarks/build_fabrics.py --markdown -->
| fabric | total |
| --- | ---: |
| torus | 1.56 s |

Measured on 2026-12-06 at commit abc1234 on a machine by `python benchmarks/build_fabrics.py --markdown`.
<!-- /benchmark -->

| what | run_s |
|:---|---:|
| x | 3 |
"""


def test_a_table_holds_times_when_its_header_names_them_or_a_cell_is_a_duration():
    found = tables.timing_tables(TEXT.splitlines())
    assert found == [(7, "| page | cold | warm |"), (11, "| fabric | build |"), (23, "| what | run_s |")]


def test_a_region_is_rewritten_in_place_with_its_markers_and_its_indentation(tmp_path):
    path = tmp_path / "doc.md"
    path.write_text(TEXT.replace("<!--", "  <!--"))
    (region,) = tables.regions(path)
    assert (region.start, region.end, region.command) == (14, 20, "python benchmarks/build_fabrics.py --markdown")
    lines = tables.replaced(path.read_text().splitlines(), region, "| a | b |\n| --- | --- |\n\nMeasured on today.\n")
    assert lines[14:20] == [
        "  <!-- benchmark: python benchmarks/build_fabrics.py --markdown -->",
        "  | a | b |",
        "  | --- | --- |",
        "",
        "  Measured on today.",
        "  <!-- /benchmark -->",
    ]
    assert lines[:14] == TEXT.splitlines()[:14] and lines[20:] == TEXT.splitlines()[21:]


def test_an_unclosed_or_nested_region_is_an_error(tmp_path):
    path = tmp_path / "doc.md"
    path.write_text("<!-- benchmark: python benchmarks/pages.py --markdown -->\n| a |\n")
    with pytest.raises(ValueError, match="never closed"):
        tables.regions(path)
    path.write_text("<!-- /benchmark -->\n")
    with pytest.raises(ValueError, match="without its start"):
        tables.regions(path)


@pytest.mark.parametrize(
    ("command", "wrong"),
    [
        ("python benchmarks/build_fabrics.py --markdown", None),
        ("python3 benchmarks/pages.py --repeat 3 --markdown", None),
        ("python benchmarks/build_fabrics.py", "does not ask for --markdown"),
        ("python benchmarks/fresh.py --markdown", "has no --markdown option"),
        ("python benchmarks/nothing.py --markdown", "does not exist"),
        ("python -m vizcoll tree --markdown", "is not `python benchmarks/NAME.py"),
        ("bash scripts/test.sh", "is not `python benchmarks/NAME.py"),
    ],
)
def test_a_region_command_must_be_a_benchmark_that_accepts_markdown(command, wrong):
    found = tables.problems(command)
    assert (found == []) if wrong is None else any(wrong in p for p in found), found
