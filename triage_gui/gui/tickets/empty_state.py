"""What an empty table says: how to get tickets in, the last file opened among them.

It takes the keyboard focus when it shows (at start, after *Clear tickets*), so Ctrl+V pastes tickets
rather than landing in the search box, the first field of the window's focus chain."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from ...engine.tickets import FORMAT_NAMES


class EmptyState(QWidget):
    """See the module docstring."""

    open_clicked = Signal()
    sample_clicked = Signal()
    recent_clicked = Signal(str)  # the last file opened, to open again

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setAccessibleName("No tickets yet")
        title = QLabel("<h3>No tickets yet</h3>")
        text = QLabel(
            f"Drop a {FORMAT_NAMES} file of tickets on this window, paste tickets with Ctrl+V, "
            "or open a file with Ctrl+O (File › Open recent has the last ones). Every ticket gets a label as soon "
            "as it is read."
        )
        text.setWordWrap(True)
        text.setAlignment(Qt.AlignmentFlag.AlignCenter)
        open_button = QPushButton("Open tickets…")
        open_button.clicked.connect(self.open_clicked)
        self.recent = ""
        self.recent_button = QPushButton()
        self.recent_button.clicked.connect(lambda: self.recent_clicked.emit(self.recent))
        self.recent_button.hide()
        sample_button = QPushButton("Try the sample tickets")
        sample_button.setToolTip("60 real banking queries with a team column to measure accuracy against")
        sample_button.clicked.connect(self.sample_clicked)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        for button in (self.recent_button, open_button, sample_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        box = QVBoxLayout(self)
        box.addStretch(1)
        box.addWidget(title, 0, Qt.AlignmentFlag.AlignHCenter)
        box.addWidget(text)
        box.addLayout(buttons)
        box.addStretch(2)
        self.sample_button = sample_button

    def set_recent(self, path: str | None) -> None:
        """Offer the last file opened (if it is still there) as the first button."""
        self.recent = path if path and Path(path).is_file() else ""
        self.recent_button.setText(f"Open {Path(self.recent).name} again" if self.recent else "")
        self.recent_button.setToolTip(self.recent)
        self.recent_button.setVisible(bool(self.recent))

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if not event.spontaneous():  # shown by the app (start, Clear), not a window restored from minimised
            self.setFocus(Qt.FocusReason.OtherFocusReason)
