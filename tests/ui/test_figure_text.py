"""Figures as text (vizcoll.ui.export.alt and the "Figures as text and data" panel): each figure's sentence, each
table's numbers told, its first rows and its CSV."""

from __future__ import annotations

import csv
import io
from urllib.parse import unquote

from vizcoll.ui.components import exports
from vizcoll.ui.export.alt import MAX_CSV, ROWS, describe, table_summary
from vizcoll.ui.export.catalog import pack_of
from vizcoll.ui.export.packs import Pack, PackTable
from vizcoll.ui.store import DEFAULT_SCENARIO


def test_a_tables_numbers_are_told_with_where_the_largest_is():
    table = PackTable(
        "efi",
        "EFI per link",
        [("link_id", ""), ("link", ""), ("broken", ""), ("efi_a", "")],
        [[0, "a[1]-b[1]", 0, 2], [1, "b[2]-c[1]", 1, 8], [2, "c[2]-d[1]", 0, 5], [3, "d[2]-e[1]", 0, 1]],
    )
    assert table_summary(table) == "4 rows: 1 broken; max efi_a 8 on b[2]-c[1], 2 of 4 above 4"
    figures = PackTable("run", "", [("figure", ""), ("value", "")], [["time", 1.0625], ["messages", 18]])
    assert table_summary(figures) == "time 1.062; messages 18"  # names and values, pair by pair
    assert table_summary(PackTable("t", "", [("step", ""), ("kind", "")], [[0, "send"]])) == "1 row"


def test_every_figure_of_the_multicast_page_and_every_table_as_text():
    pack = pack_of("multicast", DEFAULT_SCENARIO)
    told = describe(pack)
    assert [f["name"] for f in told["figures"]] == [f.name for f in pack.figures]
    efi = next(t for t in told["tables"] if t["name"] == "efi-per-link")
    assert efi["summary"].startswith("48 rows: 1 broken; max efi_a 3 on ")
    assert efi["total"] == 48 and len(efi["rows"]) == ROWS
    rows = list(csv.reader(io.StringIO(efi["csv"])))
    assert rows[0] == efi["columns"] and len(rows) == 49  # the whole table, as the pack's CSV
    big = Pack("p", "P", tables=[PackTable("big", "", [("v", "")], [[k] for k in range(MAX_CSV)])])
    assert describe(big)["tables"][0]["csv"] is None  # too long for the page: in the figure pack


def test_the_panel_shows_the_sentences_and_a_csv_link():
    told = describe(pack_of("multicast", DEFAULT_SCENARIO))
    view = exports.text_view(told)
    assert [li.children[0].children for li in view[1].children] == [f["name"] for f in told["figures"]]
    table = view[-3]  # efi-per-link's disclosure
    link = table.children[2]
    assert link.download == "efi-per-link.csv"
    assert unquote(link.href.partition(",")[2]) == told["tables"][0]["csv"]
    assert exports.text_view(None) == [] and exports.text_view("junk") == []


def test_the_job_refuses_a_store_it_cannot_read():
    got = exports.text_job(lambda _p: None, "multicast", {"spec": 5})
    assert list(got) == ["message"] and got["message"].startswith("⚠")
