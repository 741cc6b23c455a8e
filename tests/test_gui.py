"""The window, driven for real with pytest-qt on the bundled model: drops, pastes, saves, stops, exports."""

from __future__ import annotations

import csv
import io
import time

import pytest
from helpers import SAMPLE, banking_tickets
from PySide6.QtCore import QMimeData, QPoint, Qt, QTimer, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QGuiApplication, QTextCursor
from PySide6.QtWidgets import QApplication

from triage_gui.engine.prompt import PromptProfile
from triage_gui.gui.main_window import MainWindow

LABELS = {"billing", "technical", "account"}


@pytest.fixture
def config_dir(tmp_path, monkeypatch):
    path = tmp_path / "config"
    monkeypatch.setenv("TRIAGE_GUI_CONFIG_DIR", str(path))
    return path


def open_window(qtbot, freeze_gc: bool = False) -> MainWindow:
    window = MainWindow(device="cpu", freeze_gc=freeze_gc)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: window.scorer is not None and not window.is_busy(), timeout=120_000)
    return window


@pytest.fixture
def window(qtbot, config_dir, loaded):
    win = open_window(qtbot)
    yield win
    close(win)


def close(window: MainWindow) -> None:
    window.close()
    assert not window.engine.thread.isRunning(), "engine thread left running"
    assert not window.loader.thread.isRunning(), "file thread left running"


def labelled(window) -> int:
    return sum(r.cached is not None for r in window.model.rows)


def wait_all_labelled(qtbot, window, n=None, timeout=180_000):
    qtbot.waitUntil(
        lambda: (
            bool(window.model.rows)
            and (n is None or len(window.model.rows) == n)
            and labelled(window) == len(window.model.rows)
            and not window.is_busy()
        ),
        timeout=timeout,
    )


def drop_files(window, paths) -> None:
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    pos = window.rect().center()
    enter = QDragEnterEvent(
        pos, Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    )
    QApplication.sendEvent(window, enter)
    assert enter.isAccepted()
    drop = QDropEvent(
        QPoint(pos).toPointF(),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    QApplication.sendEvent(window, drop)


def write_tickets(path, texts, extra=None):
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["text", *([extra[0]] if extra else [])])
        for i, text in enumerate(texts):
            writer.writerow([text, *([extra[1][i]] if extra else [])])
    return path


class Heartbeat:
    """A 10 ms timer on the GUI thread: ticks prove the event loop kept running."""

    def __init__(self) -> None:
        self.ticks = 0
        self.worst_gap = 0.0
        self._last = time.perf_counter()
        self.timer = QTimer(interval=10)
        self.timer.timeout.connect(self._tick)
        self.timer.start()

    def _tick(self) -> None:
        now = time.perf_counter()
        self.worst_gap = max(self.worst_gap, now - self._last)
        self._last = now
        self.ticks += 1

    def stop(self) -> None:
        self.timer.stop()


def test_dropped_file_is_labelled_live_with_gold_accuracy(qtbot, window):
    drop_files(window, [SAMPLE])
    qtbot.waitUntil(lambda: 0 < labelled(window) < 60 or labelled(window) == 60, timeout=60_000)
    wait_all_labelled(qtbot, window, 60)
    assert {r.cached.label for r in window.model.rows} <= LABELS
    assert window.model.gold_column == "team"  # values are label names: offered as gold
    assert "Accuracy" in window.summary.accuracy.text()
    assert window.summary.confusion.rowCount() == 3
    view_labels = {window.proxy.index(r, 1).data() for r in range(window.proxy.rowCount())}
    assert view_labels - {""} and all(v.lstrip("⚠ ") in LABELS for v in view_labels)


def test_paste_several_lines_is_several_tickets(qtbot, window):
    QGuiApplication.clipboard().setText("My card payment was declined\n\nI was charged twice\nHow do I reset my PIN?\n")
    window.table.setFocus()
    window.paste_action.trigger()
    wait_all_labelled(qtbot, window, 3)
    assert [r.text for r in window.model.rows][1] == "I was charged twice"
    assert all(r.cached.latency_ms > 0 for r in window.model.rows)


