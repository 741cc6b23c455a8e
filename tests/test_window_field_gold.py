"""A gold column and the Accuracy tab per field (issue 34), on the window with the fake session and its fake
encoder: a file with a ``queue`` and a ``priority`` column gives each field of a two-field prompt its own gold
column; each field's accuracy is a hand count over its own rows; teaching a priority ticket leaves the queue's
accuracy as it was and is judged out of fold in the priority's; an ordered field (low < medium < high) counts
and marks the labels two steps from their gold or taught one; a one-field prompt's tab is as it was."""

from __future__ import annotations

import re

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QApplication
from test_session_fields import QUEUE
from test_session_learning import WORDS

from triage_gui.engine.prompt import Example, Field, Label, PromptProfile
from triage_gui.engine.scoring import far_apart, steps_apart
from triage_gui.engine.table import TicketTable
from triage_gui.gui.results.summary import TAUGHT_NOTE
from triage_gui.gui.tickets.ticket_model import Col, FieldCol
from triage_gui.session.gold import FAR_MARK

N = 36
ORDER = ["low", "medium", "high"]
PRIORITY = Field(
    "priority",
    "How urgent is it?",
    [
        Label("low", "password login address question"),
        Label("medium", "refund invoice fee payment"),
        Label("high", "crash error broken freezes bug"),
    ],
    [Example("how do I change my address", "low"), Example("the app crash lost my work", "high")],
    ordered=True,
)


def priority_of(i: int) -> str:
    """The file's priority: mostly what the words say (account low, billing medium, technical high), every
    fourth ticket the other way round, so some labels are two steps from their gold one."""
    by_queue = {"account": "low", "billing": "medium", "technical": "high"}[list(WORDS)[i % 3]]
    return ORDER[2 - ORDER.index(by_queue)] if i % 4 == 3 else by_queue


def write_file(path) -> list[dict[str, str]]:
    names = list(WORDS)
    rows = []
    for i in range(N):
        queue = names[i % 3]
        rows.append({"text": f"{WORDS[queue][i % 5]} problem number {i}", "queue": queue, "priority": priority_of(i)})
    path.write_text(
        "text,queue,priority\n" + "".join(f"{r['text']},{r['queue']},{r['priority']}\n" for r in rows),
        encoding="utf-8",
    )
    return rows


@pytest.fixture
def window(encoded_window):
    encoded_window.resize(1024, 640)
    return encoded_window


def settled(qtbot, window) -> None:
    session = window.session
    qtbot.waitUntil(lambda: not session.busy and session.run_status.state == "done", timeout=15_000)
    qtbot.waitUntil(lambda: (t := session.field_table(1)) is not None and len(t) == N, timeout=10_000)
    qtbot.waitUntil(lambda: not session.busy, timeout=10_000)
    window.summary.redraw()


def open_two_fields(qtbot, window, tmp_path) -> list[dict[str, str]]:
    path = tmp_path / "two.json"
    PromptProfile.of_fields([QUEUE, PRIORITY], "Queue and priority").save(path)
    assert window.prompt.open(str(path))
    qtbot.waitUntil(lambda: window.session.field_names == ["queue", "priority"], timeout=10_000)
    rows = write_file(tmp_path / "tickets.csv")
    window.session.open_file(tmp_path / "tickets.csv")
    settled(qtbot, window)
    return rows


def show_field(window, field: int) -> str:
    """Choose the field in the Accuracy tab's selector, as the lead would; the tab's text."""
    window.results.setCurrentIndex(1)
    window.results.field_choice.setCurrentIndex(field)
    window.results.field_choice.activated.emit(field)
    return shown(window)


def shown(window) -> str:
    """The Accuracy tab's text as the lead reads it (its rich text rendered: a bare "<" once hid the rest)."""
    document = QTextDocument()
    document.setHtml(window.results.accuracy.text())
    return document.toPlainText()


def shown_accuracy(text: str) -> tuple[int, int]:
    found = re.search(r"\(([\d,]+)/([\d,]+) with a gold label", text)
    assert found, text
    return int(found[1].replace(",", "")), int(found[2].replace(",", ""))


