"""The line over the ticket table that says which filters hide every ticket, with its *Show all* button."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QWidget


def hidden_hint(show_all: Callable[[], None]) -> tuple[QWidget, QLabel]:
    """The row (hidden until a filter hides every ticket) and its label, which :meth:`TicketArea.say_hidden`
    fills; *Show all* calls ``show_all``."""
    label = QLabel()
    label.setAccessibleName("Hidden by the filters")
    label.setWordWrap(True)
    button = QPushButton("Show all")
    button.clicked.connect(lambda: show_all())
    row = QWidget()
    box = QHBoxLayout(row)
    box.setContentsMargins(0, 0, 0, 0)
    box.addWidget(label, 1)
    box.addWidget(button)
    row.hide()
    return row, label
