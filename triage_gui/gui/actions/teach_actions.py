"""Teaching from the window: the label keys and Enter, the next ticket to teach, and the random checks
with their estimate. Narrow inputs, never the window: the session, the ticket area, the editor, the
estimate's status-bar label and a way to tell the user.

A prompt with several fields: each acts on the field of the column in use (the current cell's), Teach next
picks that field's least sure ticket and the random sample checks that field's labels, each saying which
field; the status bar's estimate is that field's."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QLabel, QMessageBox

from ...engine.learning import in_words  # the heads' table (numpy only: scikit-learn stays out of the start)
from ...session.session import Session
from ...session.status import HeadStatus
from ...words import counted
from ..prompt.prompt_editor import PromptEditor
from ..tickets.ticket_area import TicketArea

MANY_ROWS = 20  # a teach key on more selected tickets than this asks first (Ctrl+A then 3 taught 20,000)


class TeachActions:
    """See the module docstring."""

    def __init__(
        self,
        session: Session,
        tickets: TicketArea,
        editor: PromptEditor,
        check_status: QLabel,
        notify: Callable[[str, int], None],
    ) -> None:
        self.session, self.tickets, self.editor, self.check_status = session, tickets, editor, check_status
        self._check_width: int | None = None  # the estimate's width in the status bar, as the window gave it
        self.notify = notify
        self.gold = False  # whether a gold column measures the labels already (as last shown)
        self.shown_field = 0  # whose estimate the status bar shows (a prompt with several fields)
        self._head: tuple[HeadStatus, QLabel] | None = None  # the learning state last shown, and where
        session.save_taught.connect(self.taught_changed)

    def teach(self, rows: list[int], label: str | None) -> None:
        """Teach the field of the column in use (a prompt with several fields; else the one field)."""
        self.teach_field(self.tickets.field_in_use, rows, label)

    def teach_field(self, field: int, rows: list[int], label: str | None) -> None:
        question = f"Teach all {len(rows):,} selected tickets '{label}'?"
        if not self._many_agreed(
            rows, f"Forget what you taught {len(rows):,} selected tickets?" if label is None else question
        ):
            return
        # A ticket of the field's random sample: counted, then taught (a further field: its own taught set, one
        # undo step naming it).
        self._next_to_check(self.session.teach_field(field, rows, label), field)

    def accept(self, rows: list[int], field: int | None = None) -> None:
        """Enter (or "Label is right"): teach the shown labels and say what that did, and how to undo it; in
        ``field`` (None: the field of the column in use)."""
        if not self._many_agreed(rows, f"Accept the shown label of all {len(rows):,} selected tickets (teach them)?"):
            return
        field = self.tickets.field_in_use if field is None else field
        accepted, checked = self.session.accept_field(field, rows)
        names = self.session.field_names  # several fields: the field named, as a teach's message names it (W11)
        self.notify(accepted_message(accepted, names[field] if len(names) > 1 and field < len(names) else ""), 8000)
        self._next_to_check(checked, field)

    def _many_agreed(self, rows: list[int], question: str) -> bool:
        """A key on a large selection (Ctrl+A, then a digit) asks first: a slip would teach every ticket.
        One step for Ctrl+Z either way, which the question says."""
        if len(rows) <= MANY_ROWS:
            return True
        answer = QMessageBox.question(
            self.tickets,
            "Teach many tickets",
            f"{question} Ctrl+Z undoes it in one step.",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Cancel,
        )
        return answer == QMessageBox.StandardButton.Yes

    def _next_to_check(self, checked: list[int], field: int = 0) -> None:
        """After a verdict on the random sample, the next ticket to check is selected, in the order drawn,
        so Enter or 1-9 answers it straight away (in the same field's column)."""
        following = self.session.next_to_check(field)
        if checked and following is not None:
            self.tickets.select_source_row(following, field)
            self.tickets.focus_table()
        elif checked and not (status := self.session.field_check_status(field)).to_check:  # the last answer
            self.notify(f"Sample checked. {status.describe()}.", 15000)  # after the teach's own words (W15)

    def field_name(self, field: int) -> str:
        """The field's name, for a prompt with several fields ("" for one)."""
        names = self.session.field_names
        return names[field] if field < len(names) else ""

    def teach_keys(self, rows: list[int], which) -> None:
        labels = self.session.field_labels(self.tickets.field_in_use)
        if which is None:
            self.teach(rows, None)
        elif isinstance(which, int) and which < len(labels):
            self.teach(rows, labels[which])

    # The Teach menu's rows for the table's keys (Enter, 1-9, Delete): the menu shows the key, and does
    # what it does to the selected tickets.

    def accept_selected(self) -> None:
        if rows := self._selected():
            self.accept(rows)

    def forget_selected(self) -> None:
        if rows := self._selected():
            self.teach(rows, None)

    def pick_label(self) -> None:
        """The label picker on the current ticket (it lists the labels with their 1-9 keys)."""
        if self._selected():
            self.tickets.edit_current_label()

    def _selected(self) -> list[int]:
        rows = self.tickets.selected_rows()
        if not rows:
            self.notify("Select tickets in the table first.", 6000)
        return rows

    def forget_all(self) -> None:
        """Teach › Forget everything taught, in the field of the column in use (a prompt with several fields
        names it): asks first, with the count (one undo step, which it says)."""
        field = self.tickets.field_in_use
        name = self.field_name(field)
        count = len(self.session.field_taught()[field - 1]) if field else len(self.session.taught_items())
        if not count:
            self.notify(f"Nothing is taught for {name} yet." if name else "Nothing is taught yet.", 6000)
            return
        of = f" for {name}" if name else ""
        answer = QMessageBox.question(
            self.tickets,
            "Forget everything taught",
            f"Forget all {count:,} taught ticket{'s' if count != 1 else ''}{of}? Ctrl+Z brings them back in one step.",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Cancel,
        )
        if answer == QMessageBox.StandardButton.Yes:
            self.session.forget_all(field)

    def next_suggestion(self) -> None:
        """Select the next ticket to teach: the best suggestion not taught yet, or say there is none; for the
        field of the column in use, named (a prompt with several fields). On a suggestion already, the one after
        it (round to the best): N again stayed on a ticket the lead chose not to teach, with no way past (W15)."""
        field = self.tickets.field_in_use
        name, rows = self.field_name(field), self.session.field_suggestions(field)
        on = self.tickets.selected_rows()
        at = rows.index(on[0]) + 1 if len(on) == 1 and on[0] in rows else 0
        row = rows[at % len(rows)] if rows else None
        if row is None:
            of = f" for {name}" if name else ""
            self.notify(f"No ticket to suggest yet{of}: suggestions follow the first labels.", 6000)
            return
        self.tickets.select_source_row(row, field)
        self.tickets.focus_table()
        if name:
            self.notify(f"Teach next for {name}: ticket #{row + 1}, among the least sure of its {name}.", 8000)

    def check_sample(self) -> None:
        """Draw a random sample to check and show it ("To check"), its first ticket selected."""
        field = self.tickets.field_in_use
        name, queue = self.field_name(field), self.session.draw_checks(field)
        of = f" for {name}" if name else ""
        if not queue:
            self.notify(f"No untaught labelled ticket to check{of}.", 6000)
            return
        self.tickets.show_to_check()  # the sample alone: no filter left on hides part of it
        self.tickets.select_source_row(queue[0], field)
        self.tickets.focus_table()
        self.notify(f"Check {len(queue)} random tickets{of}: Enter if right, else 1-9.", 15000)

    def show_head(self, status: HeadStatus, label: QLabel) -> None:
        """The learning state in the status bar."""
        if status.state == "off":
            label.setText("")
        elif status.state == "fitting":
            label.setText("Learning…")
        elif status.state == "ready":  # short words in the status bar (cut at 1366 px with two fields), all in the tip
            self._head = (status, label)
            left_out = status.stranded and (
                f" {counted(status.stranded, 'taught ticket')} {'has' if status.stranded == 1 else 'have'} a label"
                " this prompt does not have: left out."
            )
            tip = f"{in_words()}, weighted {status.weights}. Refit in {status.fit_ms:.0f} ms.{left_out or ''}"
            names, counts = self.session.field_names, [status.learned, *self.session.field_learned()]
            if len(names) > 1 and any(counts):  # each field learns from its own (W9: the queue's 1 said, 7 unsaid)
                label.setText(f"Learned from {' + '.join(map(str, counts))} taught")
                each = "; ".join(f"{name}: {counted(n, 'taught ticket')}" for name, n in zip(names, counts))
                label.setToolTip(f"Each field learned from its own taught tickets ({each}). {tip}")
                return
            whole = self._learned_from(status.learned)
            label.setText(f"Learned from {'the prompt' if whole.endswith(' and label descriptions') else whole}")
            label.setToolTip(f"Learned from {whole}. {tip}")
        elif status.state == "failed":
            label.setText("Learning failed")
            label.setToolTip(status.message)

    def taught_changed(self) -> None:
        """A further field's teaching refits its own heads, not the first field's: the line counts it anew."""
        if self._head is not None:
            self.show_head(*self._head)

    def _learned_from(self, taught: int) -> str:
        """What the classifier was fitted on, as it is: with nothing taught, the prompt's examples and
        label descriptions ("the prompt's examples" was said of a prompt that has only descriptions)."""
        if taught:
            return f"{taught} taught ticket{'s' if taught != 1 else ''}"
        profile = self.session.prompt_in_use
        examples = bool(profile and profile.examples)
        described = bool(profile and any(label.description.strip() for label in profile.labels))
        if examples and described:
            return "the prompt's examples and label descriptions"
        return "the prompt's examples" if examples or not described else "the label descriptions"

    def _fit_check_status(self, field: str) -> None:
        """The estimate's room in the status bar, with its field's name ahead of it ("priority ~80% (…), 20 checks on
        v3 with 40 taught, just now": cut before "taught" at 1366 px): the width it was given, plus the name's."""
        label = self.check_status
        if self._check_width is None:
            self._check_width = label.maximumWidth()
        extra = label.fontMetrics().horizontalAdvance(f"{field} , 2 h ago") if field else 0  # (its age too)
        label.setMaximumWidth(self._check_width + extra)

    def follow_field(self) -> None:
        """The estimate follows the field of the column in use, looked at on the window's stats timer: a slot
        on the current cell's column ran inside the table's own filter change (a check answered) and crashed.
        The sample listed (*To check*) stays: a step into the next column emptied the list being checked."""
        field = self.tickets.field_in_use
        if field != self.shown_field:
            self.show_checks(listed=False)
        rows = self.session.field_suggestions(field) if field else None  # Teach next: that field's, named
        self.tickets.follow_suggestions(self.field_name(field), rows)

    def show_checks(self, gold: bool | None = None, listed: bool = True) -> None:
        """The random checks' estimate of the field in use (a prompt with several fields: the current cell's
        column's, named), next to the learning state and in the editor, and (``listed``) its sample still to
        check; with a gold column it says what the checks have, not that nothing is measured."""
        self.shown_field = self.tickets.field_in_use
        status, gold = self.session.field_check_status(self.shown_field), self.gold if gold is None else gold
        self.gold = gold
        if listed:
            self.tickets.set_rows(to_check=status.to_check)
        self.check_status.setText(status.short(gold=gold))  # "~40% (22–61%), 20 checks on v3 with 40 taught, 2 h ago"
        self._fit_check_status(status.field)
        self.check_status.setToolTip(status.describe(gold=gold))
        names = self.session.field_names  # the editor says the estimate of the field it shows (named), each its own
        each = [self.session.field_check_status(i).describe(gold=gold) for i in range(len(names))]
        self.editor.set_estimates(dict(zip(names, each, strict=True)) if names else {"": status.describe(gold=gold)})
        if listed and status.checked and not status.to_check and self.tickets.checking:
            self.notify(f"Sample checked. {status.describe()}.", 15000)


def accepted_message(accepted: dict[str, int], field: str = "") -> str:
    """Enter teaches, so the status bar says what it taught and how to take it back
    ("Accepted 'billing' for 2 tickets — Ctrl+Z undoes"; ``field``, a prompt with several fields: "… (priority)")."""
    if not accepted:
        return "Nothing accepted: the selected tickets show no label yet."
    parts = [f"'{label}' for {n} ticket{'s' if n != 1 else ''}" for label, n in accepted.items()]
    return f"Accepted {', '.join(parts)}{f' ({field})' if field else ''} — Ctrl+Z undoes"
