"""The export: exactly the current file's columns in its order, then ours; Excel out with text that
stays text (a ticket that reads like a formula is never one), written atomically."""

from __future__ import annotations

import csv
import io
import os
import zipfile

import openpyxl
import pytest
from qt_helpers import drop_files

from triage_gui.engine.table import NewRow, TicketScore, TicketTable
from triage_gui.engine.tickets import _export as export
from triage_gui.engine.tickets._export import RESULT_COLUMNS

FORMULA_LIKE = ['=HYPERLINK("http://evil.example","click")', "+49 30 1234567", "-5 EUR refund", "@admin help", "#N/A"]


def table_of(texts: list[str], other: list[str]) -> TicketTable:
    table = TicketTable()
    table.add([NewRow({"id": o, "text": t}, t) for t, o in zip(texts, other)])
    table.start_version(0, ["billing", "technical", "account"], [0, 0, 0])
    table.apply([0], [TicketScore("billing", 0.9, [0.9, 0.05, 0.05], [-0.1, -3.0, -3.0], 12.0)], 0)
    return table


def header_of(path) -> list[str]:
    if str(path).endswith(".xlsx"):
        book = openpyxl.load_workbook(path, read_only=True)
        return [c for c in next(book.active.iter_rows(values_only=True))]
    return next(csv.reader(io.StringIO(path.read_text(encoding="utf-8"))))


def test_formula_like_cells_stay_strings_in_the_workbook(tmp_path):
    out = tmp_path / "labelled.xlsx"
    table = table_of(FORMULA_LIKE, ["=1+1", "007", "@x", "-0", "+"])
    assert export.write_results(out, table, "h", False) == 1
    book = openpyxl.load_workbook(out)  # not data_only: a formula would come back as its formula
    rows = list(book.active.iter_rows(min_row=2))
    assert [(r[0].value, r[0].data_type) for r in rows] == [(v, "s") for v in ["=1+1", "007", "@x", "-0", "+"]]
    assert [(r[1].value, r[1].data_type) for r in rows] == [(text, "s") for text in FORMULA_LIKE]
    assert rows[0][3].value == pytest.approx(0.9, abs=1e-3) and rows[0][3].data_type == "n"  # confidence
    sheet_xml = zipfile.ZipFile(out).read("xl/worksheets/sheet1.xml").decode()
    assert "<f>" not in sheet_xml and "<f " not in sheet_xml and 't="e"' not in sheet_xml
    reasons = [r[8].value for r in rows]
    assert reasons == [None, *["not labelled yet"] * 4]  # every row comes back, with why it has no label


def test_the_csv_export_keeps_formula_like_text_exact(tmp_path):
    out = tmp_path / "labelled.csv"
    export.write_results(out, table_of(FORMULA_LIKE, ["1"] * 5), "h", False)
    rows = list(csv.DictReader(io.StringIO(out.read_text(encoding="utf-8"))))
    assert [r["text"] for r in rows] == FORMULA_LIKE  # data, unmangled (README: opening it in Excel)


