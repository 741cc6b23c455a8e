"""Edit › Suggest labels: the loaded tickets (or those the labels in use fit badly) grouped by meaning on the
engine thread, then shaped into labels by the lead (:class:`SuggestDialog`) and put in the prompt editor, one undo
step. Narrow inputs, never the window: the session, the editor, a parent for the dialog and a status-bar note."""

from __future__ import annotations

import asyncio

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QWidget

from ...engine.prompt import PromptProfile
from ...session.session import Session
from ..prompt.prompt_editor import PromptEditor
from .prompt_actions import Notify


class SuggestActions:
    def __init__(self, session: Session, editor: PromptEditor, parent: QWidget, notify: Notify) -> None:
        self.session, self.editor, self.parent, self.notify = session, editor, parent, notify
        self.suggest_dialog: QDialog | None = None
        self.suggest_task: asyncio.Future | None = None

    def suggest_labels(self, poorly_fitted: bool = False) -> None:
        """Group the loaded tickets (or those the labels in use fit badly) on the engine thread, then let
        the lead shape the groups into labels (:class:`SuggestDialog`)."""
        self.suggest_task = asyncio.ensure_future(self._suggest(poorly_fitted))

    async def _suggest(self, poorly_fitted: bool) -> None:
        from ...engine.grouping import NotEmbedded
        from ..prompt.suggest_dialog import SuggestDialog

        self.notify("Grouping the tickets by meaning…", 5000)
        try:
            grouping = await self.session.suggest_groups(None, poorly_fitted)
        except NotEmbedded as exc:
            self.notify(str(exc), 10000)
            return
        dialog = SuggestDialog(
            grouping,
            self.session.table.texts,
            self.session.edit_groups,
            self.editor.profile(),
            poorly_fitted,
            self.parent,
        )
        dialog.accepted_profile.connect(self._use_suggested)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.suggest_dialog = dialog
        dialog.show()

    def _use_suggested(self, profile: PromptProfile) -> None:
        self.editor.replace_undoably(profile)
        self.notify(f"{len(profile.labels)} labels in the prompt editor; Save to label the tickets with them.", 10000)
