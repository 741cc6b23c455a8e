"""A hostile sweep of the several-fields paths (W6): what a lead gets from `eval` and the prompt editor when
the input is wrong, each refused in one sentence before any scoring."""

from __future__ import annotations

import csv
from dataclasses import replace

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


@pytest.fixture
def window(encoded_window):
    return encoded_window


def test_removing_the_first_of_two_fields_and_saving_keeps_the_other_fields_taught_tickets(qtbot, window, tmp_path):
    """The priority left alone was saved as the first field had been: its taught tickets were dropped from the
    file and the window (the queue's kept against labels it no longer has), with no undo to bring them back."""
    from PySide6.QtCore import Qt
    from test_window_fields import cell, open_two_fields, press

    from triage_gui.engine.prompt import PromptProfile
    from triage_gui.gui.tickets.ticket_model import Col, FieldCol

    path = open_two_fields(qtbot, window, tmp_path)
    session, editor = window.session, window.editor
    for row in (3, 5):
        press(qtbot, window, row, FieldCol(1, "priority"), Qt.Key.Key_1)  # "low"
        qtbot.waitUntil(lambda: not session.busy, timeout=10_000)
    press(qtbot, window, 7, Col.LABEL, Qt.Key.Key_2)  # the queue's "technical"
    qtbot.waitUntil(lambda: not session.busy and not window.document.busy, timeout=10_000)
    taught = {session.table.texts[3]: "low", session.table.texts[5]: "low", "refund problem number 0": "high"}
    editor.field_bar.combo.setCurrentIndex(0)
    editor.remove_field()  # the queue: the priority is the prompt now
    assert editor.label_names() == ["low", "high"]
    assert window.prompt.save()
    qtbot.waitUntil(lambda: not session.busy and not window.document.busy, timeout=15_000)
    saved = PromptProfile.load(path)
    assert not saved.several and saved.label_names == ["low", "high"]
    assert {e.text: e.label for e in saved.taught} == taught
    assert dict(session.taught) == taught
    assert cell(window, 3, Col.LABEL) == "✓ low" and not cell(window, 7, Col.LABEL).startswith("✓")


@pytest.mark.parametrize("removed", [1, 0])
def test_a_field_removed_saved_then_put_back_by_undo_and_saved_gets_its_taught_tickets_back(
    qtbot, window, tmp_path, removed
):
    """Remove a field, Save, Edit › Undo in the editor, Save: the field came back without its taught tickets
    (the lead's teaching of that field gone from the file and the window)."""
    from PySide6.QtCore import Qt
    from test_window_fields import cell, open_two_fields, press

    from triage_gui.engine.prompt import PromptProfile
    from triage_gui.gui.tickets.ticket_model import Col, FieldCol

    path = open_two_fields(qtbot, window, tmp_path)
    session, editor = window.session, window.editor
    for row in (3, 5):
        press(qtbot, window, row, FieldCol(1, "priority"), Qt.Key.Key_1)  # "low"
        qtbot.waitUntil(lambda: not session.busy, timeout=10_000)
    press(qtbot, window, 7, Col.LABEL, Qt.Key.Key_2)  # the queue's "technical"
    qtbot.waitUntil(lambda: not session.busy and not window.document.busy, timeout=10_000)
    texts = session.table.texts
    priority = {texts[3]: "low", texts[5]: "low", "refund problem number 0": "high"}
    queue = {texts[7]: "technical"}
    editor.field_bar.combo.setCurrentIndex(removed)
    editor.remove_field()
    assert window.prompt.save()
    qtbot.waitUntil(lambda: not session.busy and not window.document.busy, timeout=15_000)
    editor.undo_edit()
    assert [f.name for f in editor.profile().fields] == ["queue", "priority"]
    assert window.prompt.save()
    qtbot.waitUntil(lambda: not session.busy and not window.document.busy, timeout=15_000)
    saved = PromptProfile.load(path)
    assert [f.name for f in saved.fields] == ["queue", "priority"]
    assert {e.text: e.label for e in saved.taught} == queue
    assert {e.text: e.label for e in saved.more_fields[0].taught} == priority
    assert dict(session.taught) == queue and dict(session.fields.items(1)) == priority
    assert cell(window, 3, FieldCol(1, "priority")) == "✓ low" and cell(window, 7, Col.LABEL) == "✓ technical"


