"""The window, driven for real with pytest-qt on the bundled model: drops, pastes, saves, stops, exports."""

from __future__ import annotations

import csv
import io

import pytest
from helpers import LABELS, SAMPLE, banking_tickets, write_tickets
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QTextCursor
from qt_helpers import Heartbeat, close, drop_files, labelled, open_window, shown_labels, wait_all_labelled

from triage_gui.engine.prompt import PromptProfile
from triage_gui.gui import dialogs


@pytest.fixture
def config_dir(tmp_path, monkeypatch):
    path = tmp_path / "config"
    monkeypatch.setenv("TRIAGE_GUI_CONFIG_DIR", str(path))
    return path


@pytest.fixture
def window(qtbot, config_dir, loaded, event_loop_qt):
    win = open_window(qtbot)
    yield win
    close(win)


def test_dropped_file_is_labelled_live_with_gold_accuracy(qtbot, window):
    drop_files(window, [SAMPLE])
    qtbot.waitUntil(lambda: labelled(window) > 0, timeout=60_000)
    wait_all_labelled(qtbot, window, 60)
    table = window.session.table
    assert {table.label(i) for i in range(60)} <= LABELS
    gold = window.evaluation.gold
    assert gold is not None and gold.column == "team"  # values are label names: offered as gold
    assert "Accuracy" in window.results.accuracy.text()
    assert window.results.confusion.rowCount() == 3 + 1  # gold labels and the precision row
    assert window.results.confusion.columnCount() == 3 + 2  # labels given, recall and support
    assert set(shown_labels(window)) <= LABELS


def test_paste_several_lines_is_several_tickets(qtbot, window):
    QGuiApplication.clipboard().setText("My card payment was declined\n\nI was charged twice\nHow do I reset my PIN?\n")
    window.tickets.table.setFocus()
    window.trigger("paste")
    wait_all_labelled(qtbot, window, 3)
    table = window.session.table
    assert table.texts[1] == "I was charged twice"
    assert all(table.latency(i) > 0 for i in range(3))


def test_saving_the_prompt_rebuilds_once_and_relabels(qtbot, window, record_stall):
    window.ticket_actions.paste_text("\n".join(banking_tickets(8)))
    wait_all_labelled(qtbot, window, 8)
    versions = len(window.session.versions)
    window.editor.instruction.moveCursor(QTextCursor.MoveOperation.End)
    for word in (" Be", " brief", " and", " exact."):
        window.editor.instruction.insertPlainText(word)
    window.editor.labels.item(0, 1).setText("money: charges, fees, refunds")
    heartbeat = Heartbeat()
    window.trigger("save")
    assert window.prompt_status.text() == "Updating prompt…"
    wait_all_labelled(qtbot, window, 8)
    heartbeat.stop()
    record_stall("prefix rebuild + re-labelling", heartbeat.worst_gap)
    assert len(window.session.versions) == versions + 1  # one rebuild for the whole burst of edits
    assert heartbeat.ticks > 5  # the event loop ran while the engine thread rebuilt and scored
    saved = PromptProfile.load(window.document.path)
    assert saved.instruction.endswith("Be brief and exact.")
    assert window.prompt_status.text().startswith("Prompt ready")


def test_saving_twice_quickly_applies_only_the_newest_prompt(qtbot, window):
    window.ticket_actions.paste_text("my card is lost\nthe app crashes")
    wait_all_labelled(qtbot, window, 2)
    versions = len(window.session.versions)
    window.editor.instruction.setPlainText("First version of the instruction.")
    window.trigger("save")
    window.editor.instruction.setPlainText("Second version of the instruction.")
    window.trigger("save")
    wait_all_labelled(qtbot, window, 2)
    qtbot.wait(300)
    assert len(window.session.versions) == versions + 1  # the superseded rebuild never labelled anything
    assert window.session.profile.instruction == "Second version of the instruction."


def test_saving_an_unchanged_prompt_relabels_nothing(qtbot, window):
    window.ticket_actions.paste_text("my card is lost\nthe app crashes")
    wait_all_labelled(qtbot, window, 2)
    versions = len(window.session.versions)
    window.trigger("save")
    qtbot.wait(200)
    assert len(window.session.versions) == versions and not window.session.busy
    assert "nothing to re-label" in window.statusBar().currentMessage()


