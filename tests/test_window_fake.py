"""The window's logic on a fake session: the bugs the window's old shape produced, each pinned."""

from __future__ import annotations

from triage_gui.engine.table import NewRow


def add_tickets(qtbot, window, n: int = 12) -> None:
    window.session.paste([NewRow({"text": f"ticket {i}"}, f"ticket {i}") for i in range(n)])
    qtbot.waitUntil(lambda: window.session.table.count_scored() == n, timeout=10_000)


def test_an_invalid_prompt_file_changes_nothing(qtbot, window, tmp_path):
    add_tickets(qtbot, window)
    session = window.session
    session.teaching.teach([0], session.table.labels[0])
    qtbot.waitUntil(lambda: not session.busy and not window.document.busy, timeout=10_000)
    current = window.document.path  # written by the teach above
    window.editor.labels.item(0, 1).setText("an unsaved description")  # a draft
    draft = window.editor.profile().to_dict()
    bad = tmp_path / "bad.json"
    bad.write_text(current.read_text().replace('"name": "billing"', '"name": "billing "'), encoding="utf-8")
    bad_bytes, current_bytes = bad.read_bytes(), current.read_bytes()
    taught = sorted(session.teaching.items())

    window.prompt.open(str(bad))

    assert window.last_message is not None and "spaces" in window.last_message.text()  # said why
    assert window.editor.profile().to_dict() == draft  # the draft is intact
    assert sorted(session.teaching.items()) == taught  # the taught set too
    session.teaching.teach([1], session.table.labels[1])  # the next teach writes the prompt in use
    qtbot.waitUntil(lambda: not session.busy and not window.document.busy, timeout=10_000)
    assert bad.read_bytes() == bad_bytes  # no file was overwritten
    assert current.read_bytes() != current_bytes and window.document.path == current


def test_opening_a_prompt_over_unsaved_changes_asks_first(qtbot, window, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    other = tmp_path / "other.json"
    other.write_text(window.document.saved.to_json().replace("support triage", "support routing"), encoding="utf-8")
    window.editor.instruction.setPlainText("An unsaved instruction.")
    asked = []
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: asked.append(a) or QMessageBox.StandardButton.Cancel)
    assert not window.prompt.open(str(other))
    assert asked and window.editor.instruction.toPlainText() == "An unsaved instruction."
    assert window.document.path != other


def test_open_prompt_starts_in_the_folder_of_the_prompt_in_use(qtbot, window, tmp_path, monkeypatch):
    """Walkthrough W: File › Open prompt… started in the app's working folder (/work/wt-walk), not in /tmp/walk
    where the lead had opened and saved the prompt in use; Save as… starts at that file already."""
    from pathlib import Path

    from PySide6.QtWidgets import QFileDialog

    folder = tmp_path / "prompts"
    folder.mkdir()
    assert window.prompt.save(Path(folder / "mine.json"))  # Save as… there, then the prompt in use
    qtbot.waitUntil(lambda: not window.session.busy and not window.document.busy, timeout=10_000)
    assert window.document.path == folder / "mine.json"
    asked: list[tuple] = []
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: asked.append(a) or ("", ""))
    window.trigger("open_prompt")
    assert asked and asked[0][2] == str(folder)


def test_teaching_writes_the_prompt_file_off_the_gui_thread_and_coalesced(qtbot, window, monkeypatch):
    import threading

    from triage_gui.session import prompt_document

    add_tickets(qtbot, window)
    threads: list[str] = []
    real = prompt_document.atomic_write_text
    monkeypatch.setattr(
        prompt_document, "atomic_write_text", lambda p, t: threads.append(threading.current_thread().name) or real(p, t)
    )
    labels = window.session.table.labels
    for row in range(10):  # ten teaching key presses in a row
        window.teach([row], labels[row % len(labels)])
    qtbot.waitUntil(lambda: bool(threads) and not window.document.busy, timeout=10_000)
    assert threading.main_thread().name not in threads and len(threads) <= 2
    saved = prompt_document.PromptProfile.load(window.document.path)
    assert len(saved.taught) == 10