def test_saving_the_prompt_rebuilds_once_and_relabels(qtbot, window, record_stall):
    window.add_pasted_text("\n".join(banking_tickets(8)))
    wait_all_labelled(qtbot, window, 8)
    rebuilds, relabels = window.rebuilds_started, window.relabels_started
    first_generation = window.ready_generation
    # Rapid edits: many keystrokes, a label description change, then one save.
    window.editor.instruction.moveCursor(QTextCursor.MoveOperation.End)
    for word in (" Be", " brief", " and", " exact."):
        window.editor.instruction.insertPlainText(word)
    window.editor.labels.item(0, 1).setText("money: charges, fees, refunds")
    heartbeat = Heartbeat()
    window.save_action.trigger()
    assert window.cache_status.text() == "cache: rebuilding…"
    wait_all_labelled(qtbot, window, 8)
    heartbeat.stop()
    record_stall("prefix rebuild + re-labelling", heartbeat.worst_gap)
    assert window.rebuilds_started == rebuilds + 1
    assert window.relabels_started == relabels + 1
    assert window.ready_generation > first_generation
    assert heartbeat.ticks > 5  # the event loop ran while the worker rebuilt and scored
    saved = PromptProfile.load(window.profile_path)
    assert saved.instruction.endswith("Be brief and exact.")
    assert window.cache_status.text().startswith("cache: ready")


def test_saving_twice_quickly_applies_only_the_newest_prompt(qtbot, window):
    window.add_pasted_text("my card is lost\nthe app crashes")
    wait_all_labelled(qtbot, window, 2)
    relabels = window.relabels_started
    window.editor.instruction.setPlainText("First version of the instruction.")
    window.save_action.trigger()
    window.editor.instruction.setPlainText("Second version of the instruction.")
    window.save_action.trigger()
    wait_all_labelled(qtbot, window, 2)
    qtbot.wait(300)
    assert window.relabels_started == relabels + 1  # the stale rebuild never re-labelled anything
    assert window.ready_generation == window.generation
    assert window.scorer.layout.profile.instruction == "Second version of the instruction."


def test_invalid_prompt_is_refused_inline_and_nothing_is_lost(qtbot, window):
    before = window.profile_path.read_text() if window.profile_path.exists() else None
    rebuilds = window.rebuilds_started
    window.editor.labels.item(1, 0).setText("Billing ")
    window.save_action.trigger()
    assert window.editor.errors.isVisible()
    assert "has spaces around it" in window.editor.errors.text()
    assert window.editor.labels.item(1, 0).text() == "Billing "  # what the user typed stays
    assert window.rebuilds_started == rebuilds
    assert (window.profile_path.read_text() if window.profile_path.exists() else None) == before


def test_prompt_too_long_keeps_the_previous_cache(qtbot, window):
    old = window.scorer
    window.editor.instruction.setPlainText("Classify carefully. " * 3000)
    window.save_action.trigger()
    qtbot.waitUntil(lambda: window.editor.errors.isVisible(), timeout=60_000)
    assert "no room for a ticket" in window.editor.errors.text()
    assert window.scorer is old
    assert "previous prompt's cache stays in use" in window.cache_status.text()
    window.add_pasted_text("my card is lost")  # still usable with the old cache
    wait_all_labelled(qtbot, window, 1)
    assert window.model.rows[0].cached.label in LABELS


def test_baseline_toggle_adds_agreeing_columns(qtbot, window, tmp_path):
    drop_files(window, [write_tickets(tmp_path / "few.csv", banking_tickets(6))])
    wait_all_labelled(qtbot, window, 6)
    window.baseline_toggle.setChecked(True)
    assert "Agree" in window.model.columns()
    qtbot.waitUntil(
        lambda: all(r.baseline is not None for r in window.model.rows) and not window.is_busy(), timeout=120_000
    )
    assert all(r.agree for r in window.model.rows)
    assert "Agreement <b>6/6</b>" in window.summary.stats.text()
    assert "Speed-up" in window.summary.stats.text()


