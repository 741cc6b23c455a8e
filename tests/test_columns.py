"""No column of the user's lost or misread: JSONL keys over the whole file, bare strings, .json arrays,
repeated header names, rows with extra fields, and encoding and NUL rules held over the whole file."""

import json

import pytest

from triage_gui.engine.tickets import SAMPLE_BYTES, TicketFileError, open_tickets


def write(tmp_path, name, data):
    path = tmp_path / name
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return path


def test_jsonl_keys_first_seen_late_are_columns_too(tmp_path):
    lines = [json.dumps({"id": i, "text": f"ticket {i}"}) for i in range(800)]
    lines[650] = json.dumps({"id": 650, "text": "ticket 650", "priority": "high"})
    source = open_tickets(write(tmp_path, "t.jsonl", "\n".join(lines)))
    tickets = source.read_all()
    assert source.columns == ["id", "text", "priority"]
    assert tickets[650].values == ["650", "ticket 650", "high"]
    assert len(tickets) == 800


def test_a_bare_string_line_is_text_without_changing_the_text_column(tmp_path):
    lines = [json.dumps({"id": i, "body": f"my card was declined, ticket {i}"}) for i in range(5)]
    lines.insert(2, json.dumps("a bare string ticket"))
    source = open_tickets(write(tmp_path, "t.jsonl", "\n".join(lines)))
    tickets = source.read_all()
    assert source.text_column_name == "body"
    assert [t.text for t in tickets][:3] == [
        "my card was declined, ticket 0",
        "my card was declined, ticket 1",
        "a bare string ticket",
    ]
    assert all(t.problem is None for t in tickets) and len(tickets) == 6


def test_a_json_array_is_read_as_records(tmp_path):
    data = json.dumps(
        [{"id": 1, "text": "my card"}, {"id": 2, "text": "the app crashes", "team": "technical"}], indent=2
    )
    source = open_tickets(write(tmp_path, "t.json", data))
    tickets = source.read_all()
    assert source.columns == ["id", "text", "team"]
    assert [t.text for t in tickets] == ["my card", "the app crashes"]
    assert "{" not in [t.text for t in tickets]


def test_a_json_file_that_is_no_list_of_tickets_is_refused_in_one_sentence(tmp_path):
    with pytest.raises(TicketFileError, match=r"^t\.json holds a JSON object, not a list of tickets; [^\n]*\.$"):
        open_tickets(write(tmp_path, "t.json", '{"tickets": []}'))
    with pytest.raises(TicketFileError, match=r"^u\.json is not valid JSON \(line 1: [^\n]*\)\.$"):
        open_tickets(write(tmp_path, "u.json", "[{"))


def test_repeated_header_names_are_kept_apart_with_a_note(tmp_path):
    source = open_tickets(write(tmp_path, "t.csv", "text,note,note,note (2)\nmy card,a,b,c\n"))
    assert len(set(source.columns)) == 4
    assert source.columns[:2] == ["text", "note"] and source.columns[3] == "note (2)"
    assert source.read_all()[0].values == ["my card", "a", "b", "c"]
    assert "repeated column names kept apart" in source.summary()


def test_an_unquoted_comma_keeps_the_rest_of_the_ticket(tmp_path):
    source = open_tickets(
        write(tmp_path, "t.csv", "id,text,queue\n1,my card, it was declined,billing\n2,fine,account\n")
    )
    tickets = source.read_all()
    assert tickets[0].values == ["1", "my card, it was declined", "billing"]
    assert "padded" not in source.summary() and "more fields than the header" in source.summary()


def test_a_cp1252_byte_past_the_sample_is_read_as_cp1252_and_noted(tmp_path):
    head = "text,team\n" + "my card was declined,billing\n" * (SAMPLE_BYTES // 20)
    data = head.encode() + "Zürich café €,billing\n".encode("cp1252") + "naïve ✓,account\n".encode()
    source = open_tickets(write(tmp_path, "t.csv", data))
    tickets = source.read_all()
    assert tickets[-2].text == "Zürich café €" and tickets[-1].text == "naïve ✓"
    assert "\ufffd" not in "".join(t.text for t in tickets)
    assert "not UTF-8" in source.summary() and "read as cp1252" in source.summary()


def test_nuls_past_the_sample_are_refused_as_in_the_sample(tmp_path):
    head = "text,team\n" + "my card was declined,billing\n" * (SAMPLE_BYTES // 20)
    nuls = b"bad\x00ticket,billing\n" * 9  # more than a pasted NUL or two: a binary's
    late = write(tmp_path, "late.csv", head.encode() + nuls)
    early = write(tmp_path, "early.csv", b"text,team\n" + nuls + head.encode())
    for path in (early, late):
        with pytest.raises(TicketFileError, match="is not a text file"):
            open_tickets(path)


def test_one_nul_past_the_sample_is_kept_in_its_ticket(tmp_path):
    head = "text,team\n" + "my card was declined,billing\n" * (SAMPLE_BYTES // 20)
    tickets = open_tickets(write(tmp_path, "late.csv", head.encode() + b"bad\x00ticket,billing\n")).read_all()
    assert tickets[-1].text == "bad\x00ticket"
