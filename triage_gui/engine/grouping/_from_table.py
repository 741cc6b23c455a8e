"""Groups of a loaded ticket table (its first pass's embeddings, never recomputed), and accepted groups
as a prompt: labels with descriptions, representative tickets as examples."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...defaults import LOW_CONFIDENCE
from ..prompt import Example, Label, PromptProfile, default_profile
from ..table import TicketTable
from ._groups import Grouping, find_groups

EXAMPLES_PER_GROUP = 2  # representative tickets offered as examples: the prompt stays short to score
INSTRUCTION = "Classify the support ticket into exactly one of the labels below."


class NotEmbedded(ValueError):
    """The tickets have no first-pass embeddings yet (no encoder, or the first pass still running)."""


def grouped_rows(table: TicketTable, poorly_fitted: bool = False, low: float = LOW_CONFIDENCE) -> np.ndarray:
    """The table rows to group: every embedded one, or with ``poorly_fitted`` those whose label's
    confidence is below ``low`` (the labels in use fit them badly)."""
    rows = np.flatnonzero(table.embedded_mask())
    if poorly_fitted:
        rows = np.array([r for r in rows.tolist() if (c := table.confidence(r)) is None or c < low], dtype=np.int64)
    return rows


def snapshot(
    table: TicketTable, poorly_fitted: bool = False, low: float = LOW_CONFIDENCE
) -> tuple[np.ndarray, np.ndarray, list[str], list[str | None] | None]:
    """What :func:`find_groups` needs of the table (rows, their embeddings, texts, current labels with
    ``poorly_fitted``), read where the table's owner runs so the grouping itself can run on another thread."""
    rows = grouped_rows(table, poorly_fitted, low)
    if not len(rows):
        if poorly_fitted:
            raise NotEmbedded("No ticket is labelled with low confidence: the labels in use fit every ticket.")
        raise NotEmbedded("The tickets have no first-pass embeddings yet; wait for the first pass to finish.")
    texts = [table.texts[int(r)] for r in rows]
    current = [table.label(int(r)) for r in rows] if poorly_fitted else None
    return rows, table.embeddings.get(rows), texts, current


def group_table(
    table: TicketTable,
    groups: int | None = None,
    seed: int = 0,
    poorly_fitted: bool = False,
    low: float = LOW_CONFIDENCE,
) -> Grouping:
    """The table's tickets grouped (:func:`find_groups`); with ``poorly_fitted`` only those the current
    labels fit badly, each group saying how many it would take over from which current label."""
    rows, vectors, texts, current = snapshot(table, poorly_fitted, low)
    return find_groups(rows, vectors, texts, groups, seed, current)


def as_profile(
    grouping: Grouping,
    texts: Sequence[str],
    base: PromptProfile | None = None,
    examples: int = EXAMPLES_PER_GROUP,
    add: bool = False,
) -> PromptProfile:
    """A prompt whose labels are the grouping's groups (name and description), each with its first
    ``examples`` representative tickets (``texts``: the table's texts, by row) as examples. ``base``'s
    instruction, name and taught set are kept; with ``add`` its labels and examples too (the groups are
    added after them), else the groups replace them."""
    profile = base if base is not None else default_profile()
    labels = list(base.labels) if base is not None and add else []
    names = {label.name.casefold() for label in labels}
    shown: list[Example] = list(base.examples) if base is not None and add else []
    for group in grouping.groups:
        if group.name.casefold() in names:
            continue
        names.add(group.name.casefold())
        labels.append(Label(group.name, group.description))
        shown += [Example(texts[r], group.name) for r in group.representatives[:examples] if texts[r].strip()]
    draft = PromptProfile(
        instruction=profile.instruction if base is not None else INSTRUCTION,
        labels=labels,
        examples=shown,
        name=profile.name if base is not None else "Suggested labels",
        taught=list(base.taught) if base is not None else [],
    )
    draft.validate()
    return draft
