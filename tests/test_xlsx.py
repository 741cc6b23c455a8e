"""Excel workbooks in: the same records as the same data in a CSV, streamed, the sheet asked when there
are several, bad workbooks refused in one sentence; and the window checks a file before it asks."""

from __future__ import annotations

import csv
import datetime
import zipfile

import openpyxl
import pytest
from openpyxl.styles import Font

from triage_gui.engine.prompt import gold_column
from triage_gui.engine.tickets import TicketFileError, check_file, open_tickets
from triage_gui.engine.tickets._workbook import cell_text

ROWS = [
    ["id", "text", "queue", "created", "amount"],
    [1, "My card was charged twice for one coffee", "billing", datetime.datetime(2024, 3, 1), 3.0],
    [2, "The app crashes when I open the statement", "technical", datetime.datetime(2024, 3, 1, 14, 5), 2.5],
    [3, None, "account", datetime.date(2024, 3, 2), None],  # no text: kept, with its reason
    [4, "How do I change the e-mail address on my account?", "account", None, 1234567],
    [5, "=SUM(A1:A3) is what the refund form says", "billing", None, True],
]
# What a CSV export of the same sheet holds, cell for cell.
CSV_ROWS = [
    ["id", "text", "queue", "created", "amount"],
    ["1", "My card was charged twice for one coffee", "billing", "2024-03-01", "3"],
    ["2", "The app crashes when I open the statement", "technical", "2024-03-01 14:05:00", "2.5"],
    ["3", "", "account", "2024-03-02", ""],
    ["4", "How do I change the e-mail address on my account?", "account", "", "1234567"],
    ["5", "=SUM(A1:A3) is what the refund form says", "billing", "", "TRUE"],
]


def write_xlsx(path, sheets: dict[str, list[list]], trailing_styled: int = 0):
    book = openpyxl.Workbook()
    book.remove(book.active)
    for title, rows in sheets.items():
        sheet = book.create_sheet(title)
        for row in rows:
            sheet.append(row)
        for cells in sheet.iter_rows():
            for cell in cells:
                if isinstance(cell.value, str):
                    cell.data_type = "s"  # text as a spreadsheet keeps it typed: "=SUM(…) is…" is no formula
        for r in range(trailing_styled):  # empty cells with a format: rows a reader sees, with no values
            sheet.cell(row=len(rows) + 1 + r, column=1).font = Font(bold=True)
    book.save(path)
    return path


