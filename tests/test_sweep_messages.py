"""Sweep five: a prompt file with several problems reads as sentences, not as "labels.; Example 1"."""

from __future__ import annotations

import json

import pytest

from triage_gui.engine.prompt import ProfileError, PromptProfile, default_profile, load_profile


def test_several_problems_read_as_sentences(tmp_path):
    data = default_profile().to_dict()
    data["labels"] = []  # a hand edit that left every example on an unknown label
    path = tmp_path / "p.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ProfileError) as caught:
        load_profile(path)
    message = str(caught.value)
    assert ".;" not in message
    assert message.startswith("Define at least two labels. Example 1 uses unknown label")
    assert message.endswith(".")


def test_a_missing_field_is_one_sentence(tmp_path):
    data = default_profile().to_dict()
    del data["instruction"]
    path = tmp_path / "p.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ValueError, match=r"missing a field: 'instruction'\.$"):
        PromptProfile.load(path)


def test_one_row_is_one_row_in_the_summary(capsys):
    from triage_gui.commands.classify import report, row_counts
    from triage_gui.engine.table import NewRow, TicketTable

    t = TicketTable()
    t.add([NewRow({"text": ""}, "", "t.csv", "blank ticket text")])
    assert row_counts(t).startswith("1 row read, 0 labelled")
    report(t, False)
    err = capsys.readouterr().err
    assert "1 row without ticket text kept unlabelled" in err and "1 rows" not in err


def test_text_where_a_list_belongs_is_called_text(tmp_path):
    data = default_profile().to_dict()
    data["labels"] = "billing"
    path = tmp_path / "p.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ValueError, match=r"labels must be a list, not text\.$"):
        load_profile(path)


def test_schema_version_true_is_no_version(tmp_path):
    data = default_profile().to_dict()
    data["schema_version"] = True  # Python's True == 1; a hand edit's true is no version number
    path = tmp_path / "p.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ValueError, match="Unsupported prompt profile schema_version True"):
        load_profile(path)
