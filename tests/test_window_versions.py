"""Versions' Compare (issue 27), on the fake session: enabled only with two versions selected, a
side-by-side of what changed with each version's accuracy, and a Taught column."""

from __future__ import annotations

from PySide6.QtCore import QItemSelectionModel
from PySide6.QtWidgets import QTextBrowser

from triage_gui.engine.table import NewRow


def two_versions(qtbot, window) -> tuple[str, str]:
    labels = window.session.profile.label_names
    window.session.paste([NewRow({"text": f"t {i}", "team": labels[i % 3]}, f"t {i}") for i in range(30)], "text")
    qtbot.waitUntil(lambda: window.session.run_status.state == "done", timeout=10_000)
    window.evaluation.choose("team")
    window.refresh_stats()
    first = window.editor.instruction.toPlainText()
    window.editor.instruction.setPlainText("Route the ticket to one team.")
    window.editor.labels.item(0, 1).setText("Invoices, refunds and charges.")
    assert window.prompt.save()
    qtbot.waitUntil(
        lambda: window.session.run_status.state == "done" and len(window.document.history) == 2, timeout=10_000
    )
    qtbot.waitUntil(lambda: window.document.history[-1].accuracy is not None, timeout=10_000)
    window.prompt.refresh_versions()
    return first, labels[0]


def select(table, rows: list[int]) -> None:
    table.clearSelection()
    flags = QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows
    for row in rows:
        table.selectionModel().select(table.model().index(row, 0), flags)


def test_compare_needs_two_versions_and_shows_what_changed_with_each_accuracy(qtbot, window):
    first, label = two_versions(qtbot, window)
    results = window.results
    table, button = results.versions, results.compare_button
    headers = [table.horizontalHeaderItem(c).text() for c in range(table.columnCount())]
    assert headers[:4] == ["Version", "Saved", "Accuracy", "Taught"]
    assert not button.isEnabled()  # nothing selected: it did nothing
    select(table, [0])
    assert not button.isEnabled()  # one selected: it compared a version with itself
    select(table, [0, 1])
    assert button.isEnabled()
    button.click()
    dialog = window.prompt.diff_dialog
    text = dialog.findChild(QTextBrowser).toPlainText()
    assert "@@" not in text
    assert "Version 1" in text and "Version 2" in text
    assert "Instruction" in text and first in text and "Route the ticket to one team." in text
    assert f"Description of {label}" in text and "Invoices, refunds and charges." in text
    accuracy = window.document.history[-1].accuracy
    assert f"accuracy {100 * accuracy:.1f}% with 0 taught" in text
    dialog.close()


def test_the_versions_list_has_a_taught_column(qtbot, window):
    two_versions(qtbot, window)
    window.teach([0, 1], window.session.table.labels[0])
    qtbot.waitUntil(lambda: window.document.history[-1].taught == 2, timeout=10_000)
    window.prompt.refresh_versions()
    assert window.results.versions.item(0, 3).text() == "2"


def test_a_switch_of_sentence_encoder_gives_the_version_its_own_score_and_back_shows_the_first(qtbot, encoded_window):
    """Walkthrough W4: after Model › Choose model… the Versions tab kept the version's accuracy measured with
    the old encoder beside the Accuracy tab's new one (a version kept one score per file and taught set).
    The encoder is one of the conditions now: a new score, listed; switching back lists the first again."""
    from triage_gui.session.evaluation import encoder_print

    window = encoded_window
    two_versions(qtbot, window)
    session, document = window.session, window.document
    first = document.history[-1]
    assert len(first.scores) == 1 and first.scores[0].encoder == encoder_print(session.table) != "none"

    def scored_with_encoder_in_use():
        record = document.history[-1]
        shown = [m for m in record.scores if m.encoder == encoder_print(session.table)]
        return shown and record.accuracy == shown[0].accuracy and session.run_status.state == "done"

    assert session.set_encoder("other-encoder")
    qtbot.waitUntil(lambda: len(document.history[-1].scores) == 2, timeout=10_000)
    qtbot.waitUntil(scored_with_encoder_in_use, timeout=10_000)
    assert len({m.encoder for m in document.history[-1].scores}) == 2
    window.prompt.refresh_versions()
    cell = window.results.versions.item(0, 2).text()
    assert cell.startswith(f"{100 * document.history[-1].accuracy:.1f}")
    assert session.set_encoder("fake")  # back: the first score is the one listed, no third
    qtbot.waitUntil(lambda: document.history[-1].accuracy == first.accuracy and scored_with_encoder_in_use(),
                    timeout=10_000)  # fmt: skip
    assert len(document.history[-1].scores) == 2
