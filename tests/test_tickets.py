"""Ticket files as helpdesks export them, including hostile ones generated here."""

import csv
import io
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from triage_gui.engine.tickets import TicketFileError, gold_column, open_tickets, tickets_from_text

ROWS = [
    ("Mon paiement de 20 € a été refusé", "billing"),
    ('He said "it\'s broken", then left', "technical"),
    ("line one\nline two, with a comma", "account"),
]


def write(tmp_path, name, data: bytes):
    path = tmp_path / name
    path.write_bytes(data)
    return path


def csv_bytes(rows, delimiter=",", header=("text", "label"), encoding="utf-8"):
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=delimiter)
    if header:
        writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue().encode(encoding)


def texts(path, **kwargs):
    return [t.text for t in open_tickets(path).read_all(**kwargs)]


@pytest.mark.parametrize(
    ("encoding", "prefix"),
    [("utf-8", b""), ("utf-8", b"\xef\xbb\xbf"), ("utf-16", b""), ("cp1252", b"")],
)
def test_encodings(tmp_path, encoding, prefix):
    data = prefix + csv_bytes(ROWS, "\t" if encoding == "utf-16" else ",", encoding=encoding)
    path = write(tmp_path, "t.csv" if encoding != "utf-16" else "t.txt.csv", data)
    source = open_tickets(path)
    assert [t.text for t in source.read_all()] == [r[0] for r in ROWS]
    if encoding == "cp1252":
        assert "cp1252" in source.summary()  # a guess is reported, not hidden


def test_excel_unicode_text_export_is_utf16_tab(tmp_path):
    data = "text\tteam\r\nCarte bloquée 😀\taccount\r\n".encode("utf-16")
    source = open_tickets(write(tmp_path, "export.txt.csv", data))
    assert source.delimiter == "\t"
    assert [t.text for t in source.read_all()] == ["Carte bloquée 😀"]


@pytest.mark.parametrize("delimiter", [",", ";", "\t"])
def test_delimiters_are_sniffed(tmp_path, delimiter):
    path = write(tmp_path, "t.csv", csv_bytes(ROWS, delimiter))
    source = open_tickets(path)
    assert source.delimiter == delimiter
    assert source.columns == ["text", "label"]
    assert [t.text for t in source.read_all()] == [r[0] for r in ROWS]


def test_ragged_rows_blank_cells_and_whitespace_are_counted(tmp_path):
    data = b"id,text,team\n1,first ticket,billing\n2,   ,account\n3,third ticket\n4,,x\n5,fifth,account,extra\n"
    source = open_tickets(write(tmp_path, "t.csv", data))
    assert [t.text for t in source.read_all()] == ["first ticket", "third ticket", "fifth"]
    assert source.skipped_blank == 2
    assert source.ragged_rows == 2
    assert "2 blank skipped" in source.summary()


def test_headerless_file_is_one_ticket_per_line(tmp_path):
    data = b"my card never arrived and I need it for my trip\nwhy was I charged a fee for this transfer?\n"
    assert texts(write(tmp_path, "t.csv", data)) == [
        "my card never arrived and I need it for my trip",
        "why was I charged a fee for this transfer?",
    ]


def test_txt_is_one_ticket_per_line(tmp_path):
    data = b"first, with comma\n\n  second  \n"
    assert texts(write(tmp_path, "t.txt", data)) == ["first, with comma", "second"]


@pytest.mark.parametrize(("data", "reason"), [(b"", "empty"), (b"   \n\n", "empty"), (b"text,team\n", "no tickets")])
def test_empty_and_header_only_files_are_refused(tmp_path, data, reason):
    with pytest.raises(TicketFileError, match=reason):
        open_tickets(write(tmp_path, "t.csv", data))


def test_binary_file_renamed_csv_is_refused(tmp_path):
    data = bytes(range(256)) * 64
    with pytest.raises(TicketFileError, match="not a text file"):
        open_tickets(write(tmp_path, "t.csv", data))


