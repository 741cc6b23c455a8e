"""The command line against hostile and odd invocations: tickets on standard input (``classify -``), an
``--out`` that names a folder (``x.csv/`` was written as ``x.csv``), and counted nouns said right for one
("1 tickets", "labels learned from 1 taught tickets")."""

from __future__ import annotations

import io
import json
import sys
import types

import pytest

from triage_gui.commands import main
from triage_gui.commands._steps import read_input as read_table
from triage_gui.engine.prompt import Example, default_profile
from triage_gui.engine.tickets import ExportCounts, check_output
from triage_gui.gui.actions.ticket_actions import export_question
from triage_gui.words import counted, plural

TICKETS = ["my card was charged twice", "I cannot log in to my account", "where is my refund"]


def stdin_of(monkeypatch, data: bytes) -> None:
    monkeypatch.setattr(sys, "stdin", types.SimpleNamespace(buffer=io.BytesIO(data)))


@pytest.mark.parametrize(
    "data",
    [
        ("text,id\n" + "".join(f'"{t}",{i}\n' for i, t in enumerate(TICKETS))).encode(),
        "\n".join(json.dumps({"text": t}) for t in TICKETS).encode(),  # JSONL, sniffed as for a file
        ("text\tid\n" + "".join(f"{t}\t{i}\n" for i, t in enumerate(TICKETS))).encode("utf-16"),
    ],
    ids=["csv", "jsonl", "utf16-tsv"],
)
def test_tickets_are_read_from_standard_input_as_from_a_file(monkeypatch, data):
    stdin_of(monkeypatch, data)
    table, column, summary = read_table("-", None)
    assert [table.texts[r] for r in range(len(table))] == TICKETS and column == "text", summary


@pytest.mark.parametrize(
    "lines",
    [
        ["My card was stolen, please block it", "How do I top up, by bank transfer?", "I was charged twice, refund me"],
        ["Refund please", "My card was stolen yesterday and I need a new one today", "Why was I charged a fee?"],
    ],
    ids=["commas", "short-first"],
)
def test_tickets_piped_a_line_each_are_each_a_ticket(monkeypatch, lines):
    """W12: three tickets piped a line each, each with one comma, were read as CSV: the first was taken as a
    header and lost, the others labelled on half their words; a short first line was a header too. Text with
    no quote or tab whose commas are prose commas, and a first line naming no column, is a ticket a line."""
    stdin_of(monkeypatch, ("\n".join(lines) + "\n").encode())
    table, column, _ = read_table("-", None)
    assert [table.texts[r] for r in range(len(table))] == lines and column == "text"


@pytest.mark.parametrize(
    ("data", "columns"),
    [
        ("text, queue\nmy card, cards\nrefund me, billing\n", ["text", "queue"]),  # a column named
        ("id,complaint\n1,my card broke\n2,refund\n", ["id", "complaint"]),  # a delimiter with no space
        ("Ticket; Team\nmy card; cards\nrefund me; billing\n", ["Ticket", "Team"]),
    ],
)
def test_a_table_piped_is_still_read_as_a_table(monkeypatch, data, columns):
    stdin_of(monkeypatch, data.encode())
    table, _, _ = read_table("-", None)
    assert table.columns == columns and len(table) == 2


def test_empty_or_missing_standard_input_is_one_sentence(monkeypatch):
    stdin_of(monkeypatch, b"")
    with pytest.raises(ValueError, match=r"^standard input is empty\.$"):
        read_table("-", None)
    monkeypatch.setattr(sys, "stdin", None)
    with pytest.raises(ValueError, match=r"^There is no standard input to read tickets from; give a file name"):
        read_table("-", None)