def hand_count(table: TicketTable, gold: list[str]) -> tuple[int, int, int]:
    """(right, counted, two steps apart) over the table's rows: every row with a label to judge by (a taught
    row's: the one a model not trained on it gives), against the file's gold value."""
    right = total = far = 0
    for row in range(len(table)):
        judged = table.evaluated_label(row)
        if judged is None:
            continue
        total += 1
        right += judged == gold[row]
        if judged in ORDER:
            far += abs(ORDER.index(judged) - ORDER.index(gold[row])) >= 2
    return right, total, far


def test_each_field_finds_its_own_gold_column_and_its_accuracy_is_a_hand_count(qtbot, window, tmp_path):
    rows = open_two_fields(qtbot, window, tmp_path)
    session, evaluation, model = window.session, window.evaluation, window.model
    assert evaluation.gold is not None and evaluation.gold.column == "queue"
    priority_gold = evaluation.gold_for("priority")
    assert priority_gold is not None and priority_gold.column == "priority"
    assert window.tickets.gold_combo.currentText() == "queue"
    assert window.tickets.field_gold.combos[0].currentText() == "priority"
    assert model.columns()[-2:] == ["Gold (queue)", "Gold (priority)"]
    gold_cells = [model.index(r, model.column_index(FieldCol(1, "priority", gold=True))).data() for r in range(N)]
    assert gold_cells == [r["priority"] for r in rows]

    queue_text = show_field(window, 0)
    right, total, _ = hand_count(session.table, [r["queue"] for r in rows])
    assert total == N and shown_accuracy(queue_text) == (right, total)
    assert "two or more steps" not in queue_text  # the queue's labels are in no order

    priority_text = show_field(window, 1)
    second = session.field_table(1)
    right, total, far = hand_count(second, [r["priority"] for r in rows])
    assert total == N and shown_accuracy(priority_text) == (right, total)
    assert f"{100 * right / total:.1f}%" in priority_text
    assert f"; {far} two or more steps from their gold label (low < medium < high)" in priority_text
    assert 0 < far < N and right < N  # the test can tell a wrong count from a right one
    # Each field's own random-check estimate beside its gold figure (the queue's checks are not the priority's)
    assert "Random-check estimate: none yet" in priority_text
    row = session.draw_checks(1)[0]
    session.teach_field(1, [row], second.labels[int(second.label_ids()[row])])  # "right as shown"
    qtbot.waitUntil(lambda: "Random-check estimate: priority ~100%" in show_field(window, 1), timeout=10_000)
    assert "Random-check estimate: none yet" in show_field(window, 0)


def test_teaching_a_priority_ticket_leaves_the_queue_alone_and_is_judged_out_of_fold(qtbot, window, tmp_path):
    rows = open_two_fields(qtbot, window, tmp_path)
    session = window.session
    queue_before = show_field(window, 0)
    second = session.field_table(1)
    wrong = [r for r in range(N) if second.label(r) != rows[r]["priority"]]
    assert wrong
    row = wrong[0]
    session.teach_field(1, [row], rows[row]["priority"])  # taught its gold priority
    qtbot.waitUntil(lambda: session.field_table(1) is not second, timeout=10_000)
    settled(qtbot, window)
    assert show_field(window, 0) == queue_before  # the queue's accuracy, word for word
    second = session.field_table(1)
    assert second.taught_label(row) == rows[row]["priority"] and row in second.out_of_fold
    judged = second.evaluated_label(row)
    assert judged != rows[row]["priority"]  # counted with its taught label, the count below would be one more
    text = show_field(window, 1)
    right, total, _ = hand_count(second, [r["priority"] for r in rows])
    assert shown_accuracy(text) == (right, total) and total == N
    assert TAUGHT_NOTE in text  # the first field's words: taught tickets judged out of fold
    assert session.table.taught_label(row) is None  # the queue was not taught


