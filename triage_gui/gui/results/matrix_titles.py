"""The confusion matrix's titles: a label name broken onto two lines where it fits so, else elided so that no two
names read the same (:class:`results_area.ResultsArea` sizes its headers with them)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontMetrics


def two_lines(name: str, metrics: QFontMetrics, width: int) -> str | None:
    """``name`` broken at the space that makes its longer line shortest, if both lines then fit."""
    words = name.split(" ")
    splits = [(" ".join(words[:i]), " ".join(words[i:])) for i in range(1, len(words))]
    fitting = [(max(metrics.horizontalAdvance(a), metrics.horizontalAdvance(b)), a, b) for a, b in splits]
    best = min(fitting, default=None)
    return f"{best[1]}\n{best[2]}" if best is not None and best[0] <= width else None


def distinct_elided(name: str, names: list[str], metrics: QFontMetrics, width: int) -> str:
    """``name`` elided to ``width`` so no two names read the same: "Access" and "Administrative rights"
    both came out "A…s". Middle elision keeps both ends; names it makes alike keep their start instead
    ("Acc…", "Adm…"), and where even that is alike, the start that tells them apart, however narrow."""

    def elided(text: str, mode: Qt.TextElideMode) -> str:
        return metrics.elidedText(text, mode, width)

    shown = elided(name, Qt.TextElideMode.ElideMiddle)
    alike = [o for o in names if o != name and elided(o, Qt.TextElideMode.ElideMiddle) == shown]
    if shown == name or not alike:
        return shown
    right = elided(name, Qt.TextElideMode.ElideRight)
    if all(elided(o, Qt.TextElideMode.ElideRight) != right for o in alike):
        return right
    others = [o for o in names if o != name]
    k = next((k for k in range(1, len(name) + 1) if not any(o.startswith(name[:k]) for o in others)), len(name))
    return name[:k] + ("…" if k < len(name) else "")
