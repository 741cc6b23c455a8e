"""Sweep five: an option that means nothing for the file given is said, not ignored."""

from __future__ import annotations

import pytest

from triage_gui.engine.tickets import read_table


def test_a_sheet_asked_of_a_csv_is_refused_in_one_sentence(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("text\nmy invoice is wrong\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"t\.csv is not an Excel workbook, so it has no sheet 'Data'"):
        read_table(str(path), None, "Data")
    table, column, _ = read_table(str(path), None)
    assert column == "text" and len(table) == 1