def test_classify_reads_standard_input_and_writes_standard_output(monkeypatch, capsys):
    stdin_of(monkeypatch, ("text\n" + "\n".join(TICKETS) + "\n").encode())
    assert main(["classify", "-", "--fast", "--threads", "1", "--out", "-"]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines()[0].startswith("text,label,") and len(out.splitlines()) == 4
    assert "3 tickets from column 'text'" in err


@pytest.mark.parametrize("name", ["x.csv/", "x.xlsx/", "sub/x.csv/"])
def test_an_out_that_ends_in_a_slash_is_refused_and_nothing_written(tmp_path, name):
    (tmp_path / "sub").mkdir()
    with pytest.raises(ValueError, match=r"ends in a slash, as a folder's name does; give a file name\.$"):
        check_output(f"{tmp_path}/{name}", {})
    assert not (tmp_path / "x.csv").exists() and not (tmp_path / "sub" / "x.csv").exists()


def test_one_is_said_in_the_singular():
    assert [counted(n, "ticket") for n in (0, 1, 2)] == ["0 tickets", "1 ticket", "2 tickets"]
    assert plural(1, "has", "have") == "has" and plural(3, "has", "have") == "have"
    question = export_question(ExportCounts(tickets=1, unlabelled=1, ahead=0))
    assert question.startswith("1 of 1 ticket is not labelled yet; it is exported"), question


def test_classify_says_one_ticket_and_one_taught_ticket(tmp_path, capsys):
    tickets = tmp_path / "one.csv"
    tickets.write_text("text\nmy card was charged twice\n", encoding="utf-8")
    profile = default_profile()
    profile.taught = [Example("where is my refund", profile.label_names[0])]
    prompt = tmp_path / "p.json"
    profile.save(prompt)
    out = tmp_path / "out.csv"
    assert main(["classify", str(tickets), "--fast", "--prompt", str(prompt), "--threads", "1", "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "1 ticket from column 'text'" in err and "teaching from 1 taught ticket saved" in err
    assert "labels learned from 1 taught ticket and" in err and "1 row read, 1 labelled" in err
    assert "1 tickets" not in err and "1 taught tickets" not in err and "1 rows" not in err


@pytest.mark.parametrize("where", ["missing.json", "t.csv/p.json"])
def test_a_prompt_that_cannot_be_read_ends_in_a_full_stop(tmp_path, capsys, where):
    tickets = tmp_path / "t.csv"
    tickets.write_text("text\nmy card was charged twice\n", encoding="utf-8")
    assert main(["classify", str(tickets), "--fast", "--prompt", str(tmp_path / where)]) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith("ticket-triage: Cannot read prompt profile") and err.endswith("directory."), err


def test_a_long_taught_ticket_in_the_file_is_taught_on_its_row_as_in_the_window(tmp_path, capsys):
    """classify cut a taught text to 2,000 characters before looking for its row, so a long taught ticket
    in the file was not taught there (the window teaches its row); the cut is now where features are made."""
    import csv

    long = "my card was charged twice and nobody answers " * 60  # 2,700 characters
    tickets = tmp_path / "t.csv"
    with open(tickets, "w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows([["text"], [long], ["where is my refund"]])
    profile = default_profile()
    profile.taught = [Example(long, profile.label_names[-1])]
    prompt = tmp_path / "p.json"
    profile.save(prompt)
    out = tmp_path / "out.csv"
    assert main(["classify", str(tickets), "--fast", "--prompt", str(prompt), "--threads", "1", "--out", str(out)]) == 0
    rows = list(csv.DictReader(io.StringIO(out.read_text(encoding="utf-8"))))
    assert rows[0]["label_source"] == "taught" and rows[0]["label"] == profile.label_names[-1]
    assert "longer than 2,000 characters; it is learned from the beginning" in capsys.readouterr().err


def test_an_existing_folder_with_its_slash_is_still_called_a_folder(tmp_path):
    with pytest.raises(ValueError, match=r"is a folder; give a file name\.$"):
        check_output(f"{tmp_path}/", {})
    (tmp_path / "x.csv").write_text("kept", encoding="utf-8")
    with pytest.raises(ValueError, match="ends in a slash"):
        check_output(f"{tmp_path}/x.csv/", {})
    assert (tmp_path / "x.csv").read_text(encoding="utf-8") == "kept"


def test_train_from_standard_input_is_refused_in_one_sentence(tmp_path, capsys):
    tickets = tmp_path / "t.csv"
    tickets.write_text("text\nmy card was charged twice\n", encoding="utf-8")
    assert main(["classify", str(tickets), "--fast", "--train", "-"]) == 2
    assert capsys.readouterr().err.strip().endswith("standard input (-) is only for the tickets to label.")