def test_replacement_characters_the_file_holds_are_text(tmp_path):
    """U+FFFD written in the file (an earlier mis-decoding, kept) is data, not a sign of a binary file."""
    data = "text,team\nticket \ufffd,\ufffd\n".encode()
    [ticket] = open_tickets(write(tmp_path, "t.csv", data)).read_all()
    assert ticket.values == ["ticket \ufffd", "\ufffd"]


def test_png_renamed_csv_is_refused(tmp_path):
    data = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(200)
    with pytest.raises(TicketFileError):
        open_tickets(write(tmp_path, "t.csv", data))


def test_jsonl_bad_lines_are_reported_and_good_lines_load(tmp_path):
    lines = [json.dumps({"id": 1, "text": "good one"}), "{not json", json.dumps({"id": 2, "text": "good two"}), "[1]"]
    source = open_tickets(write(tmp_path, "t.jsonl", "\n".join(lines).encode()))
    assert [t.text for t in source.read_all()] == ["good one", "good two"]
    assert source.bad_lines == [2, 4]
    assert "bad JSON on line 2, 4" in source.summary()


def test_unicode_is_kept_intact(tmp_path):
    samples = ["カードが届きません", "مرحبا، بطاقتي لا تعمل", "zero\u200bwidth joiner", "🚀💳 emoji"]
    path = write(tmp_path, "t.csv", csv_bytes([(s, "x") for s in samples]))
    assert texts(path) == samples


def test_large_file_streams_in_batches(tmp_path):
    path = tmp_path / "big.csv"
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["text", "team"])
        for i in range(50_000):
            writer.writerow([f"ticket number {i} about my card", "billing"])
    source = open_tickets(path)
    batches = source.batches(1000)
    first = next(batches)
    assert len(first) == 1000 and first[0].text == "ticket number 0 about my card"
    assert sum(len(b) for b in batches) == 49_000


def test_text_column_is_chosen_by_name_or_prose(tmp_path):
    data = b"id,created,body,status\n1,2024-01-01,my card is blocked since yesterday,open\n"
    assert open_tickets(write(tmp_path, "t.csv", data)).text_column_name == "body"
    data = b"ref,when,what,prio\nA1,2024-01-01,my card is blocked since yesterday please help,2\n"
    assert open_tickets(write(tmp_path, "u.csv", data)).text_column_name == "what"


def test_gold_column_is_offered_when_values_are_label_names():
    columns = ["text", "category", "team"]
    rows = [["t1", "card_arrival", "Billing"], ["t2", "pin_blocked", "account"]]
    assert gold_column(columns, rows, ["billing", "technical", "account"], exclude=0) == 2
    assert gold_column(columns, rows, ["x", "y"], exclude=0) is None


def test_pasted_lines_and_pasted_csv():
    columns, tickets, col = tickets_from_text("first ticket\n\nsecond ticket\n")
    assert columns == ["text"] and [t.text for t in tickets] == ["first ticket", "second ticket"]
    columns, tickets, col = tickets_from_text("id,message\n1,card lost\n2,app crash\n")
    assert columns == ["id", "message"] and columns[col] == "message"
    assert [t.text for t in tickets] == ["card lost", "app crash"]


cell = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), max_size=40) | st.sampled_from(
    ['say "hi"', "a,b;c\td", "multi\nline", " padded "]
)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    rows=st.lists(st.tuples(cell, cell), min_size=1, max_size=15),
    delimiter=st.sampled_from([",", ";", "\t"]),
    encoding=st.sampled_from(["utf-8", "utf-8-sig", "utf-16"]),
)
def test_reader_round_trips_what_csv_writer_wrote(tmp_path, rows, delimiter, encoding):
    rows = [("ticket " + a, b) for a, b in rows]  # header detection needs a prose-like first column
    path = tmp_path / "rt.csv"
    path.write_bytes(csv_bytes(rows, delimiter, header=("text", "team"), encoding=encoding))
    source = open_tickets(path)
    got = [(t.values[0], t.values[1]) for t in source.read_all()]
    expected = [(a, b) for a, b in rows if a.strip()]
    assert got == [(a.replace("\r", ""), b.replace("\r", "")) for a, b in expected] or got == expected
