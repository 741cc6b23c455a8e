"""Edit › Undo / Redo (Ctrl+Z / Ctrl+Shift+Z): one pair of actions, two histories. With focus in the
prompt editor (its tables or text fields) they undo prompt edits (the editor's QUndoStack); anywhere
else they undo teaching (the session's :class:`TaughtHistory`). The items say what they will undo
("&Undo teach 3 tickets 'billing'", "&Undo prompt edit") and are enabled only when there is something.

The texts are our own words: the editor's steps are named "prompt edit", or after the field a step changed
("&Undo add field 'mood'", "&Undo move field 'priority'": each said only "prompt edit", W11); a QUndoStack's own
words after a fixed title made "Undo prompt edit edit prompt".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QApplication, QMenu, QMenuBar, QWidget
from shiboken6 import isValid

from ...session.undo import Step, TaughtHistory
from ..prompt.prompt_editor import PromptEditor


class UndoRouter(QObject):
    """See the module docstring. A QObject so that its connection to the application's focus changes
    ends with the window."""

    def __init__(
        self, history: TaughtHistory, editor: PromptEditor, notify: Callable[[str, int], None], parent: QObject
    ) -> None:
        super().__init__(parent)
        self.history, self.editor, self.notify = history, editor, notify
        self.actions: tuple[QAction, QAction] | None = None
        self._in_editor = False  # where focus last was, outside menus

    def bind(self, undo: QAction, redo: QAction) -> None:
        self.actions = (undo, redo)
        self.editor.steps_changed.connect(self.refresh)
        self.history.changed.connect(self.refresh)
        self.history.recorded.connect(self._recorded)
        cast(QApplication, QApplication.instance()).focusChanged.connect(self._focus_changed)
        self.refresh()

    def prompt_focused(self) -> bool:
        """Focus is in the prompt editor; a menu or the menu bar taking it keeps the answer it had."""
        focus = QApplication.focusWidget()
        if focus is not None and not isinstance(focus, QMenu | QMenuBar):
            self._in_editor = focus is self.editor or self.editor.isAncestorOf(focus)
        return self._in_editor

    def undo(self) -> None:
        if self.prompt_focused():
            self.editor.undo_edit()
        else:
            step = self.history.undo()
            if step is not None:
                self.notify(f"Undid: {step.what} — Ctrl+Shift+Z redoes", 8000)
        self.refresh()

    def redo(self) -> None:
        if self.prompt_focused():
            self.editor.redo_edit()
        else:
            step = self.history.redo()
            if step is not None:
                self.notify(f"Redid: {step.what} — Ctrl+Z undoes", 8000)
        self.refresh()

    def _recorded(self, step: Step) -> None:
        """Every teach, whatever its route (the picker, a digit, Enter, the detail pane, an import), is one
        step recorded here: the status bar says what it taught for a few seconds (Enter and an import then
        say it in their own words)."""
        self.notify(f"{done_words(step.what)}: labels updating.", 5000)

    def texts(self) -> tuple[str, str]:
        """What undo and redo would do now ("" for nothing)."""
        if self.prompt_focused():
            return self.editor.edit_steps()
        return self.history.undo_text, self.history.redo_text

    def refresh(self) -> None:
        if self.actions is None or not (isValid(self.editor) and all(isValid(a) for a in self.actions)):
            return  # the window is going: focus moves while its widgets are deleted
        for action, title, what in zip(self.actions, ("&Undo", "&Redo"), self.texts(), strict=True):
            action.setText(f"{title} {what.replace('&', '&&')}" if what else title)
            action.setEnabled(bool(what))

    def _focus_changed(self, _old: QWidget | None, _now: QWidget | None) -> None:
        if not isValid(self.editor):  # the application outlives the window (tests open many)
            cast(QApplication, QApplication.instance()).focusChanged.disconnect(self._focus_changed)
            return
        self.refresh()


PAST = {"teach": "Taught", "forget": "Forgot", "accept": "Accepted", "learn": "Learned", "import": "Imported"}


def done_words(what: str) -> str:
    """A step's words as done ("teach 1 ticket 'Card' (queue)" -> "Taught 1 ticket 'Card' (queue)")."""
    verb, _, rest = what.partition(" ")
    return f"{PAST.get(verb, verb.capitalize())} {rest}".strip()