def test_invalid_prompt_is_refused_inline_and_nothing_is_lost(qtbot, window):
    before = window.document.path.read_text() if window.document.path.exists() else None
    versions = len(window.session.versions)
    window.editor.labels.item(1, 0).setText("Billing ")
    window.trigger("save")
    assert window.editor.errors.isVisible()
    assert "has spaces around it" in window.editor.errors.text()
    assert window.editor.labels.item(1, 0).text() == "Billing "  # what the user typed stays
    assert len(window.session.versions) == versions
    assert (window.document.path.read_text() if window.document.path.exists() else None) == before


def test_prompt_too_long_keeps_the_previous_cache(qtbot, window):
    old = window.session.scorer
    window.editor.instruction.setPlainText("Classify carefully. " * 3000)
    window.trigger("save")
    qtbot.waitUntil(lambda: window.editor.errors.isVisible(), timeout=60_000)
    assert "no room for a ticket" in window.editor.errors.text()
    assert window.session.scorer is old
    assert "previous prompt stays in use" in window.prompt_status.text()
    window.ticket_actions.paste_text("my card is lost")  # still usable with the old cache
    wait_all_labelled(qtbot, window, 1)
    assert window.session.table.label(0) in LABELS


def test_baseline_toggle_adds_agreeing_columns_and_keeps_labels(qtbot, window, tmp_path):
    drop_files(window, [write_tickets(tmp_path / "few.csv", banking_tickets(6))])
    wait_all_labelled(qtbot, window, 6)
    table = window.session.table
    before = [table.label(i) for i in range(6)]
    window.tickets.baseline_toggle.setChecked(True)
    assert "Agree" in window.model.columns()
    qtbot.waitUntil(lambda: len(table.baseline) == 6 and not window.session.busy, timeout=120_000)
    assert [table.label(i) for i in range(6)] == before  # labels kept, not redone
    assert all(table.agree(i) for i in range(6))
    window.refresh_stats()
    assert "Agreement <b>6/6</b>" in window.results.stats.text()
    assert "Speed-up" in window.results.stats.text()


def test_stop_keeps_finished_labels_and_resume_labels_the_rest(qtbot, window, tmp_path):
    drop_files(window, [write_tickets(tmp_path / "many.csv", banking_tickets(200))])
    qtbot.waitUntil(lambda: labelled(window) >= 16, timeout=60_000)
    heartbeat = Heartbeat()
    window.tickets.stop_button.click()
    qtbot.waitUntil(lambda: not window.session.busy, timeout=60_000)
    heartbeat.stop()
    done = labelled(window)
    qtbot.wait(500)
    assert labelled(window) == done  # nothing more arrives after Stop
    assert 16 <= done < 200
    stopped = f"Stopped: 200 labelled by the classifier · {200 - done:,} not read by the language model yet"
    assert window.tickets.rate_label.text().startswith(stopped)  # no stale ETA; the first pass labelled every row
    assert window.tickets.stop_button.text() == "Resume"
    window.tickets.stop_button.click()
    wait_all_labelled(qtbot, window, 200)
    assert window.tickets.rate_label.text().split(" · ")[0] == "All labelled"


def test_export_writes_every_row_as_the_table_shows_it(qtbot, window, tmp_path):
    drop_files(window, [SAMPLE])
    wait_all_labelled(qtbot, window, 60)
    out = tmp_path / "export.csv"
    assert window.ticket_actions.export(str(out))
    rows = list(csv.DictReader(io.StringIO(out.read_text(encoding="utf-8"))))
    table = window.session.table
    assert [r["text"] for r in rows] == table.texts
    assert [r["label"] for r in rows] == [table.label(i) for i in range(60)]
    assert {r["label_source"] for r in rows} <= {"prompt", "learned", "first pass"}
    assert {r["prompt_hash"] for r in rows} == {window.session.profile.content_hash()}
    assert shown_labels(window) == [r["label"] for r in rows]
    assert (out.stat().st_mode & 0o777) == 0o666 & ~_umask()  # the user's normal permissions, not 0600


def _umask() -> int:
    import os

    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_bad_file_shows_a_message_and_the_app_stays_usable(qtbot, window, tmp_path):
    bad = tmp_path / "photo.csv"
    bad.write_bytes(bytes(range(256)) * 40)
    drop_files(window, [bad])
    qtbot.waitUntil(lambda: window.last_message is not None, timeout=30_000)
    assert "not a text file" in window.last_message.text()
    window.last_message.close()
    window.ticket_actions.paste_text("my card is lost")
    wait_all_labelled(qtbot, window, 1)


