"""Each further field's gold column (a prompt with several fields: a queue and a priority), against the evaluation
document: found by its values when a file is read or a prompt comes into use (after the first field's, so each
field finds its own column), chosen or cleared by the lead in the field's "Gold (priority):" combo (a value
mapping asked once per file header and field, as the first field's is), shown as a column of the ticket table,
and the ordered fields' "two steps apart" mark the table reads (``session.gold.far_from``).

The first field's gold stays :class:`TicketActions`'s. Narrow inputs, never the window: the session, the
evaluation, the ticket area and its model, the results area, a parent widget for dialogs and the summary's
refresh. It listens to the session's and the evaluation's events itself, connected after the window's."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QWidget

from ...session.evaluation import Evaluation
from ...session.gold import Far, far_from
from ...session.session import Session
from ...session.status import FileStatus, PromptStatus
from .. import dialogs
from ..results.results_area import ResultsArea
from ..tickets.ticket_area import TicketArea
from ..tickets.ticket_model import TicketTableModel


class FieldGoldActions:
    """See the module docstring."""

    def __init__(
        self,
        session: Session,
        evaluation: Evaluation,
        tickets: TicketArea,
        model: TicketTableModel,
        results: ResultsArea,
        parent: QWidget,
        refresh: Callable[[], object],
    ) -> None:
        self.session, self.evaluation, self.tickets, self.model = session, evaluation, tickets, model
        self.results, self.parent, self.refresh = results, parent, refresh
        session.prompt_changed.connect(self.prompt_ready)
        session.file_changed.connect(self.file_read)
        session.table_reset.connect(self.show)
        evaluation.field_gold_changed.connect(lambda field, gold: self.show())
        tickets.field_gold_chosen.connect(self.choose)
        results.accuracy_field_chosen.connect(lambda field: self.refresh())
        model.far = self.far

    def prompt_ready(self, status: PromptStatus) -> None:
        """A prompt in use: the Accuracy tab's field selector, and a gold column for each
        further field not looked for yet (the window's handler looked for the first field's before this one)."""
        if status.state != "ready":
            return
        self.results.show_fields(self.session.field_names)
        self.evaluation.follow_fields(self.session.field_names)  # a Save that moved a field first: golds follow
        self.detect()
        self.show()

    def file_read(self, status: FileStatus) -> None:
        if status.state == "done":
            self.detect()

    def detect(self) -> None:
        names = self.session.field_names
        fields = [(name, self.session.field_labels(i)) for i, name in enumerate(names[1:], 1)]
        self.evaluation.detect_fields(self.session.text_column, fields)

    def show(self) -> None:
        """Each further field's gold column in its combo and as a column of the ticket table, and its accuracy."""
        columns = {}
        for i, name in enumerate(self.session.field_names[1:], 1):
            gold = self.evaluation.gold_for(name)
            self.tickets.show_gold(gold.column if gold else None, i)
            if gold is not None:
                columns[i] = gold.column
        self.model.set_field_gold(columns)
        self.tickets.size_columns()
        self.refresh()

    def choose(self, field: int, column: str | None) -> None:
        """The lead chose field ``field``'s gold column (None: none); values that are none of the field's labels
        are mapped once per file header and field, in the first field's dialog over the field's labels."""
        names = self.session.field_names
        if not 0 < field < len(names):
            return
        name, evaluation = names[field], self.evaluation
        labels = self.session.field_labels(field)
        needed = evaluation.needs_mapping(column, name, labels) if column is not None else None
        table = self.session.field_table(field)
        mapping = None
        if column is not None and needed is not None and table is not None:
            mapping = dialogs.gold_mapping(self.parent, table, column, *needed)
            if mapping is None:
                was = evaluation.gold_for(name)
                self.tickets.show_gold(was.column if was else None, field)
                return
        evaluation.choose_for(name, column, mapping)

    def far(self, field: int, row: int) -> Far | None:
        """The ticket table's mark: in an ordered field, the row's label two or more steps from its taught or
        gold label (None: not, or the field is not ordered)."""
        profile = self.session.prompt_in_use  # (not kept: a Save that only put a field's labels in order, W14)
        if profile is None or field >= len(profile.fields) or not profile.fields[field].ordered:
            return None
        table = self.session.field_table(field)
        if table is None or row >= len(table):
            return None
        names = self.session.field_names
        gold = self.evaluation.gold if not field else self.evaluation.gold_for(names[field])
        return far_from(table, row, gold)
