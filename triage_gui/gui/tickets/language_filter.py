"""The filter bar's *Language* list: the languages detected so far with their ticket counts, commonest first.

Its own widget so the ticket area stays one screen of code; the mask it asks for is the session layer's
(``session.gold.row_mask``, ``Filters.language``).
"""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox

from ...engine.table import LANGUAGES, language_name

ALL_LANGUAGES = "All languages"
UNKNOWN_LANGUAGE = "Unknown"


class LanguageFilter(QComboBox):
    """``currentData()``: the code chosen ("" for tickets of unknown language), None for every language."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setAccessibleName("Filter by language")
        self.setToolTip("Only the tickets in one language, as detected (empty: too short to tell, or unsure)")
        self.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.addItem(ALL_LANGUAGES, None)

    def refresh(self, counts: dict[str, int]) -> None:
        """List the languages of ``counts`` (code -> tickets), keeping the one chosen (with 0 if it has none)."""
        current = self.currentData()
        order = list(LANGUAGES)
        known = sorted((c for c in counts if c), key=lambda c: (-counts[c], order.index(c) if c in order else 99))
        self.blockSignals(True)
        self.clear()
        self.addItem(ALL_LANGUAGES, None)
        for code in known:
            self.addItem(f"{language_name(code)} ({counts[code]:,})", code)
        if counts.get(""):
            self.addItem(f"{UNKNOWN_LANGUAGE} ({counts['']:,})", "")
        if current is not None and self.findData(current) < 0:
            self.addItem(f"{shown(current)} (0)", current)
        self.setCurrentIndex(max(0, self.findData(current)))
        self.blockSignals(False)


def shown(code: str) -> str:
    """A code as the filter bar names it: "German", or "Unknown" for ""."""
    return language_name(code) or UNKNOWN_LANGUAGE
