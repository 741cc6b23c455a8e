"""The line under the prompt editor: the shown field's taught tickets and its random-check estimate.

Its own widget with its own state (what the window last said of the taught sets, the estimates and the prompt
file): the editor kept these as attributes read with ``getattr`` defaults, because its first count came before
its fields were set. The editor says which field it shows and the fields it holds (:meth:`TaughtLine.show_for`);
a field is matched to a saved one by name, so a field moved or added before Save is counted as itself (W11: a
new field moved before the priority said the priority's count and estimate).
"""

from __future__ import annotations

from PySide6.QtWidgets import QLabel

from ...engine.prompt import Field
from ...session.checks import CheckStatus
from ...session.field_order import field_order

KEPT = "kept with this prompt"


class TaughtLine(QLabel):
    def __init__(self) -> None:
        super().__init__()
        self.setAccessibleName("Taught tickets")
        self.setWordWrap(True)
        self.new, self.kept = False, KEPT  # a prompt never saved (nothing taught); where the taught tickets are
        self.taught = 0  # the first field's taught tickets (the only field of a one-field prompt)
        self.further: list[int] = []  # each further field's, as saved
        self.left: list[int] = [0]  # each field's taught under a label it no longer has (out of its fit), as saved
        self.saved: list[str] = []  # every field's name as saved
        self.estimates: dict[str, str] = {}  # each field's estimate by its saved name ("" for a one-field prompt)
        self.show_for([], 0)

    def show_for(self, fields: list[Field], field: int) -> None:
        """Say field ``field``'s count and estimate, of the editor's ``fields`` ([]: a one-field prompt). The
        estimate's line is there from the start: the tables do not shrink when the first status arrives."""
        count, estimates = (0, {}) if self.new else (self.taught, self.estimates)
        saved, further = self.saved, self.further
        order = field_order(fields, [Field(n, "", []) for n in saved]) if saved and field < len(fields) else []
        at: int = field if not order else len(saved) if (o := order[field]) is None else o  # new: none taught (W11)
        if at > 0:
            count = further[at - 1] if at - 1 < len(further) else 0
        several = len(fields) > 1 and field < len(fields)
        named = (saved[at] if at < len(saved) else fields[field].name) if several else ""  # a new field: its name
        key = named if len(saved) > 1 or at > 0 else ""  # (a one-field prompt in use: its estimate says "")
        estimate = estimates.get(key) or CheckStatus(field=named).describe()
        title = f"Taught tickets ({fields[field].name})" if several else "Taught tickets"
        left = self.left[at] if at < len(self.left) and count and not self.new else 0  # (W14: it said 15, 12 learned)
        kept = (
            f"{self.kept}; {left} of them under a label it no longer has, left out of the learning"
            if left
            else self.kept
        )
        taught = f"{count} ({kept})" if count else "none yet. Correct a label in the table to teach."
        self.setText(f"<b>{title}:</b> {taught}" + (f"<br>{estimate}" if estimate else ""))