def test_the_workbook_is_written_atomically_with_the_old_files_mode(tmp_path, monkeypatch):
    out = tmp_path / "labelled.xlsx"
    out.write_bytes(b"the previous export")
    os.chmod(out, 0o640)
    real_row = export.result_row
    calls = {"n": 0}

    def failing_row(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 3:
            raise OSError("disk full")
        return real_row(*args, **kwargs)

    monkeypatch.setattr(export, "result_row", failing_row)
    with pytest.raises(OSError, match="disk full"):
        export.write_results(out, table_of(FORMULA_LIKE, ["1"] * 5), "h", False)
    assert out.read_bytes() == b"the previous export" and [p.name for p in tmp_path.iterdir()] == [out.name]
    monkeypatch.setattr(export, "result_row", real_row)
    export.write_results(out, table_of(FORMULA_LIKE, ["1"] * 5), "h", False)
    assert zipfile.is_zipfile(out) and (os.stat(out).st_mode & 0o777) == 0o640
    assert [p.name for p in tmp_path.iterdir()] == [out.name]


# ------------------------------------------------------------------ the window


def write_csv(path, rows):
    with open(path, "w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows(rows)
    return path


@pytest.fixture
def files(tmp_path):
    a = write_csv(
        tmp_path / "a.csv",
        [["team", "id", "queue"], *[["emea", str(i), f"my card was declined at the shop, case {i}"] for i in range(4)]],
    )
    b = write_csv(tmp_path / "b.csv", [["text", "intent"], ["refund my order please", "refund"], ["app crash", "bug"]])
    return a, b


def export_from(qtbot, window, path) -> None:
    """Export and wait until it is written: a workbook is written on the file thread."""
    assert window.ticket_actions.export(str(path))
    qtbot.waitUntil(lambda: window.statusBar().currentMessage().startswith("Exported"), timeout=10_000)


def settled(qtbot, window, n: int) -> None:
    session = window.session
    qtbot.waitUntil(lambda: not session.reading and len(session.table) == n and not session.busy, timeout=10_000)


@pytest.mark.parametrize("how", ["clear", "replace"])
@pytest.mark.parametrize("suffix", [".csv", ".xlsx"])
def test_after_clear_or_replace_the_export_has_the_new_files_columns_only(
    qtbot, window, files, tmp_path, monkeypatch, how, suffix
):
    from triage_gui.gui import dialogs

    a, b = files
    drop_files(window, [a])
    settled(qtbot, window, 4)
    if how == "clear":
        from PySide6.QtWidgets import QMessageBox

        monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Yes)  # it asks
        window.ticket_actions.clear()
    else:
        monkeypatch.setattr(dialogs, "replace_or_add", lambda *args: True)
    drop_files(window, [b])
    settled(qtbot, window, 2)
    out = tmp_path / f"out{suffix}"
    export_from(qtbot, window, out)
    assert header_of(out) == ["text", "intent", *RESULT_COLUMNS, "language"]  # B's columns, B's order: none of A's


def test_an_added_file_puts_its_new_columns_after_the_loaded_ones(qtbot, window, files, tmp_path, monkeypatch):
    from triage_gui.gui import dialogs

    a, b = files
    drop_files(window, [a])
    settled(qtbot, window, 4)
    monkeypatch.setattr(dialogs, "replace_or_add", lambda *args: False)
    drop_files(window, [b])
    settled(qtbot, window, 6)
    out = tmp_path / "out.csv"
    export_from(qtbot, window, out)
    rows = list(csv.reader(io.StringIO(out.read_text(encoding="utf-8"))))
    assert rows[0] == ["team", "id", "queue", "text", "intent", *RESULT_COLUMNS, "language"]  # the union, in order
    assert len(rows) == 7 and rows[5][:5] == ["", "", "", "refund my order please", "refund"]


def test_the_export_dialog_offers_excel_and_a_bare_name_takes_the_chosen_filter(
    qtbot, window, files, tmp_path, monkeypatch
):
    from PySide6.QtWidgets import QFileDialog

    drop_files(window, [files[1]])
    settled(qtbot, window, 2)
    offered = []

    def save_as(parent, caption, start, filters, selected):
        offered.append((start, filters, selected))
        return str(tmp_path / "labelled"), "Excel workbooks (*.xlsx)"

    monkeypatch.setattr(QFileDialog, "getSaveFileName", save_as)
    window.ticket_actions.export_dialog()
    qtbot.waitUntil(lambda: window.statusBar().currentMessage().startswith("Exported"), timeout=10_000)
    assert "Excel workbooks (*.xlsx)" in offered[0][1] and "CSV files (*.csv)" in offered[0][1]
    assert offered[0][0].endswith("b-labelled.csv") and offered[0][2] == "CSV files (*.csv)"
    assert zipfile.is_zipfile(tmp_path / "labelled.xlsx")
    assert header_of(tmp_path / "labelled.xlsx") == ["text", "intent", *RESULT_COLUMNS, "language"]


def test_the_window_writes_a_workbook_off_the_gui_thread(qtbot, window, files, tmp_path, monkeypatch):
    """Writing a workbook takes ~70 µs a row (7 s for 100,000): on the GUI thread it froze the window."""
    import threading

    drop_files(window, [files[0]])
    settled(qtbot, window, 4)
    threads = []
    real = export.write_workbook
    monkeypatch.setattr(export, "write_workbook", lambda *a: threads.append(threading.current_thread()) or real(*a))
    export_from(qtbot, window, tmp_path / "out.xlsx")
    assert threads and threads[0] is not threading.main_thread()
    assert header_of(tmp_path / "out.xlsx") == ["team", "id", "queue", *RESULT_COLUMNS, "language"]