def test_bad_model_keeps_the_previous_model(qtbot, window):
    old = window.session.model
    window.session.load_model("/nowhere/model.gguf")
    qtbot.waitUntil(lambda: window.last_message is not None, timeout=30_000)
    assert "Model file not found" in window.last_message.text()
    assert window.session.model is old
    assert window.model_status.text().startswith(old.name)  # the status still names the model in use
    window.ticket_actions.paste_text("I need a refund")
    wait_all_labelled(qtbot, window, 1)


def test_settings_and_draft_survive_a_restart(qtbot, config_dir, loaded, event_loop_qt):
    first = open_window(qtbot)
    first.resize(790, 650)  # within the offscreen platform's 800x800 screen, which restoring clamps to
    first.tickets.threshold.setValue(0.65)
    first.main_split.setSizes([300, 800])
    drop_files(first, [SAMPLE])
    wait_all_labelled(qtbot, first, 60)
    first.editor.instruction.setPlainText("A draft nobody saved.")
    qtbot.waitUntil(lambda: first.settings.draft_path.is_file(), timeout=5_000)
    sizes = first.main_split.sizes()
    close(first)

    second = open_window(qtbot)
    try:
        assert second.tickets.threshold.value() == pytest.approx(0.65)
        # The offscreen platform adds its own frame margins; the size must come back, not the default.
        assert abs(second.width() - 790) < 40 and abs(second.height() - 650) < 40
        assert second.main_split.sizes()[0] == sizes[0]  # the editor keeps its width
        assert str(SAMPLE) in second.settings.recent_files()
        assert second.editor.instruction.toPlainText() == "A draft nobody saved."  # restored, not lost
        assert second.isWindowModified()
    finally:
        close(second)


def test_scoring_exception_is_shown_and_the_app_continues(qtbot, window, monkeypatch):
    scorer = window.session.scorer
    real = scorer.score_batch
    calls = {"n": 0}

    def flaky(texts):
        calls["n"] += 1
        if calls["n"] == 1:
            raise RuntimeError("simulated fault in the scorer")
        return real(texts)

    monkeypatch.setattr(scorer, "score_batch", flaky)
    window.ticket_actions.paste_text("first ticket about a refund")
    qtbot.waitUntil(lambda: window.last_message is not None and not window.session.busy, timeout=30_000)
    assert "simulated fault" in window.last_message.text()
    window.last_message.close()
    monkeypatch.setattr(dialogs, "replace_or_add", lambda *a: False)  # add to the first (a paste asks, as a file)
    window.ticket_actions.paste_text("second ticket about a refund")
    wait_all_labelled(qtbot, window, 2)


@pytest.fixture
def app_window(qtbot, config_dir, loaded, event_loop_qt):
    """The window as the app runs it: long-lived objects frozen out of the cyclic GC."""
    import gc

    win = open_window(qtbot, freeze_gc=True)
    yield win
    close(win)
    gc.unfreeze()


def test_huge_file_streams_in_and_can_be_stopped(qtbot, app_window, tmp_path, record_stall):
    window = app_window
    path = tmp_path / "huge.csv"
    base = banking_tickets(100)
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["text", "team"])
        for i in range(200_000):
            writer.writerow([f"{base[i % 100]} (#{i})", "billing"])
    heartbeat = Heartbeat()
    drop_files(window, [path])
    qtbot.waitUntil(lambda: len(window.session.table) >= 2048, timeout=60_000)
    window.session.stop()
    qtbot.waitUntil(lambda: not window.session.busy, timeout=60_000)
    qtbot.wait(500)
    heartbeat.stop()
    rows = len(window.session.table)
    qtbot.wait(300)
    assert len(window.session.table) == rows < 200_000  # reading stopped too
    assert heartbeat.ticks > 10
    record_stall("streaming a 200,000-row file while labelling", heartbeat.worst_gap)


