"""Damaged workbooks are named as damaged, in one sentence: a sheet's XML cut short anywhere, a zip with
two entries of one name, two cells that are both A3. Before, a cut before the first value and a duplicate
entry read as "no rows" (or silently as the other entry), and the second A3 replaced the first's text."""

from __future__ import annotations

import warnings
import zipfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_hostile_workbooks import MAIN, hand_made, one_sentence, sheet, string_rows

from triage_gui.engine.tickets import TicketFileError, check_file, open_tickets

STRINGS = ["text", "my card was charged twice", "password reset please", "refund for order 7"]
GOOD = sheet(string_rows([[0], [1], [2], [3]]))


def read_all(path):
    check_file(path)
    source = open_tickets(path)
    return [t.text for t in source.read_all()]


def assert_damaged(path, what: str = "") -> None:
    with pytest.raises(TicketFileError) as caught:
        read_all(path)
    message = str(caught.value)
    assert message.startswith(f"{path.name} is damaged: ") and what in message, message
    assert one_sentence(message), message


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(min_value=1, max_value=len(GOOD) - 1))
def test_a_sheet_cut_anywhere_is_damaged_never_no_rows(tmp_path, cut):
    path = hand_made(tmp_path / "cut.xlsx", GOOD[:cut].rstrip(), STRINGS)
    if GOOD[:cut].rstrip().endswith("</worksheet>"):
        return  # not cut at all
    assert_damaged(path, "sheet 'Tickets'")


def test_the_whole_sheet_still_reads(tmp_path):
    assert read_all(hand_made(tmp_path / "good.xlsx", GOOD, STRINGS)) == STRINGS[1:]


@pytest.mark.parametrize(
    ("member", "second"),
    [
        ("xl/worksheets/sheet1.xml", sheet("")),  # the empty one last: read as "no rows"
        ("xl/worksheets/sheet1.xml", GOOD),  # the same again: which one is the workbook's?
        ("xl/sharedStrings.xml", f'<sst xmlns="{MAIN}"><si><t>x</t></si></sst>'),
        ("XL/Worksheets/Sheet1.xml", sheet("")),  # part names are case-insensitive
    ],
    ids=["empty-second", "same-second", "strings", "case"],
)
def test_a_duplicate_zip_entry_is_damaged(tmp_path, member, second):
    path = hand_made(tmp_path / "dup.xlsx", GOOD, STRINGS)
    with warnings.catch_warnings(), zipfile.ZipFile(path, "a") as archive:
        warnings.simplefilter("ignore")  # zipfile warns of the duplicate name: that is the point
        archive.writestr(member, second)
    assert_damaged(path, "two parts named")


@pytest.mark.parametrize(
    "row",
    [
        '<row r="3"><c r="A3" t="s"><v>2</v></c><c r="A3" t="s"><v>3</v></c></row>',
        '<row r="3"><c r="A3" t="s"><v>2</v></c><c r="B3"><v>5</v></c><c r="A3" t="s"><v>3</v></c></row>',
        '<row r="3"><c r="B3" t="s"><v>2</v></c><c r="A3"><v>5</v></c><c t="s"><v>3</v></c></row>',  # B again
    ],
    ids=["adjacent", "apart", "implied"],
)
def test_two_cells_with_one_reference_are_refused_never_one_lost(tmp_path, row):
    rows = '<row r="1"><c r="A1" t="s"><v>0</v></c></row><row r="2"><c r="A2" t="s"><v>1</v></c></row>' + row
    assert_damaged(hand_made(tmp_path / "twice.xlsx", sheet(rows), STRINGS), "is written twice")


def test_an_empty_duplicate_loses_nothing_and_reads(tmp_path):
    rows = '<row r="1"><c r="A1" t="s"><v>0</v></c></row><row r="2"><c r="A2"/><c r="A2" t="s"><v>1</v></c></row>'
    assert read_all(hand_made(tmp_path / "empty.xlsx", sheet(rows), STRINGS)) == [STRINGS[1]]


def test_shared_text_cells_without_a_shared_string_table_are_damaged_not_no_rows(tmp_path):
    assert_damaged(hand_made(tmp_path / "nostrings.xlsx", GOOD, None), "has no shared-string table")