def test_stop_keeps_finished_labels(qtbot, window, tmp_path):
    path = write_tickets(tmp_path / "many.csv", banking_tickets(400))
    drop_files(window, [path])
    qtbot.waitUntil(lambda: labelled(window) >= 16, timeout=60_000)
    heartbeat = Heartbeat()
    window.stop_button.click()
    qtbot.waitUntil(lambda: not window.outstanding, timeout=60_000)
    heartbeat.stop()
    done = labelled(window)
    qtbot.wait(500)
    assert labelled(window) == done  # nothing more arrives after Stop
    assert 16 <= done < 400
    assert all(r.cached.label in LABELS for r in window.model.rows if r.cached is not None)
    assert window.rate_label.text().startswith("Stopped")


def test_export_writes_what_the_table_shows(qtbot, window, tmp_path):
    drop_files(window, [SAMPLE])
    wait_all_labelled(qtbot, window, 60)
    out = tmp_path / "export.csv"
    assert window.export(str(out))
    rows = list(csv.DictReader(io.StringIO(out.read_text(encoding="utf-8"))))
    assert [r["text"] for r in rows] == [r.text for r in window.model.rows]
    assert [r["label"] for r in rows] == [r.cached.label for r in window.model.rows]
    assert {r["prompt_hash"] for r in rows} == {window.saved_profile.content_hash()}
    shown = [window.model.index(i, 1).data().lstrip("⚠ ") for i in range(len(rows))]
    assert shown == [r["label"] for r in rows]


def test_bad_file_shows_a_message_and_the_app_stays_usable(qtbot, window, tmp_path):
    bad = tmp_path / "photo.csv"
    bad.write_bytes(bytes(range(256)) * 40)
    drop_files(window, [bad])
    qtbot.waitUntil(lambda: window.last_message is not None, timeout=30_000)
    assert "not a text file" in window.last_message.text()
    window.last_message.close()
    window.add_pasted_text("my card is lost")
    wait_all_labelled(qtbot, window, 1)


def test_bad_model_keeps_the_previous_model(qtbot, window):
    old = window.loaded
    window.load_model("/nowhere/model.gguf")
    qtbot.waitUntil(lambda: window.last_message is not None, timeout=30_000)
    assert "Model file not found" in window.last_message.text()
    assert window.loaded is old
    window.add_pasted_text("I need a refund")
    wait_all_labelled(qtbot, window, 1)


def test_settings_and_draft_survive_a_restart(qtbot, config_dir, loaded):
    first = open_window(qtbot)
    first.resize(1111, 777)
    first.threshold.setValue(0.65)
    first.main_split.setSizes([300, 900])
    drop_files(first, [SAMPLE])
    wait_all_labelled(qtbot, first, 60)
    first.editor.instruction.setPlainText("A draft nobody saved.")
    qtbot.waitUntil(lambda: first.settings.draft_path.is_file(), timeout=5_000)
    sizes = first.main_split.sizes()
    close(first)

    second = open_window(qtbot)
    try:
        assert second.threshold.value() == pytest.approx(0.65)
        # The offscreen platform adds its own frame margins; the size must come back, not the default 1400x860.
        assert abs(second.width() - 1111) < 40 and abs(second.height() - 777) < 40
        assert second.main_split.sizes()[0] == sizes[0]  # the editor keeps its width
        assert str(SAMPLE) in second.settings.recent_files()
        assert second.editor.instruction.toPlainText() == "A draft nobody saved."  # restored, not lost
        assert second.isWindowModified()
    finally:
        close(second)


def test_worker_exception_is_shown_and_the_app_continues(qtbot, window, monkeypatch):
    scorer = window.engine.worker.scorer
    real = scorer.score_batch
    calls = {"n": 0}

    def flaky(texts):
        calls["n"] += 1
        if calls["n"] == 1:
            raise RuntimeError("simulated fault in the scorer")
        return real(texts)

    monkeypatch.setattr(scorer, "score_batch", flaky)
    window.add_pasted_text("first ticket about a refund")
    qtbot.waitUntil(lambda: window.last_message is not None and not window.is_busy(), timeout=30_000)
    assert "simulated fault" in window.last_message.text()
    window.last_message.close()
    window.add_pasted_text("second ticket about a refund")
    qtbot.waitUntil(lambda: window.model.rows[-1].cached is not None, timeout=60_000)


