"""How a further field of a prompt with several is fitted: the fit ``classify --fast`` makes for the one-field
prompt holding it alone, on the fields' thread (or the engine thread once the language model read a row),
and the rows it offers to teach next. :class:`fields.FieldLabels` decides when; this is what runs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from ..defaults import SUGGESTIONS

if TYPE_CHECKING:
    from ..engine.model import ScorerLike
    from ..engine.prompt import PromptProfile
    from ..engine.table import TicketScore, TicketTable


@dataclass(frozen=True)
class FieldSpec:
    """A further field as it is run: its name and the one-field prompt holding it alone."""

    name: str
    profile: PromptProfile

    @property
    def labels(self) -> list[str]:
        return self.profile.label_names


@dataclass(frozen=True)
class FieldRead:
    """A further field's language-model scores as a refit captures them (rows in the order read)."""

    scorer: ScorerLike | None
    rows: list[int]
    scores: list[TicketScore]
    full_rows: list[int]
    full: list[TicketScore]


def fit_fields(
    tables: list[TicketTable],
    specs: list[FieldSpec],
    taught: list[list[tuple[str, str]]],
    encoder,
    reads: list[FieldRead],
) -> list[list[int]]:
    """Each field's labels over its own table (the tables are this job's alone): its language model's scores
    put in, then the fit ``classify`` makes (with the field's scorer once a row is read; the first pass
    alone before), and the rows to teach next for each."""
    from ..engine.learning import Teacher

    for table, spec, items, read in zip(tables, specs, taught, reads, strict=True):
        if read.rows:
            table.apply(read.rows, read.scores, table.version)
        if read.full_rows:
            table.apply_baseline(read.full_rows, read.full, table.version)
        Teacher(read.scorer if read.rows else None, spec.profile, encoder).fit_table(table, items)
    return [to_teach(table) for table in tables]


def to_teach(table: TicketTable, count: int = SUGGESTIONS) -> list[int]:
    """A field's rows to teach next, best first: :func:`engine.learning.suggest` on the field's probabilities
    (least sure first, typical of the file, unlike what is taught), as the first field's are picked. On the
    fields' thread after each fit: on 100,000 rows with 384-dim embeddings, reading the probabilities row by
    row took 1.65 s and the pick 1.27 s (2 cores, a test run beside it); the pick is the first field's cost too."""
    import numpy as np

    from ..engine.learning import suggest

    n, k = len(table), len(table.labels)
    probs = np.full((n, k), np.nan, dtype=np.float32)
    for row in range(n):
        if (p := table.label_probs(row)) is not None and len(p) == k:
            probs[row] = p
    # The shared blocks read as an array (indexed, never copied whole), as the first field's teaching passes them
    embeddings = cast("np.ndarray", table.embeddings.view(n)) if table.embeddings.dim else None
    picked = suggest(probs, ~table.taught_mask(), embeddings, table.taught_rows(), count)
    return [int(r) for r in picked]


def usable(taught: dict[str, str], labels: list[str]) -> list[tuple[str, str]]:
    """The taught tickets a field learns from, as ``classify`` reads them from the prompt (a label the field
    no longer has is set aside, kept in the file)."""
    from ..engine.prompt import Example
    from ..engine.tickets import usable_taught

    return usable_taught([Example(text, label) for text, label in taught.items()], labels)[0]


def refit_due(embedded: int, scorable: int, fitted: int) -> bool:
    """Whether the tables fitted on ``fitted`` embedded rows are due a refit: the embedded rows have doubled
    (16, 32, 64, …), or every scorable row is embedded now."""
    return embedded >= max(16, 2 * fitted) or embedded == scorable > fitted
