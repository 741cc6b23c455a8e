"""Excel out that never changes a ticket silently: characters XML cannot hold as Excel's ``_xHHHH_``
escapes, carriage returns kept, Excel's limits refused before scoring, the format the name says, and a
full disk or a full TMPDIR that loses nothing."""

from __future__ import annotations

import errno
import os
import zipfile

import openpyxl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from triage_gui.engine.table import NewRow, TicketTable
from triage_gui.engine.tickets import _export as export
from triage_gui.engine.tickets import _xlsx_writer as xlsx_writer
from triage_gui.engine.tickets._sheet_xml import unescape
from triage_gui.engine.tickets._workbook import sheet_rows
from triage_gui.engine.tickets._xlsx_writer import EXCEL_MAX_CELL, excel_escape, excel_problem

HOSTILE = [
    "\rleading carriage return",
    "windows\r\nline\r\nends",
    "old mac\rline\rends",
    "controls \x01\x02\x03\x04\x05\x06\x07\x08 \x0b\x0c \x0e\x0f\x10\x1f end",
    "a NUL \x00 inside",
    "not characters \ufffe \uffff",
    "lone surrogates \ud800 \udfff",
    "looks escaped _x0041_ and _x005F_ and _x000D_",
    "_x0041_x0042_",
    "tabs\tand\nnewlines",
    "emoji 😀 and ü",
    '=HYPERLINK("http://evil.example")',
    "  padded  ",
]


def table_of(texts: list[str]) -> TicketTable:
    table = TicketTable()
    table.add([NewRow({"text": t}, t) for t in texts])
    return table


def read_back_with_openpyxl(path) -> list[str]:
    """What Excel shows: openpyxl's cells, with Excel's own ``_xHHHH_`` rule applied (openpyxl keeps them)."""
    sheet = openpyxl.load_workbook(path, read_only=True).active
    return [unescape(row[0] or "") for row in sheet.iter_rows(min_row=2, values_only=True)]


def test_hostile_texts_come_back_from_openpyxl_exactly(tmp_path):
    out = tmp_path / "labelled.xlsx"
    export.write_results(out, table_of(HOSTILE), "h", False)
    assert read_back_with_openpyxl(out) == HOSTILE
    assert [v[0] for _, v in sheet_rows(out, "labelled tickets")][1:] == HOSTILE  # and from our own reader
    raw = openpyxl.load_workbook(out, read_only=True).active
    assert next(iter(raw.iter_rows(min_row=3, max_row=3, values_only=True)))[0] == "windows\r\nline\r\nends"


def test_an_escape_is_excels_own():
    assert excel_escape("a\x01b") == "a_x0001_b"
    assert excel_escape("_x0041_") == "_x005F_x0041_"
    assert excel_escape("\ud800") == "_xD800_" and excel_escape("\uffff") == "_xFFFF_"
    assert unescape("_x005F_x0041_") == "_x0041_" and unescape("_x000D_\n") == "\r\n"


TEXT = st.lists(
    st.one_of(
        st.characters(min_codepoint=0, max_codepoint=0x10FFFF, exclude_categories=()),
        st.sampled_from(["_", "x", "0", "4", "1", "D", "F", "_x", "_x005F_", "\r", "\r\n", "\ufffe", "\ud83d"]),
    ),
    min_size=1,
    max_size=30,
).map("".join)


@settings(max_examples=150, deadline=None)
@given(texts=st.lists(TEXT, min_size=1, max_size=6))
def test_any_text_round_trips_through_the_workbook(texts):
    """Every text, whatever it holds, reads back from the .xlsx exactly: through openpyxl (with Excel's
    escape rule) and through our own reader."""
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        out = os.path.join(folder, "t.xlsx")
        xlsx_writer.write_workbook(out, "S", ["text"], [[t] for t in texts], set())
        assert read_back_with_openpyxl(out) == texts
        ours = {n: v[0] for n, v in sheet_rows(out, "S")}
        assert [ours.get(i + 2, "") for i in range(len(texts))] == texts


def test_excels_limits_are_said_in_one_sentence():
    assert "1,048,576 rows are more than an Excel sheet holds (1,048,575 under the header)" in excel_problem(
        ["text"], 1_048_576, []
    )
    assert "16,400 columns are more than an Excel sheet holds (16,384)" in excel_problem(
        [f"c{i}" for i in range(16_400)], 3, []
    )
    long = "x" * (EXCEL_MAX_CELL + 1)
    assert "ticket 2 holds 32,768 characters in column 'text'" in excel_problem(["text"], 2, [("ok",), (long,)])
    assert excel_problem(["text"], 2, [("ok",), ("x" * EXCEL_MAX_CELL,)]) is None
    with pytest.raises(ValueError, match="write the results as CSV instead"):
        export.ExcelExport(table_of(["ok", long]), "h", False)


