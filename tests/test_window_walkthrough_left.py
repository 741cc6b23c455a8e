"""The walkthrough's left items, each as a lead meets it, on the fake session: after *New prompt* the tickets'
labels say whose they are; an untouched *New prompt* is nothing to save; a teach confirms itself in the status
bar whatever its route; the run line fits whole at 1024x640 and 1366x768; the File menu names the prompt's
four actions alike."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox
from test_window_fake import add_tickets

from triage_gui.engine.prompt import Label, PromptProfile
from triage_gui.gui.widgets.elided_label import ELLIPSIS
from triage_gui.session.status import RunStatus

LABELS_NOTE = "Labels from the last saved prompt: Save to label with this one."


def asked_questions(monkeypatch, answer=QMessageBox.StandardButton.Cancel) -> list:
    asked: list = []
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: asked.append(a) or answer)
    return asked


def test_an_untouched_new_prompt_is_nothing_to_save(qtbot, window, monkeypatch):
    asked = asked_questions(monkeypatch)
    window.trigger("new_prompt")
    assert window.editor.state_label.text() == "New, not saved yet: new-prompt.json"
    assert not window.isWindowModified()
    assert window.prompt.confirm_quit() and not asked  # closing asks nothing: nothing typed, nothing lost
    window.editor.labels.item(0, 0).setText("billing")  # typed: now there is something to lose
    window.editor.flush_snapshot()
    assert window.editor.state_label.text() == "Unsaved: new-prompt.json"
    assert not window.prompt.confirm_quit() and len(asked) == 1


def test_after_new_prompt_the_run_line_says_the_labels_are_the_last_saved_prompts(qtbot, window, monkeypatch):
    add_tickets(qtbot, window)
    labels = [window.session.table.label(r) for r in range(12)]
    assert LABELS_NOTE not in window.tickets.rate_label.text()
    window.trigger("new_prompt")
    assert [window.session.table.label(r) for r in range(12)] == labels  # kept, not dropped
    assert window.tickets.rate_label.text().startswith(LABELS_NOTE.removesuffix("."))
    window.resize(1024, 640)
    qtbot.wait(50)
    assert window.tickets.rate_label.elided().startswith(LABELS_NOTE.removesuffix("."))  # said whole at 1024 px
    blank = window.editor.profile()
    window.editor.set_profile(PromptProfile(blank.instruction, [Label("refund"), Label("bug")], name="Mine"))
    assert window.prompt.save()
    qtbot.waitUntil(lambda: not window.session.busy, timeout=10_000)
    assert LABELS_NOTE not in window.tickets.rate_label.text()  # labelled with this one now
    assert {window.session.table.label(r) for r in range(12)} <= {"refund", "bug"}


def test_every_route_of_teaching_confirms_it_in_the_status_bar(qtbot, window):
    add_tickets(qtbot, window)
    labels = window.session.table.labels
    window.teach([0], labels[1])  # the picker's route (and the detail pane's)
    assert window.statusBar().currentMessage() == f"Taught 1 ticket '{labels[1]}': labels updating."
    window.statusBar().clearMessage()
    view, model = window.tickets.table, window.model
    view.setCurrentIndex(window.tickets.proxy.mapFromSource(model.index(3, 1)))
    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_1)  # a digit
    assert window.statusBar().currentMessage() == f"Taught 1 ticket '{labels[0]}': labels updating."
    qtbot.keyClick(view, Qt.Key.Key_Delete)
    assert window.statusBar().currentMessage() == "Forgot 1 ticket: labels updating."


def test_the_run_line_fits_whole_at_1024x640_and_1366x768(qtbot, window):
    add_tickets(qtbot, window)
    bar = window.tickets.run_bar
    running = RunStatus("running", 340, 2000, rate=12.3, eta_seconds=130, classified=2000)
    stopped = RunStatus("stopped", 340, 2000, classified=2000)
    for size in ((1024, 640), (1366, 768)):
        window.resize(*size)
        qtbot.wait(50)  # laid out at that size; the session's own run status may come meanwhile
        for fields in ([], ["queue", "priority"]):
            bar.set_fields(fields)
            for status in (running, stopped):
                window.tickets.show_run(status)
                line = window.tickets.rate_label
                shown = line.elided()
                assert ELLIPSIS not in shown, (size, fields, status.state, shown)
                assert ("2 min left" in shown) == (status is running)  # the time left in sight
                assert ("2 fields" in shown) == bool(fields)  # each ticket read for both
                assert line.toolTip() in ("", line.text())  # whole in its tooltip where shortened
    window.resize(1024, 640)
    qtbot.wait(50)
    bar.set_fields([])
    window.tickets.show_run(running)
    assert window.tickets.rate_label.elided() == window.tickets.rate_label.text()  # one field: the long words


def test_the_file_menu_names_the_prompts_actions_alike_keeping_their_keys(qtbot, window):
    menu = window.menu_actions.menus["&File"]
    titles = [a.text().replace("&", "") for a in menu.actions() if a.text()]
    at = titles.index("New prompt")
    assert titles[at : at + 4] == ["New prompt", "Open prompt…", "Save prompt", "Save prompt as…"]
    keys = {i: window.menu_actions[i].shortcut().toString() for i in ("new_prompt", "save", "save_as")}
    assert keys == {"new_prompt": "Ctrl+N", "save": "Ctrl+S", "save_as": "Ctrl+Shift+S"}


def test_the_run_lines_parts_join_without_a_stray_full_stop(qtbot, window):
    """The walkthrough read "… not used for labels yet. · each ticket read for 2 fields" in the run line."""
    add_tickets(qtbot, window)
    bar = window.tickets.run_bar
    bar.set_fields(["queue", "priority"])
    bar.set_refinement("Language model: read 30 tickets; not used for labels yet.")
    window.tickets.show_run(RunStatus("done", 30, 30, classified=30))
    text = window.tickets.rate_label.text()
    assert "not used for labels yet · each ticket read for 2 fields" in text and ". ·" not in text
