"""Numbers a lead can trust, in the window on a fake session: the random checks' estimate comes back after
File › Open of the same tickets and a restart, the Accuracy tab gives no change since a version until the
new one has labelled every gold row, and the export's question counts what the export writes."""

from __future__ import annotations

import csv

from window_fakes import close_fake, fake_window

from triage_gui.engine.table import NewRow
from triage_gui.engine.tickets import export_counts
from triage_gui.gui import dialogs


def write_tickets(path, labels: list[str], n: int = 40) -> str:
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["text", "team"])
        writer.writerows([f"ticket {i} about {labels[i % 3]}", labels[i % 3]] for i in range(n))
    return str(path)


def settled(window) -> bool:
    session = window.session
    return session.run_status.state == "done" and not session.busy and not window.document.busy


def test_the_estimate_comes_back_after_opening_the_same_tickets_and_a_restart(
    qtbot, tmp_path, monkeypatch, event_loop_qt
):
    monkeypatch.setenv("TRIAGE_GUI_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setattr(dialogs, "replace_or_add", lambda *a: True)  # File › Open asks: Replace
    first = fake_window(qtbot)
    first._closing = True  # no "still running" question when pytest-qt closes it, even after a failure
    try:
        path = write_tickets(tmp_path / "tickets.csv", first.session.profile.label_names)
        first.ticket_actions.open_files([path])
        # The first file imports the learning stack on its thread: 11 s beside four busy processes.
        qtbot.waitUntil(lambda: len(first.session.table) == 40 and settled(first), timeout=60_000)
        first.trigger("check")
        sample = list(first.session.checks.queue)[:5]
        for row in sample:  # five verdicts, Enter on each
            first.teaching.accept([row])
        qtbot.waitUntil(lambda: settled(first), timeout=10_000)
        shown = first.check_status.text()
        assert shown.startswith("~") and "5 checks on v1 with 0 taught, just now" in shown, shown
        first.ticket_actions.open_files([path])  # the same workbook again, replacing the tickets
        qtbot.waitUntil(lambda: len(first.session.table) == 40 and settled(first), timeout=10_000)
        assert first.check_status.text() == shown  # was "Accuracy: not estimated"
        assert not set(first.session.checks.draw()) & {first.session.table.texts.index(t) for t in
                                                       first.session.checks.checks}  # fmt: skip
    finally:
        close_fake(first)
    second = fake_window(qtbot)  # a restart
    second._closing = True
    try:
        assert second.session.checks.status.checked == 5
        assert second.check_status.text() == shown
        assert "from 5 random checks" in second.editor.taught_count.text()
    finally:
        close_fake(second)


def test_the_accuracy_tab_says_so_far_until_the_new_version_has_labelled_every_gold_row(qtbot, window, tmp_path):
    """At 1 of 400 re-scored the tab said "+7.9 points since version 2 (same gold rows and taught set)"."""
    session = window.session
    window._closing = True  # no "still running" question when pytest-qt closes it, even after a failure
    path = write_tickets(tmp_path / "tickets.csv", session.profile.label_names)
    window.ticket_actions.open_files([path])
    qtbot.waitUntil(lambda: window.evaluation.gold is not None and settled(window), timeout=10_000)
    qtbot.waitUntil(lambda: window.document.history[-1].accuracy is not None, timeout=10_000)  # v1 scored
    first = window.document.history[-1]
    window.fake.batch_seconds = 0.1
    window.editor.instruction.setPlainText(window.editor.instruction.toPlainText() + " Be brief.")
    window.trigger("save")
    qtbot.waitUntil(lambda: session.prompt_status.version == 1 and session.table.count_scored() >= 8, timeout=10_000)
    window.mark_dirty()
    window.refresh_stats()
    text = window.results.accuracy.text()
    assert "so far" in text and "of 40 gold rows labelled by this version" in text and "points" not in text, text
    window.fake.batch_seconds = 0.0
    qtbot.waitUntil(lambda: settled(window), timeout=10_000)
    window.mark_dirty()
    window.refresh_stats()
    assert "points since version 1 (same gold rows and taught set)" in window.results.accuracy.text()
    assert window.document.history[0].accuracy == first.accuracy  # v1's score stays v1's


def test_the_export_question_counts_what_the_export_writes(qtbot, tmp_path, monkeypatch, event_loop_qt):
    """During a re-label the question said "393 of 400 tickets are not labelled yet" and the export wrote
    all 400 labelled: the learned classifier labels tickets before the new version's run reaches them."""
    from fake_engine import FakeEngine
    from PySide6.QtWidgets import QFileDialog, QMessageBox
    from qt_helpers import close

    from triage_gui.gui.main_window import MainWindow
    from triage_gui.session.session import Session

    monkeypatch.setenv("TRIAGE_GUI_CONFIG_DIR", str(tmp_path / "config"))
    fake = FakeEngine()
    window = MainWindow(session=Session(fake.as_engine(), device="cpu", batch_size=4))  # with the encoder
    window._closing = True
    qtbot.addWidget(window)
    window.show()
    session = window.session
    try:
        qtbot.waitUntil(lambda: session.prompt_status.state == "ready", timeout=10_000)
        window.ticket_actions.open_files([write_tickets(tmp_path / "tickets.csv", session.profile.label_names)])
        qtbot.waitUntil(lambda: len(session.table) == 40 and settled(window), timeout=10_000)
        window.teach([0], session.table.labels[0])
        qtbot.waitUntil(lambda: settled(window), timeout=10_000)
        fake.batch_seconds = 0.1
        window.editor.instruction.setPlainText(window.editor.instruction.toPlainText() + " Be brief.")
        window.trigger("save")
        qtbot.waitUntil(
            lambda: session.prompt_status.version == 1 and session.table.count_scored() >= 4, timeout=10_000
        )
        session.stop()
        qtbot.waitUntil(lambda: not session.busy, timeout=10_000)
        counts = export_counts(session.table)
        assert counts.ahead > 0 and session.table.count_scored() < 40
        asked: list[str] = []
        monkeypatch.setattr(
            QMessageBox, "question", lambda *a, **k: asked.append(a[2]) or QMessageBox.StandardButton.Yes
        )
        out = tmp_path / "out.csv"
        monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(out), "CSV files (*.csv)"))
        window.ticket_actions.export_dialog()
        with open(out, encoding="utf-8", newline="") as handle:
            rows = list(csv.DictReader(handle))
        labelled = sum(1 for r in rows if r["label"])
        learned = sum(1 for r in rows if r["label"] and r["label_source"] == "first pass" and not r["latency_ms"])
        assert asked, "the export asked nothing"
        assert f"{counts.ahead} of 40 tickets are not read by the language model yet" in asked[0], asked
        assert learned == counts.ahead and labelled == 40 - counts.unlabelled
        if not counts.unlabelled:
            assert "not labelled yet;" not in asked[0]
    finally:
        close(window)


