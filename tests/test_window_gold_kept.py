"""A file's gold column comes back when the file is opened again after a label was renamed or removed (W14): a
lead renamed the queue label 'accounts' to 'identity' and removed 'other'; the queue column stayed gold while the
window was open (a label renamed keeps it), but after a restart 18 % of its values were no label name, under the
90 % a column needs to be found, and Gold (queue) said (none) without a word. The column found or chosen is
remembered for the file's header, with the value mappings, and used again where it still holds a label."""

from __future__ import annotations

from triage_gui.session.evaluation import Evaluation

TEAMS = ["billing", "technical", "account"]


def opened(qtbot, window, path) -> None:
    window.session.open_file(path)
    qtbot.waitUntil(
        lambda: window.session.run_status.state == "done" and len(window.session.table) == 30, timeout=10_000
    )
    qtbot.waitUntil(lambda: not window.session.busy, timeout=10_000)


def test_the_gold_column_comes_back_after_a_label_was_renamed(qtbot, window, tmp_path):
    path = tmp_path / "tickets.csv"
    path.write_text("text,team\n" + "".join(f"ticket {i},{TEAMS[i % 3]}\n" for i in range(30)), encoding="utf-8")
    opened(qtbot, window, path)
    evaluation = window.evaluation
    assert evaluation.gold is not None and evaluation.gold.column == "team"
    assert window.editor.label_names() == TEAMS
    window.editor.labels.item(2, 0).setText("login")  # 'account' renamed: a third of the column is no label now
    window.editor.flush_snapshot()
    assert window.prompt.save()
    qtbot.waitUntil(lambda: window.session.table.labels == ["billing", "technical", "login"], timeout=10_000)
    qtbot.waitUntil(lambda: not window.session.busy, timeout=10_000)
    assert evaluation.gold is not None and evaluation.gold.column == "team"  # kept while the window is open

    again = Evaluation(window.session.table, evaluation.mappings)  # a restart: what the settings keep
    assert again.detect("text") and again.gold is not None and again.gold.column == "team"

    window.session.clear()
    opened(qtbot, window, path)  # the same file opened again
    assert evaluation.gold is not None and evaluation.gold.column == "team"
    assert window.tickets.gold_combo.currentText() == "team"


def test_a_column_the_lead_set_to_none_is_not_brought_back(qtbot, window, tmp_path):
    path = tmp_path / "tickets.csv"
    path.write_text("text,team\n" + "".join(f"ticket {i},{TEAMS[i % 3]}\n" for i in range(30)), encoding="utf-8")
    opened(qtbot, window, path)
    window.evaluation.choose(None)  # the lead's (none)
    again = Evaluation(window.session.table, window.evaluation.mappings)
    window.editor.labels.item(2, 0).setText("login")
    window.editor.flush_snapshot()
    assert window.prompt.save()
    qtbot.waitUntil(lambda: window.session.table.labels == ["billing", "technical", "login"], timeout=10_000)
    assert not again.detect("text") and again.gold is None