def test_an_ordered_field_marks_a_label_two_steps_from_its_gold_or_taught_one(qtbot, window, tmp_path):
    rows = open_two_fields(qtbot, window, tmp_path)
    session, model = window.session, window.model
    second = session.field_table(1)
    column = model.column_index(FieldCol(1, "priority"))
    marked = {r for r in range(N) if str(model.index(r, column).data()).startswith(FAR_MARK)}
    far = {r for r in range(N) if second.label(r) in ORDER and
           abs(ORDER.index(second.label(r)) - ORDER.index(rows[r]["priority"])) >= 2}  # fmt: skip
    assert marked == far and far
    row = min(far)
    tip = model.index(row, column).data(Qt.ItemDataRole.ToolTipRole)
    assert tip.splitlines()[0] == (
        f"{FAR_MARK}Two or more steps apart: labelled {second.label(row)}, gold {rows[row]['priority']}."
    )
    queue_column = model.column_index(Col.LABEL)
    assert not any(str(model.index(r, queue_column).data()).startswith(FAR_MARK) for r in range(N))  # not ordered

    taught = next(r for r in range(N) if r not in far and second.label(r) in ("low", "high"))
    opposite = "high" if second.label(taught) == "low" else "low"
    session.teach_field(1, [taught], opposite)  # the lead says the other end of the order
    qtbot.waitUntil(lambda: session.field_table(1) is not second, timeout=10_000)
    settled(qtbot, window)
    second = session.field_table(1)
    judged = second.evaluated_label(taught)  # out of fold: what a first pass not trained on it gives
    assert judged is not None and abs(ORDER.index(judged) - ORDER.index(opposite)) >= 2
    cell = model.index(taught, column)
    assert cell.data() == f"{FAR_MARK}✓ {opposite}"
    said = f"{FAR_MARK}Two or more steps apart: taught {opposite}, the classifier not trained on it gives {judged}"
    tip = cell.data(Qt.ItemDataRole.ToolTipRole).splitlines()
    assert tip[0] == said + " (the figures below: trained with it)."  # W4: which classifier each is, said
    figures = dict(line.split(": ") for line in tip[2:])
    trained = second.label_probs(taught)
    assert figures == {label: f"{p:.3f}" for label, p in zip(second.labels, trained, strict=True)}


def test_the_lead_clears_and_chooses_a_fields_gold_column(qtbot, window, tmp_path):
    open_two_fields(qtbot, window, tmp_path)
    evaluation, model = window.evaluation, window.model
    combo = window.tickets.field_gold.combos[0]
    combo.setCurrentText("(none)")
    combo.activated.emit(combo.currentIndex())
    assert evaluation.gold_for("priority") is None and evaluation.gold is not None  # the queue's stays
    assert model.columns()[-1] == "Gold (queue)"
    assert "Pick a gold column for priority" in show_field(window, 1)
    combo.setCurrentText("priority")
    combo.activated.emit(combo.currentIndex())
    assert evaluation.gold_for("priority").column == "priority"
    assert model.columns()[-1] == "Gold (priority)"
    assert "with a gold label" in show_field(window, 1)


def test_a_cell_of_a_further_fields_confusion_matrix_lists_that_fields_tickets(qtbot, window, tmp_path):
    rows = open_two_fields(qtbot, window, tmp_path)
    show_field(window, 1)
    second = window.session.field_table(1)
    g, p = ORDER.index("high"), ORDER.index("low")
    window.results.confusion.cellClicked.emit(g, p)
    proxy = window.tickets.proxy
    listed = sorted(proxy.mapToSource(proxy.index(i, 0)).row() for i in range(proxy.rowCount()))
    want = [r for r in range(N) if rows[r]["priority"] == "high" and second.evaluated_label(r) == "low"]
    assert listed == want


def move_priority_first(qtbot, window) -> None:
    """◀ on the priority in the editor's field bar, then Save, as the lead does; settled."""
    session = window.session
    window.editor.field_bar.combo.setCurrentIndex(1)  # the priority in the editor
    window.editor.field_bar.left_action.trigger()  # Move > Move left in the field bar
    assert window.prompt.save()
    qtbot.waitUntil(lambda: session.field_names == ["priority", "queue"], timeout=10_000)
    qtbot.waitUntil(lambda: not session.busy and session.run_status.state == "done", timeout=15_000)
    qtbot.waitUntil(lambda: (t := session.field_table(1)) is not None and len(t) == N, timeout=10_000)
    qtbot.waitUntil(lambda: not session.busy, timeout=10_000)
    window.summary.redraw()


