"""What the language model's reading adds, on this lead's tickets: how many labels it changed from the first
pass, and where a gold column allows, how many of those changes made a label right and how many made it
wrong; or, where its heads carry no weight in the labels, that it was read and not used, and why.

The first pass's label of each row is kept in the table (``first_pass_ids``) after the language model has
read the row, so the change is counted against what the lead had before the reading. Taught rows are left
out (their label is the lead's), and so are rows without a first-pass label (no sentence encoder).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from ..engine.learning import RefinementVerdict
from ..engine.table import NONE, TicketTable
from ..words import counted
from .gold import GoldColumn

NOT_USED = "no evidence it helps on these tickets"
USED = RefinementVerdict(True, 0, 0, 0, "")  # the engine's type (its module needs numpy alone)


def refinement_verdict(
    weights: Mapping[str, float] | None, head_active: bool, judged: RefinementVerdict | None = None
) -> RefinementVerdict:
    """The one place the session asks whether the refinement is used for labels: the combination's weights
    of the language model's heads (``engine.learning.llm_heads``) all zero means it is not. ``judged``: the
    last refit's out-of-fold verdict (``engine.learning.refinement_verdict``, which chose those weights), for
    its evidence and its reason. With no learned head the prompt's own scores are the labels: used."""
    if not head_active or weights is None:
        return RefinementVerdict(True, 0, 0, 0, "the labels are the prompt's own scores")
    from ..engine.learning import llm_heads

    used = any(float(weights.get(h, 0.0)) > 0 for h in llm_heads())
    if judged is not None and judged.used == used and judged.evidence:
        return judged
    return RefinementVerdict(used, 0, 0, 0, "" if used else NOT_USED)


@dataclass(frozen=True)
class Changes:
    """The refinement's changes: rows read, labels changed from the first pass, and against gold (where
    there is one) the changed rows now right that were wrong, and now wrong that were right."""

    read: int
    changed: int
    fixed: int = 0
    broken: int = 0
    judged: int = 0  # changed rows with a gold label
    verdict: RefinementVerdict = USED

    @property
    def used(self) -> bool:
        return self.verdict.used

    @property
    def reason(self) -> str:
        """The verdict's reason without its "used:" / "not used:" (the words around it say which)."""
        reason = self.verdict.reason
        return reason.split(": ", 1)[1] if reason.startswith(("used: ", "not used: ")) else reason

    def words(self, short: bool = False) -> str:
        """One line for the Accuracy tab (``short``: for the run bar)."""
        if not self.read:
            return ""
        if not self.used:
            read = f"Language model: read {self.read:,} ticket{'s' if self.read != 1 else ''}"
            return f"{read}; not used for labels yet" + ("" if short else f" — {self.reason}") + "."
        changed = f"The language model changed {counted(self.changed, 'label')}"
        if not self.judged and self.verdict.evidence:  # no gold: the verdict's own evidence (taught, checks)
            v = self.verdict
            judged = "judged by a model that did not see it"  # "out of fold", in a lead's words
            each = judged if v.evidence == 1 else f"each {judged}"
            on = f"on {counted(v.evidence, 'ticket')} you taught or checked, {each}"
            return f"{changed}; {on}, its reading made {v.fixed} right and {v.broken} wrong."
        if not self.judged:
            return changed + ("" if short else f" of the {self.read:,} tickets it read") + "."
        against = "" if short else " against gold"
        return f"{changed}: {self.fixed:,} now right, {self.broken:,} now wrong{against}."


def refinement_changes(table: TicketTable, verdict: RefinementVerdict, gold: GoldColumn | None = None) -> Changes:
    """Count what the reading changed (numpy over the columns: milliseconds for 200,000 rows)."""
    read = table.count_scored()
    if not read:
        return Changes(0, 0, verdict=verdict)
    first, final = table.first_pass_ids(), table.label_ids()
    rows = table.scored_mask() & ~table.taught_mask() & (first != NONE) & (final != NONE)
    changed = rows & (first != final)
    if gold is None or not table.labels:
        return Changes(read, int(changed.sum()), verdict=verdict)
    truth = gold.ids(table)
    first_i, final_i = table.current_index(first), table.current_index(final)
    judged = changed & (truth >= 0)
    fixed = judged & (final_i == truth) & (first_i != truth)
    broken = judged & (first_i == truth) & (final_i != truth)
    return Changes(
        read, int(changed.sum()), int(fixed.sum()), int(broken.sum()), int(np.count_nonzero(judged)), verdict
    )  # fmt: skip
