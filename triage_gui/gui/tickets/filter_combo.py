"""The filter bar's combo boxes (text column, gold column, label), made alike."""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox


def combo(name: str, width: int, tip: str = "") -> QComboBox:
    """A combo box named ``name`` for screen readers, ``width`` characters wide at least (longer entries elide)."""
    box = QComboBox()
    box.setAccessibleName(name)
    box.setToolTip(tip)
    box.setMinimumContentsLength(width)
    box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    return box
