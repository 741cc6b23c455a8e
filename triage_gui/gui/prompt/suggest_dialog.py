"""*Suggest labels…*: the groups the loaded tickets fall into, for the lead to rename, merge, split, drop,
ask more or fewer of, and accept as the prompt's labels (with descriptions, representative tickets as
examples). A thin view: every edit is the engine's (:class:`engine.grouping.Grouping`), and every one but a
rename (merge, split, drop, more, fewer: each recomputes words and representatives, ~0.2 s for 20,000
tickets) runs on the session's engine thread, the buttons off while it does.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from PySide6.QtCore import QSignalBlocker, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTableWidgetSelectionRange,
    QVBoxLayout,
    QWidget,
)

from ...engine.grouping import Group, Grouping, as_profile
from ...engine.prompt import ProfileError, PromptProfile
from ...words import counted

Edit = Callable[..., Awaitable[Grouping]]  # (fn, *args) -> the new grouping, run off the GUI thread
NAME, DESCRIPTION, SIZE, WORDS, TAKES = range(5)


def summary_of(grouping: Grouping, poorly_fitted: bool = False) -> str:
    """The line above the groups: how many tickets in how many groups, how many fit none, which groups are
    small or loose (marked in their row, never hidden), and for poorly fitted tickets which were chosen."""
    total = len(grouping.rows)
    if not total:
        return "Nothing to group."
    what = "Poorly fitted: " if poorly_fitted else ""
    text = (
        f"{what}{counted(total, 'ticket')} in {counted(len(grouping.groups), 'group')}; "
        f"{counted(grouping.none_count, 'ticket')} fit no group well."
    )
    marked = [counted(len(grouping.flagged(flag)), f"{flag} group") for flag in ("loose", "small")]
    marked = [m for m in marked if not m.startswith("0 ")]
    if marked:
        text += f" {' and '.join(marked)} marked in the Tickets column: read their tickets before naming them."
    if grouping.note:
        text += f" {grouping.note}"
    return text + " Double-click a name or description to edit it; select groups to merge, split or drop them."


def takes_over(group: Group) -> str:
    """How many of the group's tickets each current label has now, every ticket counted ("…, 7 from 2 others")."""
    shown = list(group.takes_from.items())[:3]
    text = ", ".join(f"{n:,} from {label}" for label, n in shown)
    rest = list(group.takes_from.values())[3:]
    if rest:
        text += f", {sum(rest):,} from {counted(len(rest), 'other label')}"
    return text


def flag_tip(group: Group) -> str:
    """Why a group is marked, in words a lead can act on."""
    tips = []
    if group.loose:
        tips.append(
            f"Loose: its tickets are less alike than most groups' (cohesion {group.cohesion:.2f}); read them "
            "before naming it, or split it."
        )
    if group.small:
        tips.append("Small: too few tickets to say much; merge it or drop it if it is no label of its own.")
    return "\n".join(tips)


def fitting(widget: QWidget, width: int, height: int) -> tuple[int, int]:
    """``width`` x ``height``, or less where the screen's free area is smaller (a 1024 x 640 screen less its
    panels and the title bar: the Use as labels button stays on screen)."""
    screen = widget.screen()
    if screen is None:
        return width, height
    free = screen.availableGeometry()
    return min(width, free.width() - 40), min(height, free.height() - 80)


def _dropped(grouping: Grouping, numbers: Sequence[int]) -> Grouping:
    for number in sorted(numbers, reverse=True):
        grouping = grouping.dropped(number)
    return grouping