def test_the_estimate_says_a_newer_prompt_version_may_have_changed_it_and_not_the_checked_one_again(qtbot, window):
    """A newer version may have changed the estimate; Revert to v1 then saves v3, the same prompt as the one
    checked: the estimate said "(may have changed)" since "prompt version 3 is in use", and the versions list kept
    its highlight on the row clicked, by then v2."""
    session = window.session
    window._closing = True
    session.paste([NewRow({"text": f"ticket {i}"}, f"ticket {i}") for i in range(20)])
    qtbot.waitUntil(lambda: settled(window), timeout=30_000)
    window.trigger("check")
    window.teaching.accept([session.checks.queue[0]])
    qtbot.waitUntil(lambda: settled(window), timeout=30_000)
    assert "1 check on v1 with 0 taught" in window.check_status.text()
    assert "(may have changed)" not in window.check_status.text()
    window.editor.instruction.setPlainText(window.editor.instruction.toPlainText() + " Be brief.")
    window.trigger("save")
    qtbot.waitUntil(lambda: session.prompt_status.version == 1 and settled(window), timeout=30_000)
    assert window.check_status.text().endswith("(may have changed)")
    assert "Since then prompt version 2 is in use" in window.check_status.toolTip()
    window.refresh_stats()
    versions = window.results.versions
    assert [versions.item(r, 0).text() for r in range(versions.rowCount())] == ["2", "1"]
    versions.selectRow(1)  # v1, as the lead clicks it before Revert
    window.results.revert_button.click()
    qtbot.waitUntil(lambda: session.prompt_status.version == 2 and settled(window), timeout=30_000)
    window.refresh_stats()
    assert [versions.item(r, 0).text() for r in range(versions.rowCount())] == ["3", "2", "1"]
    assert "1 check on v1 with 0 taught" in window.check_status.text()
    assert "(may have changed)" not in window.check_status.text()
    assert [i.row() for i in versions.selectionModel().selectedRows()] == [2]  # still v1, not the v2 row


def test_with_gold_the_window_does_not_say_accuracy_is_not_estimated(qtbot, window, tmp_path):
    """The Accuracy tab showed "Accuracy against gold 48.2%" with "Accuracy: not estimated" beside it:
    with gold the status bar says what the random checks have (none yet), and the tab names the estimate."""
    from triage_gui.session.checks import NO_CHECKS, NOT_ESTIMATED

    session = window.session
    window._closing = True
    assert window.check_status.text() == NOT_ESTIMATED  # no gold, no checks: nothing measured
    window.ticket_actions.open_files([write_tickets(tmp_path / "tickets.csv", session.profile.label_names)])
    qtbot.waitUntil(lambda: window.evaluation.gold is not None and settled(window), timeout=10_000)
    window.mark_dirty()
    window.refresh_stats()
    assert "Accuracy against gold" in window.results.accuracy.text()
    assert window.check_status.text() == NO_CHECKS and "not estimated" not in window.check_status.text()
    assert "Random-check estimate: none yet" in window.results.accuracy.text()
    assert "not estimated" not in window.editor.taught_count.text()
    window.trigger("check")
    window.teaching.accept([session.checks.queue[0]])
    qtbot.waitUntil(lambda: settled(window), timeout=10_000)
    window.refresh_stats()
    assert "Random-check estimate: ~100% (" in window.results.accuracy.text()
    assert window.check_status.text().startswith("~100% (")


def test_with_gold_and_nothing_labelled_yet_the_accuracy_tab_says_so(qtbot, window, tmp_path):
    """While the first file was read the tab said "Pick a gold column" beside "Gold: team"."""
    session = window.session
    window._closing = True
    window.fake.gate.clear()  # the model holds its first batch
    try:
        window.ticket_actions.open_files([write_tickets(tmp_path / "tickets.csv", session.profile.label_names)])
        qtbot.waitUntil(lambda: window.evaluation.gold is not None, timeout=10_000)
        window.mark_dirty()
        window.refresh_stats()
        text = window.results.accuracy.text()
        assert session.table.count_current() == 0
        assert "(team): no ticket with a gold label is labelled yet" in text and "Pick a gold" not in text, text
    finally:
        window.fake.gate.set()
    qtbot.waitUntil(lambda: settled(window), timeout=30_000)
