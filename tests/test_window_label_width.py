"""A label column is as wide as its longest label name (W17): suggested labels named 'account and security' and
'payments and transfers' were shown as "✓ account and s…" and "⚠ payments and t…" in a 130 px Label column at
1280x720, the Ticket column beside it 380 px wide; a lead could not tell the labels apart without a tooltip."""

from __future__ import annotations

from PySide6.QtGui import QFont, QFontMetrics

from triage_gui.gui.tickets.ticket_model import Col

LONG = ["cards", "account and security", "payments and transfers"]


def shown_width(window, text: str) -> int:
    """What the text takes in a cell of the ticket table, bold as a taught ticket's label is."""
    font = QFont(window.tickets.table.font())
    font.setBold(True)
    return QFontMetrics(font).horizontalAdvance(text)


def test_a_label_column_shows_its_longest_label_whole(qtbot, window):
    window.resize(1280, 720)
    for row, name in enumerate(LONG):
        window.editor.labels.item(row, 0).setText(name)
    window.editor.flush_snapshot()
    assert window.prompt.save()
    qtbot.waitUntil(lambda: window.session.table.labels == LONG, timeout=10_000)
    qtbot.waitUntil(lambda: not window.session.busy, timeout=10_000)
    model, header = window.model, window.tickets.table.horizontalHeader()
    label = model.label_columns()[0]
    assert header.sectionSize(label) >= shown_width(window, "✓ payments and transfers") + 8
    assert header.sectionSize(model.column_index(Col.TICKET)) >= 180  # the ticket text keeps its room

    short = ["billing", "technical", "account"]
    for row, name in enumerate(short):
        window.editor.labels.item(row, 0).setText(name)
    window.editor.flush_snapshot()
    assert window.prompt.save()
    qtbot.waitUntil(lambda: window.session.table.labels == short, timeout=10_000)
    assert header.sectionSize(label) == 130  # short names: the column as it was