def test_classify_refuses_a_train_column_with_no_label_of_its_field_before_labelling_any_field(tmp_path, monkeypatch):
    """A --train file whose priority column holds P1/P2 (no label of the field) was refused only once the queue
    had been labelled in full (the language model's scoring of every ticket: minutes), with nothing written."""
    import argparse

    from fake_engine import FakeEncoder, FakeEngine
    from test_session_learning import topical

    from triage_gui.commands import classify
    from triage_gui.engine.table import TicketTable

    train = tmp_path / "train.csv"
    with open(train, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["text", "queue", "priority"])
        writer.writerows([f"refund problem {i}", "billing", f"P{i % 3 + 1}"] for i in range(6))
    table = TicketTable()
    table.add(topical(8))
    labelled = []
    monkeypatch.setattr(classify, "load_encoder_for", lambda args, table=None: FakeEncoder(FakeEngine()))
    monkeypatch.setattr(classify, "label_table", lambda args, table, *rest: labelled.append(args.train))
    args = argparse.Namespace(
        train=str(train), train_label=None, fast=True, no_learning=False, ray=None, batch_size=4, baseline=False,
        no_taught=False, encoder="bundled", column=None,
    )  # fmt: skip
    out = tmp_path / "out.csv"
    with pytest.raises(ValueError, match="no row of column 'priority' holds a label of the prompt"):
        classify.run_fields(args, two_fields(), table, str(out))
    assert labelled == [] and not out.exists()


def test_a_new_field_given_a_removed_fields_name_with_other_labels_starts_with_no_taught_tickets(
    qtbot, window, tmp_path
):
    from test_window_fields import open_two_fields

    from triage_gui.engine.prompt import Field, Label, PromptProfile

    path = open_two_fields(qtbot, window, tmp_path)
    session, editor = window.session, window.editor
    editor.field_bar.combo.setCurrentIndex(1)
    editor.remove_field()  # the priority, with its taught "refund problem number 0": high
    assert window.prompt.save()
    qtbot.waitUntil(lambda: not session.busy and not window.document.busy, timeout=15_000)
    queue = PromptProfile.load(path).fields[0]
    other = Field("priority", "Is the customer angry?", [Label("calm", "calm"), Label("angry", "angry")])
    assert window.document.save(PromptProfile.of_fields([replace(queue, name="queue"), other]), []) == ""
    saved = PromptProfile.load(path)
    assert [f.name for f in saved.fields] == ["queue", "priority"] and saved.more_fields[0].taught == []


def test_a_workbook_of_several_fields_past_excels_columns_is_refused_before_any_labelling(tmp_path, monkeypatch):
    """The check before scoring counted a one-field export's eight columns of ours; two fields add nine (three
    fields twelve), so an input one column short of Excel's limit passed it and was written as a workbook
    Excel cannot open, after the labelling."""
    import argparse

    from triage_gui.commands import classify
    from triage_gui.engine.table import NewRow, TicketTable
    from triage_gui.engine.tickets import fields_workbook

    width = 16_384 - 8  # one column more than two fields' nine fit beside
    table = TicketTable()
    table.add([NewRow({"text": "my card", **{f"c{i}": "" for i in range(width - 1)}}, "my card")])
    labelled = []
    monkeypatch.setattr(classify, "label_table", lambda *a: labelled.append(1))
    args = argparse.Namespace(
        train=None, train_label=None, fast=True, no_learning=True, ray=None, column=None, baseline=False, no_taught=True
    )
    with pytest.raises(ValueError, match="16,385 columns are more than an Excel sheet holds"):
        classify.run_fields(args, two_fields(), table, str(tmp_path / "out.xlsx"))
    assert labelled == [] and not (tmp_path / "out.xlsx").exists()
    with pytest.raises(ValueError, match="16,385 columns"):
        fields_workbook(table, ["queue", "priority"], [[("", "", "")]] * 2, "h")


def teach_priority_low(qtbot, window, rows=(3, 5)) -> dict[str, str]:
    from PySide6.QtCore import Qt
    from test_window_fields import press

    from triage_gui.gui.tickets.ticket_model import FieldCol

    session = window.session
    for row in rows:
        press(qtbot, window, row, FieldCol(1, "priority"), Qt.Key.Key_1)  # "low"
        qtbot.waitUntil(lambda: not session.busy, timeout=10_000)
    qtbot.waitUntil(lambda: not window.document.busy, timeout=10_000)
    return {**{session.table.texts[r]: "low" for r in rows}, "refund problem number 0": "high"}