class SuggestDialog(QDialog):
    """See the module docstring. ``accepted_profile`` carries the prompt the accepted groups make."""

    accepted_profile = Signal(object)

    def __init__(
        self,
        grouping: Grouping,
        texts: Sequence[str],
        edit: Edit,
        base: PromptProfile,
        add: bool = False,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.grouping, self.texts, self.edit, self.base, self.add = grouping, texts, edit, base, add
        self.task: asyncio.Future | None = None
        self.setWindowTitle("Suggest labels: new labels for poorly fitted tickets" if add else "Suggest labels")
        self.resize(*fitting(self, 960, 600))
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.table = QTableWidget(0, 5 if add else 4)
        headers = ["Label", "Description", "Tickets", "Distinctive words"] + (["Takes over from"] if add else [])
        self.table.setHorizontalHeaderLabels(headers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(
            QAbstractItemView.EditTrigger.DoubleClicked | QAbstractItemView.EditTrigger.EditKeyPressed
        )
        self.table.horizontalHeader().setStretchLastSection(True)
        # Fixed widths that leave the last column room on a 1024-pixel screen: with "Takes over from" the
        # words' column had shrunk to "istinctive word" in the walkthrough at 1024 x 640.
        for column, width in ((NAME, 170), (DESCRIPTION, 260 if add else 300), (SIZE, 80), (WORDS, 220)):
            self.table.setColumnWidth(column, width)
        self.table.itemChanged.connect(self._renamed)
        self.table.itemSelectionChanged.connect(self._show_examples)
        self.table.itemSelectionChanged.connect(self._enable)
        self.examples = QPlainTextEdit(readOnly=True)
        self.examples.setPlaceholderText("Select a group to read its representative tickets.")
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.table)
        split.addWidget(self.examples)
        split.setSizes([400, 160])
        self.buttons: dict[str, QPushButton] = {}
        row = QHBoxLayout()
        for key, text, slot, tip in [
            ("merge", "&Merge", self.merge, "Make the selected groups one label"),
            ("split", "S&plit", self.split, "Split the selected group in two"),
            ("drop", "&Drop", self.drop, "Leave the selected groups out: their tickets fit no label"),
            ("fewer", "&Fewer groups", self.fewer, "Group the tickets again into fewer groups"),
            ("more", "M&ore groups", self.more, "Group the tickets again into more groups"),
        ]:
            self.buttons[key] = button = QPushButton(text)
            button.setToolTip(tip)
            button.clicked.connect(slot)
            row.addWidget(button)
        row.addStretch(1)
        self.buttons["accept"] = accept = QPushButton("&Add as labels" if add else "&Use as labels")
        accept.setToolTip("Put these groups in the prompt editor as labels (Undo takes them out); Save labels")
        accept.setDefault(True)
        accept.clicked.connect(self.accept_groups)
        cancel = QPushButton("Cancel")
        cancel.clicked.connect(self.reject)
        row.addWidget(accept)
        row.addWidget(cancel)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(split, 1)
        layout.addLayout(row)
        self.show_grouping(grouping)

    # ------------------------------------------------------------- showing

    def show_grouping(self, grouping: Grouping) -> None:
        self.grouping = grouping
        self.summary.setText(summary_of(grouping, self.add))
        with QSignalBlocker(self.table):
            self.table.setRowCount(len(grouping.groups))
            for r, group in enumerate(grouping.groups):
                size = f"{group.size:,}" + "".join(f" · {flag}" for flag in group.flags)
                cells = [group.name, group.description, size, ", ".join(group.terms[:6]), takes_over(group)]
                for c in range(self.table.columnCount()):
                    item = QTableWidgetItem(cells[c])
                    if c not in (NAME, DESCRIPTION):
                        item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEditable)
                    if c in (WORDS, TAKES):  # clipped with "…" in a narrow column: whole on hover
                        item.setToolTip(cells[c])
                    if c == SIZE:
                        item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                        item.setToolTip(flag_tip(group))
                    self.table.setItem(r, c, item)
        self._enable()
        self._show_examples()

    def selected(self) -> list[int]:
        return sorted({index.row() for index in self.table.selectionModel().selectedRows()})

    def _show_examples(self) -> None:
        chosen = self.selected()
        if len(chosen) != 1:
            self.examples.setPlainText("")
            return
        group = self.grouping.groups[chosen[0]]
        lines = [f"{group.name}: {group.size:,} tickets. Representative tickets:"]
        lines += [f"• {self.texts[r]}" for r in group.representatives]
        self.examples.setPlainText("\n".join(lines))

    def _enable(self) -> None:
        idle = self.task is None or self.task.done()
        count, chosen = len(self.grouping.groups), len(self.selected())
        self.buttons["merge"].setEnabled(idle and chosen >= 2)
        self.buttons["split"].setEnabled(idle and chosen == 1)
        self.buttons["drop"].setEnabled(idle and chosen >= 1)
        self.buttons["fewer"].setEnabled(idle and count > 2)
        self.buttons["more"].setEnabled(idle and count < len(self.grouping.rows))
        self.buttons["accept"].setEnabled(idle and count > 0)

    # ---------------------------------------------------------------- edits

    def _renamed(self, item: QTableWidgetItem) -> None:
        r = item.row()
        group = self.grouping.groups[r]
        name = self._cell(r, NAME) or group.name
        description = self._cell(r, DESCRIPTION)
        self.grouping = self.grouping.renamed(r, name, description)

    def _cell(self, row: int, column: int) -> str:
        item = self.table.item(row, column)
        return item.text().strip() if item is not None else ""

    def merge(self) -> None:
        chosen = self.selected()
        if len(chosen) >= 2:  # the merged group takes the first one's place
            self._off_thread([chosen[0]], self.grouping.merged, chosen)

    def drop(self) -> None:
        chosen = self.selected()
        if chosen:
            self._off_thread([], _dropped, self.grouping, chosen)

    def split(self) -> None:
        chosen = self.selected()
        if len(chosen) == 1 and self.grouping.groups[chosen[0]].size >= 2:  # the halves: that place and the next
            self._off_thread([chosen[0], chosen[0] + 1], self.grouping.split, chosen[0])

    def fewer(self) -> None:
        count = len(self.grouping.groups)
        self._off_thread([], self.grouping.regrouped, max(2, count - max(1, count // 5)))

    def more(self) -> None:
        count = len(self.grouping.groups)
        self._off_thread([], self.grouping.regrouped, count + max(1, count // 5))

    def _off_thread(self, select: list[int], fn: Callable[..., Grouping], *args: Any) -> None:
        """``fn(*args)`` on the engine thread; the groups shown when it ends, the buttons off till then.

        Then ``select`` (the groups the edit made) is the selection, never the old row numbers: in the
        walkthrough a merge left rows 5 and 8 selected, row 8 now another group, one click from a second,
        wrong merge. The keyboard goes back to the groups: with the buttons off, Qt had moved it to
        Cancel, where Enter closed the dialog and lost every edit."""

        async def work() -> None:
            try:
                grouping = await self.edit(fn, *args)
            except ValueError as exc:
                self.summary.setText(str(exc))
                return
            finally:
                self.task = None
            self.show_grouping(grouping)
            self.table.clearSelection()
            last = self.table.columnCount() - 1
            for row in (r for r in select if r < self.table.rowCount()):
                self.table.setRangeSelected(QTableWidgetSelectionRange(row, 0, row, last), True)
            self.table.setFocus()

        self.task = asyncio.ensure_future(work())
        self._enable()

    def accept_groups(self) -> None:
        """The groups as the prompt's labels (added to the labels in use, for poorly fitted tickets)."""
        try:
            profile = as_profile(self.grouping, self.texts, self.base, add=self.add)
        except ProfileError as exc:
            self.summary.setText(f"These groups do not make a prompt yet: {exc}")
            return
        self.accepted_profile.emit(profile)
        self.accept()