def test_a_save_that_moves_the_priority_first_lists_no_queue_labels_as_flips(qtbot, window, tmp_path):
    """Walkthrough W: the Flipped tab listed every ticket, "account and security → high", the queue's label under
    the last version against the priority's under this one; another field first is no flip of the first."""
    open_two_fields(qtbot, window, tmp_path)
    move_priority_first(qtbot, window)
    flips, count = window.evaluation.flips()
    assert count == 0 and flips == [] and window.results.tabText(2) == "Flipped"
    window.editor.field_bar.combo.setCurrentIndex(0)
    window.editor.instruction.setPlainText("How urgent is it, really?")  # an edit of the priority itself
    window.editor.flush_snapshot()
    window.prompt.edited()
    assert window.prompt.save()
    qtbot.waitUntil(lambda: not window.session.busy and window.session.run_status.state == "done", timeout=15_000)
    assert window.session.table.previous_ids().max() >= 0  # the priority's own last labels, kept to list flips


def test_each_gold_column_follows_its_field_when_a_save_moves_the_priority_first(qtbot, window, tmp_path):
    """Walkthrough W: Edit › Move the field left on the priority, then Save. Before, the priority (now first) kept
    the queue's column as its gold ("no ticket with a gold label", the Gold: combo said queue) and the queue's
    Gold (queue): combo said (none)."""
    rows = open_two_fields(qtbot, window, tmp_path)
    session, evaluation = window.session, window.evaluation
    move_priority_first(qtbot, window)
    assert evaluation.gold is not None and evaluation.gold.column == "priority"
    queue_gold = evaluation.gold_for("queue")
    assert queue_gold is not None and queue_gold.column == "queue"
    assert window.tickets.gold_combo.currentText() == "priority"
    assert window.tickets.field_gold.combos[0].currentText() == "queue"
    assert window.model.columns()[-2:] == ["Gold (priority)", "Gold (queue)"]
    priority_text = show_field(window, 0)
    right, total, _ = hand_count(session.table, [r["priority"] for r in rows])
    assert total == N and shown_accuracy(priority_text) == (right, total)
    queue_text = show_field(window, 1)
    right, total, _ = hand_count(session.field_table(1), [r["queue"] for r in rows])
    assert total == N and shown_accuracy(queue_text) == (right, total)


def test_at_1024x640_the_detail_panes_two_parts_are_not_cut_on_the_right(qtbot, window, tmp_path):
    """Walkthrough W, 1024x640: the pane's content ("Teach priority:" and its box, wider than the pane the splitter
    left) was cut on the right, as the header and the bars' values, by a scroll area that cannot scroll sideways."""
    from test_window_fit import in_viewport, name, walk

    open_two_fields(qtbot, window, tmp_path)
    window.tickets.select_source_row(3)
    for _ in range(3):
        QApplication.processEvents()
    problems = []
    for widget in walk(window.detail):
        area = in_viewport(widget)
        if area is not None and widget.mapTo(area.viewport(), widget.rect().topRight()).x() >= area.viewport().width():
            problems.append(f"{name(widget)} cut on the right")
    assert window.detail.parts and window.detail.parts[0].teach_label.text() == "Teach priority:"
    assert not problems, "\n".join(problems)


def test_a_one_field_prompt_has_no_field_selector_and_no_further_gold(qtbot, window, tmp_path):
    write_file(tmp_path / "tickets.csv")
    window.session.open_file(tmp_path / "tickets.csv")
    qtbot.waitUntil(lambda: not window.session.busy and window.session.run_status.state == "done", timeout=15_000)
    window.summary.redraw()
    assert window.evaluation.gold is not None and window.evaluation.field_gold == {}
    assert not window.tickets.field_gold.isVisible()
    assert window.results.accuracy_field() == 0 and window.results.field_choice.count() == 0
    assert window.model.columns()[-1] == f"Gold ({window.evaluation.gold.column})"
    assert "two or more steps" not in shown(window)


def test_far_apart_is_the_one_rule_and_never_counts_a_missing_label():
    gold = np.array([0, 0, 2, 1, -1, 2])
    given = np.array([2, 1, 0, 2, 0, -1])
    assert far_apart(gold, given).tolist() == [True, False, True, False, False, False]
    assert steps_apart(gold, given) == 2


