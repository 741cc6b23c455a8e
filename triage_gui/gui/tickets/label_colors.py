"""The labels' colours: each label its own hue, from its name alone, as a translucent tint that reads on light
and dark backgrounds alike (the ticket table's label cells, every field's, and the detail pane's bars)."""

from __future__ import annotations

import functools
import unicodedata
import zlib
from collections.abc import Sequence

from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication

# Distinct hues; used as a translucent tint, so they read on light and dark backgrounds alike.
LABEL_HUES = [210, 20, 130, 280, 45, 170, 330, 90, 250, 0]


def hue_slot(name: str) -> int:
    """A label's own place in LABEL_HUES, from its name alone: CRC-32 of the NFC form (Python's hash() is
    salted per process), so a label keeps its colour across sessions, reorderings and added labels."""
    return zlib.crc32(unicodedata.normalize("NFC", name).encode("utf-8")) % len(LABEL_HUES)


@functools.lru_cache(maxsize=32)
def color_slots(labels: tuple[str, ...]) -> dict[str, int]:
    """Each current label's colour: its own slot, or, where two names hash alike, the next free slot.
    Names are placed in the order of their hash (not their order in the prompt), so the outcome does not
    depend on how the labels are ordered; no two share a colour while the palette has room."""
    taken: set[int] = set()
    slots: dict[str, int] = {}
    for name in sorted(set(labels), key=lambda n: (zlib.crc32(unicodedata.normalize("NFC", n).encode()), n)):
        slot = hue_slot(name)
        while len(taken) < len(LABEL_HUES) and slot in taken:
            slot = (slot + 1) % len(LABEL_HUES)
        taken.add(slot)
        slots[name] = slot
    return slots


def label_slot(name: str, labels: Sequence[str]) -> int:
    """The colour index of ``name`` among the current ``labels`` (a label no longer current: its own)."""
    return color_slots(tuple(labels)).get(name, hue_slot(name))


def label_color(index: int, dark: bool = False) -> QColor:
    color = QColor.fromHsv(LABEL_HUES[index % len(LABEL_HUES)], 170, 200 if dark else 230)
    color.setAlpha(110 if dark else 90)
    return color


def is_dark() -> bool:
    app = QApplication.instance()
    if not isinstance(app, QApplication):
        return False
    return app.palette().color(QPalette.ColorRole.Base).lightness() < 128