def write_csv(path, rows):
    with open(path, "w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows(rows)
    return path


def records(source):
    return [(t.row, t.values, t.text, t.problem) for t in source.read_all()]


def test_cell_values_read_as_a_csv_export_would_hold_them():
    assert cell_text(None) == "" and cell_text(42) == "42" and cell_text(3.0) == "3" and cell_text(2.5) == "2.5"
    assert cell_text(datetime.datetime(2024, 3, 1)) == "2024-03-01"
    assert cell_text(datetime.datetime(2024, 3, 1, 14, 5)) == "2024-03-01 14:05:00"
    assert cell_text(datetime.date(2024, 3, 2)) == "2024-03-02" and cell_text(datetime.time(9, 30)) == "09:30:00"
    assert cell_text(True) == "TRUE" and cell_text(0.1) == "0.1" and cell_text(1e20) == "1e+20"


def test_a_sheet_gives_the_same_records_as_the_same_data_in_a_csv(tmp_path):
    xlsx = open_tickets(write_xlsx(tmp_path / "t.xlsx", {"Tickets": ROWS}, trailing_styled=5))
    csv_source = open_tickets(write_csv(tmp_path / "t.csv", CSV_ROWS))
    assert xlsx.columns == csv_source.columns == CSV_ROWS[0]
    assert xlsx.text_column == csv_source.text_column == 1 and xlsx.has_header
    assert records(xlsx) == records(csv_source)  # every record 1:1, the one without text included
    assert [t.problem for t in xlsx.read_all()] == [None, None, "blank ticket text", None, None]
    assert xlsx.empty_lines == 0  # the formatted empty rows at the end are no rows
    body = [t.values for t in xlsx.read_all()]
    labels = ["billing", "technical", "account"]
    assert gold_column(xlsx.columns, body, labels, 1) == gold_column(csv_source.columns, body, labels, 1) == 2
    assert xlsx.summary().startswith("5 rows read (sheet 'Tickets'); 1 with blank text")


def test_empty_rows_between_tickets_are_skipped_and_said(tmp_path):
    rows = [["text"], ["first ticket"], [None], [None], ["second ticket"]]
    source = open_tickets(write_xlsx(tmp_path / "gaps.xlsx", {"S": rows}))
    assert [(t.row, t.text) for t in source.read_all()] == [(2, "first ticket"), (5, "second ticket")]
    assert "2 empty rows skipped" in source.summary()


def test_a_row_wider_than_the_header_keeps_its_cells_in_new_columns(tmp_path):
    rows = [["text", "queue"], ["a ticket", "billing"], ["another ticket", "account", "a stray note"]]
    source = open_tickets(write_xlsx(tmp_path / "wide.xlsx", {"S": rows}))
    tickets = source.read_all()
    assert source.columns == ["text", "queue", "column 3"]
    assert tickets[1].values == ["another ticket", "account", "a stray note"]


def test_a_100000_row_sheet_is_read_streamed(tmp_path, monkeypatch):
    """The first batch comes before the sheet is read through: rows come from the parser as asked for."""
    from triage_gui.engine.tickets import _sheet_xml as sheet_xml

    path = tmp_path / "big.xlsx"
    book = openpyxl.Workbook(write_only=True)
    sheet = book.create_sheet("Tickets")
    sheet.append(["id", "text"])
    for i in range(100_000):
        sheet.append([i, f"my card was charged twice, order {i}"])
    book.save(path)

    pulled = {"rows": 0}
    real = sheet_xml.SheetRows.read

    def counting(self, *args, **kwargs):
        for row in real(self, *args, **kwargs):
            pulled["rows"] += 1
            yield row

    monkeypatch.setattr(sheet_xml.SheetRows, "read", counting)
    source = open_tickets(path)
    pulled["rows"] = 0  # sniffing reads the first few hundred rows only
    batches = source.batches(512)
    first = next(batches)
    assert len(first) == 512 and first[0].text == "my card was charged twice, order 0"
    assert pulled["rows"] < 2_000  # a reader that loads the sheet first would have pulled 100,001
    assert len(first) + sum(len(b) for b in batches) == 100_000
    assert source.rows_read == 100_000


def test_the_first_sheet_with_data_is_read_unless_one_is_named(tmp_path):
    path = write_xlsx(
        tmp_path / "book.xlsx",
        {"Empty": [], "Open": [["text"], ["open ticket"]], "Closed": [["text"], ["closed one"], ["closed two"]]},
    )
    assert check_file(path) == ["Open", "Closed"]
    assert [t.text for t in open_tickets(path).read_all()] == ["open ticket"]
    assert [t.text for t in open_tickets(path, "Closed").read_all()] == ["closed one", "closed two"]
    with pytest.raises(TicketFileError, match="no sheet 'Done'; its sheets: Empty, Open, Closed"):
        open_tickets(path, "Done")


def test_the_command_line_reads_the_sheet_it_is_given(tmp_path):
    from triage_gui.commands import build_parser
    from triage_gui.engine.tickets import read_table

    path = write_xlsx(tmp_path / "book.xlsx", {"A": [["text"], ["first"]], "B": [["text"], ["second"]]})
    args = build_parser().parse_args(["classify", str(path), "--sheet", "B"])
    table, column, _ = read_table(args.file, args.column, args.sheet)
    assert table.texts == ["second"] and column == "text"
    assert read_table(str(path), None)[0].texts == ["first"]


def one_sentence(message: str) -> bool:
    return "\n" not in message and message.endswith(".") and message.count(". ") == 0


@pytest.mark.parametrize(
    "name, content, expected",
    [
        ("tickets.xlsx", b"text\nnot really a workbook\n", "not a readable Excel workbook"),
        ("old.xls", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 600, "save it as .xlsx"),
        ("renamed.xlsx", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 600, "old-format (.xls) or password-protected"),
        ("tickets.xls", b"<html><table><tr><td>x</td></tr></table></html>", "save it as .xlsx"),
    ],
)
def test_a_file_that_is_no_workbook_we_read_is_refused_in_one_sentence(tmp_path, name, content, expected):
    path = tmp_path / name
    path.write_bytes(content)
    for check in (check_file, open_tickets):
        with pytest.raises(TicketFileError) as caught:
            check(path)
        assert expected in str(caught.value) and one_sentence(str(caught.value)), str(caught.value)


def test_a_damaged_workbook_is_refused_in_one_sentence(tmp_path):
    good = write_xlsx(tmp_path / "good.xlsx", {"S": [["text"], *[[f"ticket {i}"] for i in range(50)]]})
    cut = tmp_path / "cut.xlsx"
    cut.write_bytes(good.read_bytes()[: len(good.read_bytes()) // 2])
    no_book = tmp_path / "other.xlsx"
    with zipfile.ZipFile(no_book, "w") as archive:
        archive.writestr("word/document.xml", "<document/>")
    for path in (cut, no_book):
        with pytest.raises(TicketFileError) as caught:
            open_tickets(path)
        assert "is not a readable Excel workbook" in str(caught.value) and one_sentence(str(caught.value))


# ------------------------------------------------------------------ the window


def loaded(qtbot, window, n: int) -> None:
    """Read and labelled: a window closed while it labels asks first (and a test would wait on it)."""
    session = window.session
    qtbot.waitUntil(lambda: not session.reading and len(session.table) == n and not session.busy, timeout=10_000)


def test_a_workbook_with_two_sheets_asks_which_one(qtbot, window, tmp_path, monkeypatch):
    from qt_helpers import drop_files

    from triage_gui.gui import dialogs

    path = write_xlsx(tmp_path / "book.xlsx", {"Open": [["text"], ["open one"]], "Closed": [["text"], ["closed one"]]})
    asked = []
    monkeypatch.setattr(
        dialogs, "choose_sheet", lambda parent, name, sheets, offered: asked.append((name, sheets)) or "Closed"
    )
    drop_files(window, [path])
    loaded(qtbot, window, 1)
    assert asked == [("book.xlsx", ["Open", "Closed"])]
    assert window.session.table.texts == ["closed one"]

    monkeypatch.setattr(dialogs, "choose_sheet", lambda *a: None)  # cancelled: the file is not opened
    question = []
    monkeypatch.setattr(dialogs, "replace_or_add", lambda *a: question.append(a) or True)
    window.ticket_actions.open_files([str(path)], ask_sheet=True)  # File › Open asks again
    qtbot.wait(100)
    assert not question and window.session.table.texts == ["closed one"]


def test_the_sheet_with_most_rows_is_offered_and_the_choice_remembered(qtbot, window, tmp_path, monkeypatch):
    from qt_helpers import drop_files

    from triage_gui.engine.tickets import sheet_sizes
    from triage_gui.gui import dialogs

    path = write_xlsx(tmp_path / "week.xlsx", {"Notes": [["exported monday"]], "Tickets": ROWS})
    assert sheet_sizes(path) == {"Notes": 1, "Tickets": len(ROWS)}
    asked = []
    monkeypatch.setattr(
        dialogs, "choose_sheet", lambda p, name, sheets, offered: asked.append(sheets[offered]) or "Tickets"
    )
    drop_files(window, [path])
    loaded(qtbot, window, 5)
    assert asked == ["Tickets"]  # not the one-cell "Notes" first in the workbook
    monkeypatch.setattr(dialogs, "replace_or_add", lambda *a: True)
    drop_files(window, [path])  # the same file again (a drop, Open recent): no second question
    loaded(qtbot, window, 5)
    assert asked == ["Tickets"]
    window.ticket_actions.open_files([str(path)], ask_sheet=True)  # File › Open: asked, the choice offered
    assert asked == ["Tickets", "Tickets"]
    loaded(qtbot, window, 5)


def test_a_one_sheet_workbook_opens_without_a_question(qtbot, window, tmp_path, monkeypatch):
    from triage_gui.gui import dialogs

    path = write_xlsx(tmp_path / "one.xlsx", {"Empty": [], "Tickets": ROWS})
    monkeypatch.setattr(dialogs, "choose_sheet", lambda *a: pytest.fail("asked for a sheet"))
    window.ticket_actions.open_files([str(path)])
    loaded(qtbot, window, 5)
    assert window.session.text_column == "text" and window.session.table.columns == CSV_ROWS[0]


@pytest.mark.parametrize(
    "name, content",
    [("old.xls", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 600), ("photo.png", b"\x89PNG\r\n\x1a\n" + b"\0" * 600)],
)
def test_an_unreadable_file_is_refused_before_the_replace_or_add_question(
    qtbot, window, tmp_path, monkeypatch, name, content
):
    from triage_gui.engine.table import NewRow
    from triage_gui.gui import dialogs

    window.session.paste([NewRow({"text": f"ticket {i}"}, f"ticket {i}") for i in range(3)])
    loaded(qtbot, window, 3)
    before = list(window.session.table.texts)
    asked = []
    monkeypatch.setattr(dialogs, "replace_or_add", lambda *a: asked.append(a) or True)
    bad = tmp_path / name
    bad.write_bytes(content)
    window.ticket_actions.open_files([str(bad)])
    qtbot.wait(100)
    assert not asked  # never asked: the answer could only have lost the loaded tickets
    assert window.session.table.texts == before and not window.session.reading
    assert window.last_message is not None and name in window.last_message.text()


@pytest.mark.answers_dialogs  # the real box, answered from a timer
def test_replace_is_the_default_answer(qtbot, window):
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QMessageBox

    from triage_gui.gui import dialogs

    seen = []

    def press_the_default() -> None:
        box = QApplication.activeModalWidget()
        assert isinstance(box, QMessageBox)
        seen.append(box.defaultButton().text())
        box.defaultButton().click()  # what Enter does

    QTimer.singleShot(0, press_the_default)
    assert dialogs.replace_or_add(window, 12, ["next.csv"]) is True
    assert seen == ["Replace"]


def test_openpyxl_is_a_dependency_and_in_the_bundle():
    """engine/tickets/_workbook.py imports openpyxl on first use: the package needs it, and the bundle must carry it."""
    from helpers import ROOT

    tomllib = pytest.importorskip("tomllib")  # Python 3.11+

    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    assert any(d.replace(" ", "").startswith("openpyxl>=3.1.5,<3.2") for d in dependencies)
    spec = (ROOT / "packaging" / "ticket_triage.spec").read_text(encoding="utf-8")
    assert 'hiddenimports += ["openpyxl", "et_xmlfile"]' in spec