@pytest.fixture
def app_window(qtbot, config_dir, loaded):
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
    qtbot.waitUntil(lambda: len(window.model.rows) >= 2048, timeout=60_000)
    window.stop()
    qtbot.waitUntil(lambda: not window.outstanding, timeout=60_000)
    qtbot.wait(500)
    heartbeat.stop()
    rows = len(window.model.rows)
    qtbot.wait(300)
    assert len(window.model.rows) == rows < 200_000  # reading stopped too
    assert heartbeat.ticks > 10
    record_stall("streaming a 200,000-row file while labelling", heartbeat.worst_gap)


def test_new_prompt_lists_flipped_tickets_and_accuracy_change(qtbot, window):
    drop_files(window, [SAMPLE])
    wait_all_labelled(qtbot, window, 60)
    before = {i: r.cached.label for i, r in enumerate(window.model.rows)}
    # Swap the descriptions of two labels: many tickets must change label.
    labels = window.editor.labels
    billing, account = labels.item(0, 1).text(), labels.item(2, 1).text()
    labels.item(0, 1).setText(account)
    labels.item(2, 1).setText(billing)
    window.save_action.trigger()
    wait_all_labelled(qtbot, window, 60)
    flipped = [i for i, r in enumerate(window.model.rows) if r.cached.label != before[i]]
    assert flipped
    assert window.summary.flips.count() == len(flipped)
    assert window.summary.tabText(2) == f"Flipped ({len(flipped)})"
    assert "since the previous prompt version" in window.summary.accuracy.text()
    window.summary.flips.itemClicked.emit(window.summary.flips.item(0))
    selected = window.table.selectionModel().selectedRows()
    assert selected and window.proxy.mapToSource(selected[0]).row() == flipped[0]


def test_filters_by_label_confidence_and_sorting(qtbot, window):
    drop_files(window, [SAMPLE])
    wait_all_labelled(qtbot, window, 60)
    counts = {}
    for r in window.model.rows:
        counts[r.cached.label] = counts.get(r.cached.label, 0) + 1
    label = max(counts, key=counts.get)
    window.label_filter.setCurrentText(label)
    window.label_filter.activated.emit(window.label_filter.currentIndex())
    assert window.proxy.rowCount() == counts[label]
    window.label_filter.setCurrentIndex(0)
    window.label_filter.activated.emit(0)
    window.threshold.setValue(0.99)
    window.low_only.setChecked(True)
    low = sum(r.cached.confidence < 0.99 for r in window.model.rows)
    assert window.proxy.rowCount() == low
    window.low_only.setChecked(False)
    window.table.sortByColumn(2, Qt.SortOrder.DescendingOrder)  # confidence, as numbers not strings
    shown = [float(window.proxy.index(i, 2).data()) for i in range(window.proxy.rowCount())]
    assert shown == sorted(shown, reverse=True) and len(shown) == 60


def test_saving_during_a_run_relabels_everything_with_the_new_prompt(qtbot, window, tmp_path):
    drop_files(window, [write_tickets(tmp_path / "run.csv", banking_tickets(120))])
    qtbot.waitUntil(lambda: 16 <= labelled(window) < 120, timeout=60_000)
    window.editor.instruction.setPlainText("Answer with one label. Tickets are from bank customers.")
    window.save_action.trigger()
    wait_all_labelled(qtbot, window, 120)
    assert window.scorer.layout.profile.instruction.startswith("Answer with one label.")
    window.baseline_toggle.setChecked(True)  # toggling mid-way starts a fresh run too
    qtbot.waitUntil(lambda: any(r.baseline is not None for r in window.model.rows), timeout=60_000)
    window.baseline_toggle.setChecked(False)
    wait_all_labelled(qtbot, window, 120)