def test_stop_or_resume_follows_the_run_not_the_button_text(qtbot, window):
    from triage_gui.session.status import RunStatus

    clicked = []
    window.tickets.stop_clicked.connect(lambda: clicked.append("stop"))
    window.tickets.resume_clicked.connect(lambda: clicked.append("resume"))
    window.tickets.show_run(RunStatus("stopped", 3, 10))
    window.tickets.stop_button.setText("&Resume")  # a mnemonic (or a translation) changes the text
    window.tickets.stop_button.click()
    window.tickets.show_run(RunStatus("running", 4, 10))
    window.tickets.stop_button.setText("S&top")
    window.tickets.stop_button.click()
    assert clicked == ["resume", "stop"]


def test_actions_are_triggered_by_id_and_enabled_by_the_session_status(qtbot, window):
    try:
        _actions_body(qtbot, window)
    finally:
        window.fake.gate.set()


def _actions_body(qtbot, window):
    actions = window.menu_actions
    assert not actions["export"].isEnabled() and not actions["clear"].isEnabled()  # nothing loaded
    assert not actions["stop"].isEnabled() and not actions["learn_gold"].isEnabled()
    window.fake.gate.clear()  # labelling waits: a run is in progress
    window.ticket_actions.paste_text("my card is lost\nthe app crashes\na refund please")
    qtbot.waitUntil(lambda: window.session.run_status.state == "running", timeout=5_000)
    assert actions["export"].isEnabled() and actions["clear"].isEnabled() and actions["stop"].isEnabled()
    window.trigger("stop")
    window.fake.gate.set()
    qtbot.waitUntil(lambda: not window.session.busy, timeout=10_000)
    assert window.session.run_status.state == "stopped"
    qtbot.waitUntil(lambda: not actions["stop"].isEnabled(), timeout=1_000)
    assert not actions["forget_all"].isEnabled()
    window.teach([0], window.session.table.labels[0])
    qtbot.waitUntil(actions["forget_all"].isEnabled, timeout=1_000)


def test_menus_and_the_guide_come_from_one_table(qtbot, window):
    titles = [a.text() for a in window.menuBar().actions()]
    assert titles == ["&File", "&Edit", "&Teach", "&View", "&Model", "&Help"]
    guide = dict(window.menu_actions.guide())
    for spec in window.menu_actions.specs:
        if spec.guide and spec.key is not None:
            assert window.menu_actions[spec.id].shortcut().toString() in guide  # the same key, from the same row
    assert {"Ctrl+O", "Ctrl+S", "Esc", "1 – 9, 0", "Enter", "N"} <= set(guide)


def test_the_calibration_menu_goes_through_the_session(qtbot, window, monkeypatch):
    calls = []
    real = type(window.session).set_calibration
    monkeypatch.setattr(type(window.session), "set_calibration", lambda self, on: calls.append(on) or real(self, on))
    window.menu_actions["calibrate"].setChecked(False)
    assert calls == [False] and window.settings.get_bool("calibrate", True) is False
    qtbot.waitUntil(lambda: window.fake.calibrated[-1:] == [False] and not window.session.busy, timeout=10_000)
    assert not window.session.calibrate


def test_columns_are_found_by_role_not_by_their_title(qtbot, window):
    from triage_gui.gui.tickets.ticket_columns import FLOORS
    from triage_gui.gui.tickets.ticket_model import Col

    window.ticket_actions.paste_text("text,Label\nmy card is lost,billing\nthe app crashes,technical")
    qtbot.waitUntil(lambda: window.session.table.count_scored() == 2, timeout=10_000)
    window.ticket_actions.choose_gold("Label")  # a file column titled like the table's own Label column
    model = window.model
    assert model.columns()[model.column_index(Col.GOLD)] == "Gold (Label)"
    assert model.index(0, model.column_index(Col.GOLD)).data() == "billing"
    label = model.column_index(Col.LABEL)
    assert window.tickets.table.itemDelegateForColumn(label) is window.tickets.delegate
    assert window.tickets.table.horizontalHeader().sectionSize(model.column_index(Col.GOLD)) == FLOORS[Col.GOLD]


