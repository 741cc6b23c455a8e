"""A hostile sweep of the several-fields paths (W6): what a lead gets from `eval` and the prompt editor when
the input is wrong, each refused in one sentence before any scoring."""

from __future__ import annotations

import csv

import pytest
from test_session_fields import two_fields

from triage_gui import commands as cli
from triage_gui.commands import evaluate


@pytest.fixture
def gold_file(tmp_path):
    path = tmp_path / "gold.csv"
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["text", "q", "p"])
        writer.writerows([f"ticket {i}", "billing", "low"] for i in range(12))
    prompt = tmp_path / "two.json"
    two_fields().save(prompt)
    return path, prompt


@pytest.mark.parametrize(
    ("gold", "said"),
    [
        ("queue=q,priority=nope", "no column 'nope' for field 'priority'; the file has: text, q, p"),
        ("queue=q,queue=p", "--gold names field 'queue' twice"),
    ],
)
def test_eval_refuses_a_wrong_gold_pair_before_measuring_any_field(gold_file, monkeypatch, capsys, gold, said):
    """A wrong column for the second field was found only after the first field's whole evaluation (the
    language model loaded, every ticket scored, its tables printed: minutes), and a field named twice was
    measured twice, the second time against the other field's column."""
    path, prompt = gold_file
    measured = []
    monkeypatch.setattr(evaluate, "eval_one", lambda args: measured.append(args.gold) or 0)
    assert cli.main(["eval", str(path), "--prompt", str(prompt), "--gold", gold]) == 2
    captured = capsys.readouterr()
    assert measured == [] and "## field" not in captured.out
    assert captured.err.strip() == f"ticket-triage: {said}"
