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

from ..engine.table import NONE, TicketTable
from ..words import counted
from .gold import GoldColumn


@dataclass(frozen=True)
class Verdict:
    """Whether the language model's reading decides labels now (the shape of ``engine.learning``'s
    ``refinement_verdict``: used, and the evidence it was judged on)."""

    used: bool
    fixed: int = 0
    broken: int = 0
    evidence: int = 0
    reason: str = ""


def refinement_verdict(weights: Mapping[str, float] | None, head_active: bool) -> Verdict:
    """The one place the session asks whether the refinement is used for labels: the combination's weights
    of the language model's heads (``engine.learning.llm_heads``) all zero means it is not. With no learned
    head the prompt's own scores are the labels: used."""
    if not head_active or weights is None:
        return Verdict(True, reason="the labels are the prompt's own scores")
    from ..engine.learning import llm_heads

    if any(float(weights.get(h, 0.0)) > 0 for h in llm_heads()):
        return Verdict(True)
    return Verdict(False, reason="no evidence it helps on these tickets")


@dataclass(frozen=True)
class Changes:
    """The refinement's changes: rows read, labels changed from the first pass, and against gold (where
    there is one) the changed rows now right that were wrong, and now wrong that were right."""

    read: int
    changed: int
    fixed: int = 0
    broken: int = 0
    judged: int = 0  # changed rows with a gold label
    verdict: Verdict = Verdict(True)

    @property
    def used(self) -> bool:
        return self.verdict.used

    @property
    def reason(self) -> str:
        return self.verdict.reason

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
            on = f"on {counted(v.evidence, 'ticket')} you checked or taught"
            return f"{changed}; {on}, its reading made {v.fixed} right and {v.broken} wrong."
        if not self.judged:
            return changed + ("" if short else f" of the {self.read:,} tickets it read") + "."
        against = "" if short else " against gold"
        return f"{changed}: {self.fixed:,} now right, {self.broken:,} now wrong{against}."


def refinement_changes(table: TicketTable, verdict: Verdict, gold: GoldColumn | None = None) -> Changes:
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
