"""Hostile text in ticket files: control characters, a pasted NUL, lone surrogates and JSON nested past
Python's recursion limit. A ticket comes back exactly as the file holds it, or the summary says what
changed; a file that cannot be read is one sentence, never a traceback."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from triage_gui.engine.tickets import TicketFileError, open_tickets

PROSE = [f"my card was charged twice for order {i}, please refund it" for i in range(40)]
# C0 controls, DEL and C1 controls a ticket can hold (a pasted terminal colour code, a bell, a form feed).
CONTROL = st.sampled_from([chr(c) for c in range(1, 32) if chr(c) not in "\n\r\"'"] + ["\x7f", "\x85", "\x9b"])


def write(tmp_path, name, data):
    path = tmp_path / name
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return path


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.one_of(CONTROL, st.sampled_from("ab ,é")), min_size=1, max_size=12))
def test_control_characters_in_a_csv_cell_come_back_exactly(tmp_path, chars):
    text = "ticket " + "".join(chars) + " end"
    rows = ["text,id"] + [f'"{p}",{i}' for i, p in enumerate(PROSE)]
    rows[3] = '"' + text.replace('"', '""') + '",2'
    tickets = open_tickets(write(tmp_path, "t.csv", "\n".join(rows) + "\n")).read_all()
    assert len(tickets) == 40
    assert tickets[2].values[0] == text and tickets[2].text == text.strip()


def test_control_characters_in_jsonl_and_txt_come_back_exactly(tmp_path):
    text = "colour \x1b[31mred\x1b[0m, a bell \x07 and a NUL \x00 inside"
    lines = [json.dumps({"text": p}) for p in PROSE] + [json.dumps({"text": text})]
    assert open_tickets(write(tmp_path, "t.jsonl", "\n".join(lines))).read_all()[-1].text == text
    txt = "\n".join(PROSE) + "\nform \x0c feed and \x01 start of heading\n"
    assert open_tickets(write(tmp_path, "t.txt", txt)).read_all()[-1].text == "form \x0c feed and \x01 start of heading"


def test_one_nul_in_a_small_csv_is_read_and_kept(tmp_path):
    path = write(tmp_path, "t.csv", b"text,id\nhello world,1\nsecond\x00 ticket,2\nthird one,3\n")
    tickets = open_tickets(path).read_all()
    assert [t.text for t in tickets] == ["hello world", "second\x00 ticket", "third one"]


@pytest.mark.parametrize(
    "data",
    [
        b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(200),
        b"text,id\n" + b"a\x00b\x00c\x00d\x00e\x00,1\n" * 2,  # ten NULs: more than a paste leaves
        b"text\nab\x00\x00\n",  # two NULs in a handful of bytes
    ],
    ids=["png", "ten-nuls", "dense"],
)
def test_real_binaries_are_still_refused_in_one_sentence(tmp_path, data):
    with pytest.raises(TicketFileError, match=r"^t\.csv is not a text file \(it looks binary\)[^.]*\.$"):
        open_tickets(write(tmp_path, "t.csv", data))


def test_a_lone_surrogate_in_json_is_replaced_and_said(tmp_path):
    lines = [json.dumps({"text": p}) for p in PROSE[:3]] + ['{"text": "lone \\ud800 surrogate"}']
    source = open_tickets(write(tmp_path, "t.jsonl", "\n".join(lines)))
    tickets = source.read_all()
    assert tickets[-1].text == "lone \ufffd surrogate"
    tickets[-1].text.encode("utf-8")  # what the tokenizer and every writer need
    assert "1 lone surrogate" in source.summary() and "U+FFFD" in source.summary()


@pytest.mark.parametrize("depth", [5_000, 100_000])
def test_json_nested_too_deep_is_one_sentence(tmp_path, depth):
    deep = "[" * depth + "]" * depth
    for name, data in (("t.jsonl", '{"text": ' + deep + "}\n"), ("t.json", deep), ("u.json", f'[{{"t": {deep}}}]')):
        with pytest.raises(TicketFileError, match=r"nested too deep to read .*; give flat ticket objects or CSV\.$"):
            open_tickets(write(tmp_path, name, data))


def test_one_deep_line_among_good_ones_is_kept_with_its_reason(tmp_path):
    deep = '{"text": ' + "[" * 100_000 + "]" * 100_000 + "}"
    lines = [json.dumps({"text": p}) for p in PROSE[:3]] + [deep]
    source = open_tickets(write(tmp_path, "t.jsonl", "\n".join(lines)))
    tickets = source.read_all()
    assert len(tickets) == 4 and tickets[-1].problem is not None
    assert "line 4 is nested too deep to read" in tickets[-1].problem


def test_a_utf32_file_with_its_byte_order_mark_is_read(tmp_path):
    """Its mark starts with UTF-16's (FF FE): it was read as UTF-16 and refused as binary."""
    text = "text,id\n" + "".join(f'"{p}",{i}\n' for i, p in enumerate(PROSE[:5]))
    tickets = open_tickets(write(tmp_path, "t.csv", text.encode("utf-32"))).read_all()
    assert [t.text for t in tickets] == PROSE[:5]


def test_an_integer_past_pythons_digit_limit_keeps_its_ticket(tmp_path):
    """A 5,000-digit number made the whole JSON line "not valid JSON": the ticket beside it was lost."""
    digits = "9" * 5000
    lines = [json.dumps({"text": p}) for p in PROSE[:3]] + ['{"text": "refund me", "n": ' + digits + "}"]
    source = open_tickets(write(tmp_path, "t.jsonl", "\n".join(lines)))
    last = source.read_all()[-1]
    assert last.problem is None and last.text == "refund me" and last.values[source.columns.index("n")] == digits
    assert open_tickets(write(tmp_path, "t.json", "[" + lines[-1] + "]")).read_all()[0].text == "refund me"