@pytest.mark.parametrize(
    "name, kind",
    [
        ("x.xlsx", "xlsx"),
        ("x.XLSX", "xlsx"),
        ("x.Xlsx", "xlsx"),
        ("x.xlsx.csv", "csv"),
        ("x.csv", "csv"),
        ("x.txt", "csv"),
        ("x", "csv"),
    ],
)
def test_the_output_format_follows_the_name(tmp_path, name, kind):
    out = tmp_path / name
    export.write_results(out, table_of(["my card was charged twice"]), "h", False)
    assert zipfile.is_zipfile(out) == (kind == "xlsx")


@pytest.mark.parametrize("name", ["x.xlsm", "x.xls", "x.XLS", "x.xlsb"])
def test_an_excel_name_we_do_not_write_is_refused(tmp_path, name):
    with pytest.raises(ValueError) as caught:
        export.check_output(str(tmp_path / name), {})
    assert "name the file .xlsx or .csv" in str(caught.value) and "\n" not in str(caught.value)
    with pytest.raises(ValueError):
        export.write_results(tmp_path / name, table_of(["a"]), "h", False)
    assert not (tmp_path / name).exists()


@pytest.mark.parametrize("name", ["old.xlsx", "old.csv"])
def test_a_full_disk_keeps_the_old_file_and_says_so(tmp_path, monkeypatch, name):
    out = tmp_path / name
    out.write_bytes(b"the old export")
    real_open = open

    class Full:
        def __init__(self, handle):
            self.handle = handle

        def write(self, data):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        def __getattr__(self, attr):
            return getattr(self.handle, attr)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.handle.close()

    def full_open(path, mode="r", *args, **kwargs):
        handle = real_open(path, mode, *args, **kwargs)
        return Full(handle) if "w" in mode and str(path).startswith(str(tmp_path)) else handle

    monkeypatch.setattr("builtins.open", full_open)
    with pytest.raises(OSError) as caught:
        export.write_results(out, table_of(["my card was charged twice"] * 50), "h", False)
    monkeypatch.undo()
    assert caught.value.errno == errno.ENOSPC
    assert out.read_bytes() == b"the old export"
    assert sorted(os.listdir(tmp_path)) == [name]  # no temporary file left beside it


def test_a_full_tmpdir_does_not_touch_the_export(tmp_path, monkeypatch):
    """openpyxl spooled each sheet to TMPDIR: a full TMPDIR damaged the output. Nothing goes there now."""
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "no-such-tmpdir"))
    out = tmp_path / "labelled.xlsx"
    export.write_results(out, table_of(HOSTILE), "h", False)
    assert read_back_with_openpyxl(out) == HOSTILE


def test_classify_refuses_what_excel_cannot_hold_before_scoring(tmp_path, monkeypatch, capsys):
    """16,400 columns or a 40,000-character ticket were scored for minutes, then written as a file Excel refuses."""
    import argparse

    from triage_gui.commands import classify as classify_module

    wide = tmp_path / "wide.csv"
    wide.write_text(",".join(["text", *[f"c{i}" for i in range(16_400)]]) + "\n" + "a ticket" + "," * 16_400 + "\n")
    long = tmp_path / "long.csv"
    long.write_text("text\n" + "x" * 40_000 + "\nshort one\n")

    def no_scoring(*args, **kwargs):
        raise AssertionError("the model was loaded: the refusal came after scoring")

    monkeypatch.setattr("triage_gui.engine.model._loader.load_model", no_scoring)
    for source, expected in ((wide, "16,409 columns"), (long, "ticket 1 holds 40,000 characters in column 'text'")):
        args = argparse.Namespace(
            file=str(source),
            column=None,
            sheet=None,
            out=str(tmp_path / "out.XLSX"),
            prompt=None,
            train=None,
            batch_size=8,
            ray=None,
            baseline=False,
        )
        with pytest.raises(ValueError) as caught:
            classify_module.run(args)
        assert expected in str(caught.value) and "write the results as CSV instead" in str(caught.value)
        assert not (tmp_path / "out.XLSX").exists()


def test_the_window_refuses_what_excel_cannot_hold_and_writes_nothing(qtbot, window, tmp_path):
    window.session.paste([NewRow({"text": t}, t) for t in ["short", "y" * 40_000]])
    qtbot.waitUntil(lambda: len(window.session.table) == 2, timeout=5000)
    out = tmp_path / "labelled.xlsx"
    assert window.ticket_actions.export(str(out)) is False
    message = window.last_message.text()
    assert "ticket 2 holds 40,000 characters in column 'text', more than an Excel cell holds (32,767)" in message
    assert "write the results as CSV instead" in message and not out.exists()
    assert window.ticket_actions.export(str(tmp_path / "labelled.xlsm")) is False
    assert "name the file .xlsx or .csv" in window.last_message.text()
    assert window.ticket_actions.export(str(tmp_path / "labelled.csv")) is True  # CSV holds it
