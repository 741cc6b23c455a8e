"""What the table decided for one ticket, as one value: the label, where it came from, how sure, and the
marks every reader shows (taught, out of date, low confidence, what the language model alone says).

The export's row, the window's table cells, the detail pane and the random checks each used to read these
piecewise (``label``, ``source``, ``confidence``, ``stale``, ``taught_label``, the low-confidence check),
and each combined them a little differently in its own place (the export writes a taught label that is out
of date, the table marks it ✓, the pane explains it). :func:`decide` (``_table``) reads them once; the readers only
format what it returns, so they cannot drift apart. It reads the table, never writes it: the vectorised
decision itself stays in :meth:`TicketTable._decide`.
"""

from __future__ import annotations

from typing import NamedTuple

from ._rows import Source


class Decision(NamedTuple):
    """One ticket's label and its marks (see :func:`decide`). A named tuple, not a frozen dataclass: every
    shown cell and every exported row makes one, and a frozen dataclass's constructor (one
    ``object.__setattr__`` a field) took 8x as long as a tuple's, more than the rest of the decision."""

    label: str | None  # the label shown; from an earlier prompt version where ``stale``; None: no label
    source: Source  # where it came from (meaningful only where there is a label)
    confidence: float | None  # its probability from where it came from (taught: 1); None: no label
    taught: bool  # the lead's own label: taught by hand, accepted (Enter) or answered in a random check
    stale: bool  # from the previous prompt version, until this version's label arrives
    low_confidence: bool  # below the threshold and not taught: the ⚠ mark and the *Confidence below* filter
    model_label: str | None  # what the model (learned or prompt) gives this version, even where taught
    llm_label: str | None  # the language model's own label (its calibrated prompt scores alone); None: not read
    first_pass: str | None  # the first pass's label under this version, kept after the language model read it

    @property
    def written(self) -> str | None:
        """The label an export writes: this version's, or a taught one; an out-of-date label is not written
        (the row says "not labelled yet")."""
        return self.label if self.label is not None and (self.taught or not self.stale) else None

    @property
    def llm_disagrees(self) -> bool:
        """The language model, read alone, gives another label than the one shown."""
        return self.llm_label is not None and self.label is not None and self.llm_label != self.label
