"""Stray quotes never merge records: help-desk exports are full of quotes that are not CSV quoting.

Tested as the dialects are (``test_dialects.py``): generated files with quotes at random places, compared
record for record with a plain split of the file's lines.
"""

import csv
import io
import re

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from triage_gui.engine.tickets import open_tickets


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    return path


def test_a_tsv_export_with_one_ticket_opening_with_a_quote_keeps_every_row(tmp_path):
    lines = [f"T{i}\tmy card does not work, ticket {i}\tbilling" for i in range(300)]
    lines[5] = 'T5\t"Hi, my card was declined at the shop\tbilling'
    source = open_tickets(write(tmp_path, "export.tsv", "id\ttext\tqueue\n" + "\n".join(lines) + "\n"))
    tickets = source.read_all()
    assert len(tickets) == 300
    assert [t.values for t in tickets] == [line.split("\t") for line in lines]  # as written, quote kept
    assert tickets[5].text == '"Hi, my card was declined at the shop'


def test_a_quoted_csv_whose_row_never_closes_its_quote_loses_no_row(tmp_path):
    rows = [[str(i), f"ticket number {i}, with a comma", "billing"] for i in range(1, 9)]
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows([["id", "text", "queue"], *rows])
    lines = buffer.getvalue().splitlines()
    lines[3] = '3,"ticket number 3 never closes,billing'  # row 3 (line 4): the quote runs into row 4
    source = open_tickets(write(tmp_path, "quoted.csv", "\n".join(lines) + "\n"))
    tickets = source.read_all()
    assert [t.values[0] for t in tickets] == [f"{i}" for i in range(1, 9)]
    assert [t.values for t in tickets[3:]] == rows[3:]
    assert [t.values for t in tickets[:2]] == rows[:2]
    assert tickets[2].values[0] == "3" and "never closes" in tickets[2].text
    assert source.quote_lines == [4]
    assert "a quote that never closes on line 4" in source.summary()


def test_a_quoted_line_break_is_still_one_ticket(tmp_path):
    text = 'id,text,queue\n1,"first line\nsecond line, and more",billing\n2,plain,account\n3,"say ""hi""",x\n'
    tickets = open_tickets(write(tmp_path, "t.csv", text)).read_all()
    assert [t.values for t in tickets] == [
        ["1", "first line\nsecond line, and more", "billing"],
        ["2", "plain", "account"],
        ["3", 'say "hi"', "x"],
    ]


WORDS = ["card", "declined", "my", "app", "crash", "Zürich", "€20", "it's", "hi", "x", "12", "😀"]


@st.composite
def unquoted_exports(draw):
    """A file no exporter quoted (cells hold no delimiter, quote or line break), with quotes then put at
    random places in its cells: the start, the middle or the end of a ticket."""
    delimiter = draw(st.sampled_from(["\t", ",", ";", "|"]))
    width = draw(st.integers(2, 4))
    cell = st.lists(st.sampled_from(WORDS), min_size=1, max_size=5).map(" ".join)
    rows = draw(st.lists(st.lists(cell, min_size=width, max_size=width), min_size=2, max_size=25))
    header = ["text", *[f"col{i}" for i in range(1, width)]]
    for _ in range(draw(st.integers(1, 4))):
        r, c = draw(st.integers(0, len(rows) - 1)), draw(st.integers(0, width - 1))
        value = rows[r][c]
        at = draw(st.integers(0, len(value)))
        rows[r][c] = value[:at] + '"' + value[at:]
    ending = draw(st.sampled_from(["\n", "\r\n"]))
    lines = [delimiter.join(row) for row in [header, *rows]]
    return ending.join(lines) + ending, delimiter, lines


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(unquoted_exports())
def test_stray_quotes_in_an_unquoted_export_keep_one_record_per_line(tmp_path, case):
    text, delimiter, lines = case
    # A quote opening a field whose next quote closes a field (on this line or a later one) is CSV quoting
    # by any reading, an exporter's or a spreadsheet's: those two are no stray quotes.
    d = re.escape(delimiter)
    assume(not re.search(f'(?:^|(?<=[{d}\n]))"(?:[^"]|"")*"(?=[{d}\r\n]|$)', text))
    source = open_tickets(write(tmp_path, "export.csv", text))
    assert [t.values for t in source.read_all()] == [line.split(delimiter) for line in lines[1:]]


@st.composite
def quoted_exports_with_strays(draw):
    """A CSV an exporter quoted (quotes around cells with a delimiter or a quote), then a few quotes put at
    the start or inside unquoted cells, as a hand edit or a broken export leaves them."""
    delimiter = draw(st.sampled_from([",", ";", "\t"]))
    cell = st.lists(st.sampled_from([*WORDS, delimiter, 'say "hi"']), min_size=1, max_size=5).map(" ".join)
    rows = draw(st.lists(st.lists(cell, min_size=3, max_size=3), min_size=3, max_size=20))
    rows[0][1] = f"one{delimiter} two"  # at least one quoted field, so the file reads as quoted
    strays: dict[tuple[int, int], str] = {}
    for _ in range(draw(st.integers(1, 3))):
        r, c = draw(st.integers(1, len(rows) - 1)), draw(st.integers(0, 2))
        value = rows[r][c]
        if value and delimiter not in value and '"' not in value:  # a cell the writer leaves unquoted
            at = draw(st.integers(0, len(value) - 1))  # not after the last character: no closing quote
            strays[(r, c)] = value[:at] + '"' + value[at:]
    lines = []
    for r, row in enumerate([["id", "text", "queue"], *rows], start=-1):
        buffer = io.StringIO()
        marked = [f"\x00{c}\x00" if (r, c) in strays else cell for c, cell in enumerate(row)]
        csv.writer(buffer, delimiter=delimiter, lineterminator="").writerow(marked)
        line = buffer.getvalue()
        for c in range(3):
            line = line.replace(f"\x00{c}\x00", strays.get((r, c), ""))
        lines.append(line)
    return "\n".join(lines) + "\n", delimiter, lines


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(quoted_exports_with_strays())
def test_stray_quotes_in_a_quoted_csv_never_merge_or_lose_records(tmp_path, case):
    text, delimiter, lines = case
    tickets = open_tickets(write(tmp_path, "quoted.csv", text)).read_all()
    assert len(tickets) == len(lines) - 1  # one record per line
    for ticket, line in zip(tickets, lines[1:]):  # and every character of the line in it, quotes aside
        joined = delimiter.join(ticket.values).replace('"', "")
        assert joined.rstrip(delimiter) == line.replace('"', "").rstrip(delimiter)  # (short rows are padded)