def test_the_title_names_the_prompt_file_and_marks_unsaved_edits(qtbot, window):
    """The window's own title follows the prompt document (the prompt actions no longer set it)."""
    assert window.windowTitle() == f"Ticket Triage — {window.document.status.name}[*]"
    assert not window.isWindowModified()
    window.editor.instruction.setPlainText("An unsaved instruction.")
    qtbot.waitUntil(window.isWindowModified, timeout=5_000)
    assert window.prompt.save()
    assert not window.isWindowModified()


def test_the_count_not_read_after_stop_is_the_one_that_stays(qtbot, window):
    """Stop while the language model reads a batch: that batch still lands (its labels are kept), so until it
    has, the run line says it is finishing, and the "not labelled" count that follows "Stopped" is final (it
    said "Stopped: 71 not read" while the batch in flight went on landing, walkthrough)."""
    session, fake = window.session, window.fake
    add_tickets(qtbot, window, 3)
    shown: list[str] = []
    session.run_changed.connect(lambda _: shown.append(window.tickets.rate_label.text()))
    try:
        fake.gate.clear()  # the next batch is held inside the engine thread
        session.paste([NewRow({"text": f"late {i}"}, f"late {i}") for i in range(8)])
        qtbot.waitUntil(lambda: session.running, timeout=5_000)
        qtbot.wait(50)  # the first (one-ticket) batch is on the engine thread
        window.tickets.stop_button.click()
        assert window.tickets.rate_label.text() == "Stopping: the language model finishes the 1 ticket it has in hand"
    finally:
        fake.gate.set()
    qtbot.waitUntil(lambda: not session.busy, timeout=5_000)
    assert session.table.count_scored() == 4  # the batch in flight landed and was kept
    assert window.tickets.rate_label.text() == "Stopped: 7 not labelled yet"
    assert [s for s in shown if s.startswith("Stopped")] == ["Stopped: 7 not labelled yet"] * sum(
        s.startswith("Stopped") for s in shown
    )  # never another count than the one that stays


def test_tickets_waiting_for_the_model_are_not_all_labelled(qtbot, tmp_path, monkeypatch, event_loop_qt):
    """W17: a new lead opened 600 tickets while the bundled model was converted on first start (half a minute);
    the bar said "0 / 600 labelled" and the line under it "All labelled", no label in the table (no prompt in
    use yet: no row counted as still to label). Until a prompt is in use the run is not done."""
    from fake_engine import FakeEngine

    from triage_gui.gui.main_window import MainWindow
    from triage_gui.session.session import Session

    monkeypatch.setenv("TRIAGE_GUI_CONFIG_DIR", str(tmp_path / "config"))
    fake = FakeEngine()
    fake.build_gate.clear()  # the prompt waits for the model
    window = MainWindow(session=Session(fake.as_engine(), device="cpu", batch_size=8))
    qtbot.addWidget(window, before_close_func=MainWindow.close_now)
    window.show()
    try:
        window.session.paste([NewRow({"text": f"ticket {i}"}, f"ticket {i}") for i in range(12)])
        qtbot.waitUntil(lambda: len(window.session.table) == 12, timeout=10_000)
        qtbot.wait(200)
        assert window.session.run_status.state != "done"
        assert not window.tickets.rate_label.text().startswith("All labelled"), window.tickets.rate_label.text()
    finally:
        fake.build_gate.set()
    qtbot.waitUntil(lambda: window.session.table.count_scored() == 12, timeout=10_000)
    qtbot.waitUntil(lambda: window.session.run_status.state == "done", timeout=10_000)
    assert window.tickets.rate_label.text().startswith("All labelled")
    window.close_now()
