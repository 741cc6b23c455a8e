"""One table of ticket formats (``engine.tickets.FORMATS``): every ending in it opens with its format's reader,
a file under another name is sniffed, and every help text a user reads names every format in it (a .json
array was read for months while the window's empty table, its guide, its summary and ``classify --help``
listed only CSV, Excel, TSV, TXT and JSONL)."""

from __future__ import annotations

import json

import openpyxl
import pytest

from triage_gui.engine.tickets import FILE_FILTER, FORMATS, SUPPORTED, check_file, open_tickets

TEXTS = ["my card was declined", "the app crashes on login", "change my e-mail address"]


def write(path, kind: str):
    if kind == "xlsx":
        book = openpyxl.Workbook()
        book.active.append(["id", "text"])
        for i, text in enumerate(TEXTS):
            book.active.append([str(i), text])
        book.save(path)
    elif kind == "json":
        path.write_text(json.dumps([{"id": i, "text": t} for i, t in enumerate(TEXTS)]), encoding="utf-8")
    elif kind == "jsonl":
        path.write_text("".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in enumerate(TEXTS)), encoding="utf-8")
    elif kind == "txt":
        path.write_text("\n".join(TEXTS) + "\n", encoding="utf-8")
    else:
        delimiter = "\t" if path.suffix in (".tsv", ".tab") else ","
        lines = [f"id{delimiter}text"] + [f"{i}{delimiter}{t}" for i, t in enumerate(TEXTS)]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("ending", "kind"), [(e, f.kind) for f in FORMATS for e in f.endings], ids=lambda v: v if v[0] == "." else ""
)
def test_every_ending_in_the_table_opens_with_its_formats_reader(tmp_path, ending, kind):
    path = write(tmp_path / f"tickets{ending}", kind)
    assert check_file(path) == (["Sheet"] if kind == "xlsx" else [])
    source = open_tickets(path)
    assert source.kind == kind
    assert [t.text for t in source.read_all()] == TEXTS


@pytest.mark.parametrize("kind", ["json", "jsonl", "csv", "xlsx"])
def test_a_file_under_another_name_is_sniffed(tmp_path, kind):
    """A workbook by its magic bytes, a JSON array or JSON Lines by their text, anything else as a CSV."""
    source = open_tickets(write(tmp_path / "export.dat", kind))
    assert source.kind == kind and [t.text for t in source.read_all()] == TEXTS


def test_the_dialogs_filter_is_every_ending_in_the_table():
    assert tuple(e for f in FORMATS for e in f.endings) == SUPPORTED
    assert FILE_FILTER.startswith(f"Ticket files ({' '.join('*' + e for e in SUPPORTED)})")


def test_every_help_text_names_every_format(qtbot):
    from triage_gui.commands import build_parser
    from triage_gui.gui.guide import guide_html
    from triage_gui.gui.results.results_area import ResultsArea
    from triage_gui.gui.tickets.empty_state import EmptyState

    empty = EmptyState()
    results = ResultsArea()
    qtbot.addWidget(empty)
    qtbot.addWidget(results)
    results.show_stats(0, 0, 0, None, None, None)
    from PySide6.QtWidgets import QLabel

    subparsers = next(a for a in build_parser()._actions if a.choices and "classify" in a.choices)
    texts = {
        "empty table": " ".join(label.text() for label in empty.findChildren(QLabel)),
        "summary": results.stats.text(),
        "guide": guide_html([]),
        "classify --help": " ".join(subparsers.choices["classify"].format_help().split()),
    }
    missing = {where: [f.name for f in FORMATS if f.name not in text] for where, text in texts.items()}
    assert missing == {where: [] for where in texts}
