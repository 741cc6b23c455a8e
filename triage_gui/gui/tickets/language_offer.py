"""The offer over the ticket table when enough of a file's tickets are not in English (a quarter: measured in
``engine.table._language``): one line and a button that
switches to the multilingual sentence encoder, and *Not now*.

It was one status-bar line ending "(Model › Choose model…)": at 1024 px the menu path was cut beside the
status labels, it went after 30 seconds, and the lead still had to find the model dialog and the encoder in it
(walkthrough W4). On W4's German file the switch took accuracy against gold from 50.8 % to 75.0 %.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from ...engine.model import MULTILINGUAL, encoder_name

NAME = encoder_name(MULTILINGUAL)


class LanguageOffer(QWidget):
    """Hidden until :meth:`offer`; *Use …* emits ``use_clicked`` and hides it, *Not now* hides it."""

    use_clicked = Signal()

    def __init__(self) -> None:
        super().__init__()
        self.setAccessibleName("Multilingual encoder offer")
        self.label = QLabel(f"Most of these tickets are not in English: {NAME} labels them better.")
        self.label.setWordWrap(True)
        self.use_button = QPushButton(f"Use {NAME}")
        self.use_button.setToolTip("Every ticket is embedded again with it (Model › Choose model… switches back).")
        self.later_button = QPushButton("Not now")
        self.use_button.clicked.connect(self._use)
        self.later_button.clicked.connect(self.hide)
        self.setBackgroundRole(QPalette.ColorRole.AlternateBase)  # an info bar, apart from the filters (both themes)
        self.setAutoFillBackground(True)
        box = QHBoxLayout(self)
        box.setContentsMargins(6, 3, 3, 3)
        box.addWidget(self.label, 1)
        box.addWidget(self.use_button)
        box.addWidget(self.later_button)
        self.hide()

    def offer(self, shown: bool, said: str = "") -> None:
        """Shown or not; ``said``: how many tickets are not in English ("36 % of these tickets …")."""
        if said:
            self.label.setText(f"{said}: {NAME} labels them better.")
        self.setHidden(not shown)

    def _use(self) -> None:
        self.hide()
        self.use_clicked.emit()


def with_offer(tickets: QWidget, offer: LanguageOffer) -> QWidget:
    """The ticket area with the offer over it, as one widget (the window's splitter holds it)."""
    both = QWidget()
    box = QVBoxLayout(both)
    box.setContentsMargins(0, 0, 0, 0)
    box.addWidget(offer)
    box.addWidget(tickets, 1)
    return both
