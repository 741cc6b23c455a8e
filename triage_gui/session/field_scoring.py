"""Scores the versions of the fields after the first and lists their flips (:mod:`field_versions` says what a
further field's version and its previous labels are). A version is scored as the first field's is
(:class:`evaluation.VersionScoring`), only once its labels are final: the field's fit over every row has landed,
no refit is pending and no file is being read; one score per gold rows and taught set (their fingerprints), the
first kept (:meth:`engine.prompt.VersionRecord.scored`)."""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING

from ..engine.prompt import Measure
from .evaluation import Evaluation, encoder_print, fingerprint, taught_print
from .field_versions import Flip, flips_between
from .gold import GoldColumn, gold_report
from .tasks import LatestTask

if TYPE_CHECKING:
    from ..engine.table import TicketTable
    from .session import Session


class FieldVersions:
    """The further fields' flips and version scores for the session and the evaluation (their gold columns);
    a new score is announced on :attr:`Evaluation.field_scored` (field index, the one-field prompt holding the
    field, the measure), which the window keeps in the prompt file."""

    def __init__(self, session: Session, evaluation: Evaluation) -> None:
        self.session, self.evaluation = session, evaluation
        self._waiting = LatestTask("score field versions")
        session.fields.rows_changed.connect(lambda first, last: self.look())  # a fit landed (or a new prompt)
        session.file_changed.connect(lambda status: self.look())  # a fit that landed while the file was read
        evaluation.field_gold_changed.connect(lambda name, gold: self.look())

    def flips(self, field: int, limit: int = 2000) -> tuple[list[Flip], int, bool]:
        """Field ``field``'s flips (1: the second field), how many, and whether it has previous labels at all."""
        fields = self.session.fields
        previous = fields.previous[field - 1] if 0 < field <= len(fields.previous) else None
        renamed = fields.renamed.get(fields.specs[field - 1].name, {}) if 0 < field <= len(fields.specs) else {}
        return (*flips_between(previous, fields.table_of(field), limit, renamed), previous is not None)

    def look(self) -> None:
        if self.session.fields.specs:
            self._waiting.start(self._settle())

    async def _settle(self) -> None:
        fields = self.session.fields
        while tasks := [t for t in fields.tasks() if not t.done()]:  # the fit that announced itself, and any after
            done, _ = await asyncio.wait(tasks)
            if any(t.cancelled() for t in done):
                return  # a newer fit cancelled it (it looks again when it lands), or the window is closing
        if self.session.reading or not fields.settled:
            return  # the rows still coming refit the fields, and the fit after them looks again
        for index, spec in enumerate(fields.specs, start=1):
            table, gold = fields.table_of(index), self.evaluation.gold_for(spec.name)
            if table is not None and gold is not None and (measure := measured(table, gold, fields.taught_of(index))):
                self.evaluation.field_scored.emit(index, spec.profile, measure)


def measured(table: TicketTable, gold: GoldColumn, taught: dict[str, str]) -> Measure | None:
    """A further field's accuracy against its gold column, as a version's score, once every gold row is labelled
    (taught rows judged out of fold, as in its Accuracy tab); None before."""
    ids, labels = gold.ids(table), table.labels
    rows = [r for r in range(len(ids)) if ids[r] >= 0 and r not in table.problems]
    report = gold_report(table, gold)
    if not rows or report.total < len(rows):
        return None
    print_ = fingerprint(f"{table.texts[r]}\x1f{labels[ids[r]]}" for r in rows)
    at = time.strftime("%Y-%m-%d %H:%M")
    return Measure(report.accuracy, len(taught), len(rows), print_, taught_print(taught), at, encoder_print(table))