def test_a_field_renamed_and_saved_keeps_its_taught_tickets_in_the_file_and_the_window(qtbot, window, tmp_path):
    from test_window_fields import open_two_fields

    from triage_gui.engine.prompt import PromptProfile

    path = open_two_fields(qtbot, window, tmp_path)
    taught = teach_priority_low(qtbot, window)
    window.editor.field_bar.combo.setCurrentIndex(1)
    window.editor.rename_field("urgency")
    assert window.prompt.save()
    qtbot.waitUntil(lambda: not window.session.busy and not window.document.busy, timeout=15_000)
    saved = PromptProfile.load(path)
    assert [f.name for f in saved.fields] == ["queue", "urgency"]
    assert {e.text: e.label for e in saved.more_fields[0].taught} == taught
    assert dict(window.session.fields.items(1)) == taught


@pytest.mark.parametrize("ext", ["csv", "xlsx"])
def test_an_export_while_a_refit_runs_writes_every_row_once_in_order_with_both_fields(qtbot, window, tmp_path, ext):
    from PySide6.QtCore import Qt
    from test_window_fields import N, open_two_fields, press

    from triage_gui.gui.tickets.ticket_model import FieldCol

    open_two_fields(qtbot, window, tmp_path)
    session = window.session
    written = []
    for i, row in enumerate((2, 7, 9)):
        press(qtbot, window, row, FieldCol(1, "priority"), Qt.Key.Key_2)  # a refit starts
        out = tmp_path / f"out{i}.{ext}"
        assert window.ticket_actions.export(str(out))
        written.append(out)
    qtbot.waitUntil(lambda: all(out.exists() for out in written), timeout=10_000)
    qtbot.waitUntil(lambda: not session.busy and not window.document.busy, timeout=15_000)
    for out in written:
        if ext == "csv":
            with open(out, newline="", encoding="utf-8") as handle:
                rows = list(csv.DictReader(handle))
        else:
            import openpyxl

            values = list(openpyxl.load_workbook(out).active.iter_rows(values_only=True))
            rows = [dict(zip(values[0], ["" if v is None else str(v) for v in r], strict=True)) for r in values[1:]]
        assert [r["text"] for r in rows] == session.table.texts[:N]
        assert all(r["queue_label"] and r["priority_label"] for r in rows)


def test_a_fields_file_with_a_top_level_ordered_is_refused_in_one_sentence_not_read_unordered(tmp_path):
    """``"ordered": true`` beside a fields list (a one-field file's key, a field added by hand) was dropped
    without a word: the priority read unordered, and the next Save wrote the file without it."""
    import json

    from triage_gui.engine.prompt import load_profile

    data = two_fields().to_dict()
    data["ordered"] = True
    path = tmp_path / "p.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ValueError, match=r"^The prompt profile has both a fields list and a top-level 'ordered'; "):
        load_profile(path)


def test_the_first_field_put_back_by_undo_and_saved_leaves_the_other_fields_undo_steps_and_sample(
    qtbot, window, tmp_path
):
    """Walkthrough W8: the queue removed and saved, put back by Edit › Undo in the editor and saved: the
    priority, the one field in between, lost every undo step (Edit › Undo greyed, the ticket taught a minute
    before no longer undoable) and its random sample still to check went empty."""
    from PySide6.QtCore import Qt
    from test_window_field_order import settled
    from test_window_fields import open_two_fields, press

    from triage_gui.gui.tickets.ticket_model import FieldCol

    open_two_fields(qtbot, window, tmp_path)
    session, editor = window.session, window.editor
    settled(qtbot, window)
    rows = session.draw_checks(1)
    session.accept_field(1, rows[:2])
    row = next(r for r in (4, 5, 6) if r not in rows[:2])  # not one the accept taught (the draw is random)
    text = session.table.texts[row]
    press(qtbot, window, row, FieldCol(1, "priority"), Qt.Key.Key_1)  # a priority ticket taught "low"
    qtbot.waitUntil(lambda: not session.busy and not window.document.busy, timeout=10_000)
    left = session.field_check_status(1).to_check
    assert left
    editor.field_bar.combo.setCurrentIndex(0)
    editor.remove_field()  # the queue
    assert window.prompt.save()
    qtbot.waitUntil(lambda: not session.busy and not window.document.busy, timeout=15_000)
    assert session.history.undo_text.startswith("teach 1 ticket 'low'")
    editor.undo_edit()  # the queue back, first
    assert window.prompt.save()
    settled(qtbot, window)
    assert session.field_names == ["queue", "priority"]
    assert session.history.undo_text.startswith("teach 1 ticket 'low' (priority)")  # (with its check: if drawn)
    assert session.field_check_status(1).to_check == left
    window.trigger("undo")
    qtbot.waitUntil(lambda: not session.busy, timeout=10_000)
    assert text not in dict(session.fields.items(1))