def test_each_further_field_finds_the_column_its_labels_match_best_and_maps_its_own_values():
    from triage_gui.engine.table import NewRow
    from triage_gui.session.evaluation import Evaluation

    table = TicketTable()
    values = [
        {"text": f"ticket {i}", "queue": ["billing", "technical"][i % 2],
         "level": "urgent" if i == 5 else ORDER[i % 3], "urgency": ORDER[i % 3], "sla": f"P{i % 3}"}
        for i in range(24)
    ]  # fmt: skip
    table.add([NewRow(v, v["text"]) for v in values])
    table.start_version(0, ["billing", "technical"], [])
    evaluation = Evaluation(table)
    changed = []
    evaluation.field_gold_changed.connect(lambda name, gold: changed.append((name, gold and gold.column)))
    assert evaluation.detect("text") and evaluation.gold.column == "queue"
    assert evaluation.detect_fields("text", [("priority", ORDER), ("team", ["billing", "technical"])]) == ["priority"]
    assert evaluation.gold_for("priority").column == "urgency"  # every value a label; "level" (first) 23 of 24
    assert evaluation.gold_for("team") is None  # the queue's column is the first field's
    assert changed == [("priority", "urgency")]
    assert evaluation.detect_fields("text", [("priority", ORDER)]) == []  # once a file
    assert evaluation.needs_mapping("sla", "priority", ORDER) == (0, 24)
    evaluation.choose_for("priority", "sla", {"p0": "low", "p1": "medium", "p2": "high"})
    assert evaluation.needs_mapping("sla", "priority", ORDER) is None  # remembered for this header and field
    assert evaluation.needs_mapping("sla") == (0, 24)  # the first field's mapping is its own
    assert evaluation.gold_for("priority").label_for("P2", ORDER) == "high"
    evaluation.cleared()
    assert evaluation.gold_for("priority") is None and evaluation.gold is None


def test_a_further_fields_values_are_mapped_to_its_own_labels_once(qtbot, window, tmp_path, monkeypatch):
    from triage_gui.gui import dialogs

    rows = open_two_fields(qtbot, window, tmp_path)
    asked = []
    mapping = {"billing": "medium", "technical": "high", "account": "low"}

    def answer(parent, table, column, matched, total):
        asked.append((list(table.labels), column, matched, total))
        return mapping

    monkeypatch.setattr(dialogs, "gold_mapping", answer)
    combo = window.tickets.field_gold.combos[0]
    combo.setCurrentText("queue")  # the queue's values, read as priorities
    combo.activated.emit(combo.currentIndex())
    assert asked == [(ORDER, "queue", 0, N)]  # the priority's labels offered, not the queue's
    assert window.evaluation.gold_for("priority").column == "queue"
    text = show_field(window, 1)
    right, total, _ = hand_count(window.session.field_table(1), [mapping[r["queue"]] for r in rows])
    assert shown_accuracy(text) == (right, total)
    combo.setCurrentText("priority")
    combo.activated.emit(combo.currentIndex())
    combo.setCurrentText("queue")
    combo.activated.emit(combo.currentIndex())
    assert len(asked) == 1  # remembered for this file's header and this field


def test_learn_from_the_gold_column_teaches_the_field_of_the_column_in_use(qtbot, window, tmp_path, monkeypatch):
    """W13: *Teach › Learn from the gold column* taught the queue from the queue's gold column whichever column
    was in use, though the priority had its own. In the priority's column it teaches the priority from the
    priority's gold column (one undo step naming the field); the queue's taught set stays as it was."""
    from PySide6.QtWidgets import QMessageBox

    rows = open_two_fields(qtbot, window, tmp_path)
    session = window.session
    asked: list[str] = []

    def yes(parent, title, text, *args):
        asked.append(text)
        return QMessageBox.StandardButton.Yes

    monkeypatch.setattr(QMessageBox, "question", yes)
    model, view = window.model, window.tickets.table
    source = model.index(0, model.column_ids().index(FieldCol(1, "priority")))
    view.setCurrentIndex(window.tickets.proxy.mapFromSource(source))
    assert window.tickets.field_in_use == 1
    queue_taught = dict(session.taught)
    window.ticket_actions.learn_from_gold()
    assert asked and "the label for the priority in the priority column" in asked[0]
    assert session.taught_in(1) == {r["text"]: r["priority"] for r in rows}
    assert dict(session.taught) == queue_taught  # the queue as it was
    assert session.teaching.history.undo_text == f"learn {N} tickets from the gold column (priority)"
    qtbot.waitUntil(lambda: (t := session.field_table(1)) is not None and t.taught_label(5) is not None, timeout=10_000)
    second = session.field_table(1)
    assert second is not None and [second.taught_label(r) for r in range(N)] == [r["priority"] for r in rows]