def test_new_prompt_lists_flipped_tickets_and_accuracy_change(qtbot, window):
    drop_files(window, [SAMPLE])
    wait_all_labelled(qtbot, window, 60)
    qtbot.waitUntil(lambda: not window.session.busy, timeout=60_000)
    window.refresh_stats()  # version 1 is scored once its labels have settled
    table = window.session.table
    before = [table.label(i) for i in range(60)]
    labels = window.editor.labels  # swap two labels' descriptions: many tickets must change label
    billing, account = labels.item(0, 1).text(), labels.item(2, 1).text()
    labels.item(0, 1).setText(account)
    labels.item(2, 1).setText(billing)
    window.trigger("save")
    wait_all_labelled(qtbot, window, 60)
    window.refresh_stats()
    flipped = [i for i in range(60) if table.label(i) != before[i]]
    assert flipped
    assert window.results.flips.count() == len(flipped)
    assert window.results.tabText(2) == f"Flipped ({len(flipped)})"
    assert "points since version 1 (same gold rows and taught set)" in window.results.accuracy.text()
    window.results.flips.itemClicked.emit(window.results.flips.item(0))
    selected = window.tickets.table.selectionModel().selectedRows()
    assert selected and window.tickets.proxy.mapToSource(selected[0]).row() == flipped[0]
    # A version's accuracy follows the teaching that relabelled it, so the next version compares with
    # the same taught set; teaching after that is not credited to the prompt.
    window.teach([0], table.value(0, "team"))
    qtbot.waitUntil(lambda: not window.session.busy, timeout=60_000)
    version, scores = window.session.prompt_status.version, window.evaluation.scores
    # version 2 scored with that taught set, once the session has settled (the session records it, not a timer)
    qtbot.waitUntil(lambda: any(s.measure.taught == 1 for s in scores.get(version, {}).values()), timeout=60_000)
    window.refresh_stats()
    window.editor.instruction.setPlainText(window.editor.instruction.toPlainText() + " Be brief.")
    window.prompt.save()
    qtbot.waitUntil(lambda: window.session.prompt_status.version == 2, timeout=60_000)
    wait_all_labelled(qtbot, window, 60)
    qtbot.waitUntil(lambda: not window.session.busy, timeout=60_000)
    window.refresh_stats()
    assert "points since version 2 (same gold rows and taught set)" in window.results.accuracy.text()
    window.teach([1], table.value(1, "team"))
    qtbot.waitUntil(lambda: not window.session.busy, timeout=60_000)
    window.refresh_stats()
    text = window.results.accuracy.text()
    assert "not comparable with version 2 (1 taught ticket and" in text and "2 and 60 now" in text, text


def test_filters_by_label_confidence_and_sorting(qtbot, window):
    drop_files(window, [SAMPLE])
    wait_all_labelled(qtbot, window, 60)
    table = window.session.table
    counts: dict[str, int] = {}
    for i in range(60):
        counts[table.label(i)] = counts.get(table.label(i), 0) + 1
    label = max(counts, key=counts.get)
    combo = window.tickets.label_filter
    combo.setCurrentIndex(combo.findData(label))
    assert combo.currentText() == f"{label} ({counts[label]})"  # per-label counts in the filter
    combo.activated.emit(combo.currentIndex())
    assert window.tickets.proxy.rowCount() == counts[label]
    combo.setCurrentIndex(0)
    combo.activated.emit(0)
    window.tickets.threshold.setValue(0.99)
    window.tickets.low_only.setChecked(True)
    low = sum(table.confidence(i) < 0.99 for i in range(60))
    assert window.tickets.proxy.rowCount() == low
    window.tickets.low_only.setChecked(False)
    column = window.model.columns().index("Confidence")
    window.tickets.table.sortByColumn(column, Qt.SortOrder.DescendingOrder)  # as numbers, not strings
    proxy = window.tickets.proxy
    shown = [float(proxy.index(i, column).data()) for i in range(proxy.rowCount())]
    assert shown == sorted(shown, reverse=True) and len(shown) == 60


def test_saving_during_a_run_relabels_everything_with_the_new_prompt(qtbot, window, tmp_path):
    drop_files(window, [write_tickets(tmp_path / "run.csv", banking_tickets(120))])
    qtbot.waitUntil(lambda: 16 <= labelled(window) < 120, timeout=60_000)
    window.editor.instruction.setPlainText("Answer with one label. Tickets are from bank customers.")
    window.trigger("save")
    wait_all_labelled(qtbot, window, 120)
    assert window.session.profile.instruction.startswith("Answer with one label.")
    window.tickets.baseline_toggle.setChecked(True)
    qtbot.waitUntil(lambda: len(window.session.table.baseline) > 0, timeout=60_000)
    window.tickets.baseline_toggle.setChecked(False)
    wait_all_labelled(qtbot, window, 120)
