"""Groups of a loaded ticket table (its first pass's embeddings, never recomputed), and accepted groups
as a prompt: labels with descriptions, representative tickets as examples.

The tickets the labels in use fit badly: those labelled below ``LOW_CONFIDENCE``, or *far* from every label's
examples and taught tickets (the *anchors*) in the encoder's embedding space: the cosine to the nearest anchor
below the ``FAR_QUANTILE`` quantile of the anchors' own nearest-neighbour cosines (how close a labelled ticket
sits to its nearest labelled neighbour). Measured (``FAR_QUANTILE`` 0.05), with a prompt's one example per
label plus five taught tickets per label: one queue held out of the labels at a time, 14-30 % of its tickets
were far against 3.4-9.8 % of the other queues' (queues5, queues8, clinc-domains, clinc-support); tickets of
another data set planted among them (clinc-domains' among BANKING77's queues5) 67 % far against 2.1 % of
queues5's own (clinc-support's among queues8's: 48 % against 6 %; queues5's among clinc-support's, which has
banking queues of its own: only 23 % against 18 %). The 10th percentile flagged 26-33 % against 6.5-12 %, the
minimum 6-17 % against 1.4-6 %. Under ``MIN_ANCHORS`` anchors the quantile is noise (with only the prompt's
4-8 examples it flagged 9-32 % of in-scope tickets), so then only low confidence counts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...defaults import LOW_CONFIDENCE
from ...words import counted
from ..prompt import Example, Label, PromptProfile, default_profile
from ..table import TicketTable
from ._groups import Grouping, distinct_rows, find_groups, unit_rows

FAR_QUANTILE = 0.05  # see the module docstring
MIN_ANCHORS = 20  # fewer examples and taught tickets: "far" is not measured (module docstring)
EXAMPLES_PER_GROUP = 2  # representative tickets offered as examples: the prompt stays short to score
INSTRUCTION = "Classify the support ticket into exactly one of the labels below."


class NotEmbedded(ValueError):
    """The tickets have no first-pass embeddings yet (no encoder, or the first pass still running)."""


def far_threshold(anchors: np.ndarray | None) -> float | None:
    """The cosine under which a ticket is far from every anchor (see the module docstring), or None when
    there are fewer than ``MIN_ANCHORS`` distinct anchors."""
    if anchors is None or len(anchors) < MIN_ANCHORS:
        return None
    unit = unit_rows(anchors)
    unit = unit[distinct_rows(unit)]  # a text taught twice is one anchor
    if len(unit) < MIN_ANCHORS:
        return None
    similar = unit @ unit.T
    np.fill_diagonal(similar, -np.inf)
    return float(np.quantile(similar.max(axis=1), FAR_QUANTILE))


def nearest_anchor(vectors: Any, rows: np.ndarray, anchors: np.ndarray) -> np.ndarray:
    """Each of ``vectors[rows]``'s cosine to its nearest anchor (``vectors``: an array or the table's view,
    read in blocks: never a 200,000 x 384 copy or a 200,000 x anchors matrix at once)."""
    unit = unit_rows(anchors)
    out = np.empty(len(rows), dtype=np.float32)
    for start in range(0, len(rows), 8192):
        out[start : start + 8192] = (unit_rows(vectors[rows[start : start + 8192]]) @ unit.T).max(axis=1)
    return out


@dataclass
class Capture:
    """What grouping a table's tickets needs of it, read where the table's owner runs (:func:`capture`): the
    embedded rows, copies of the confidence and label columns and of the text list, and a view of the
    embeddings. Cheap to take (numpy copies, one list copy: under 5 ms for 20,000 tickets); the rest
    (:func:`gather`: the far-from-anchors test, the embeddings dequantised) runs on any thread, so the
    window never waits on it (the nearest-anchor test on 20,000 tickets took 0.2-1 s on the loop's thread)."""

    rows: np.ndarray  # every embedded row: those grouped, or the candidates with ``poorly_fitted``
    view: Any  # the table's embeddings by row, dequantised on read (its blocks are never rewritten)
    texts: list[str]  # the table's texts by row (a shallow copy)
    note: str  # which tickets are left out (not read by the first pass yet)
    poorly_fitted: bool = False
    low: float = LOW_CONFIDENCE
    confidences: np.ndarray | None = None  # by row, NaN where no label (``poorly_fitted`` only)
    label_ids: np.ndarray | None = None  # by row, into ``vocab`` (negative: none)
    vocab: list[str] = field(default_factory=list)
    anchors: np.ndarray | None = None


def capture(
    table: TicketTable, poorly_fitted: bool = False, low: float = LOW_CONFIDENCE, anchors: np.ndarray | None = None
) -> Capture:
    """A :class:`Capture` of ``table``, taken where its owner runs. Raises :class:`NotEmbedded` (one sentence)
    when no ticket has its first-pass embedding yet."""
    rows = np.flatnonzero(table.embedded_mask())
    if not len(rows):
        raise NotEmbedded("The tickets have no first-pass embeddings yet; wait for the first pass to finish.")
    view, texts = table.embeddings.view(len(table)), list(table.texts)
    if poorly_fitted:
        return Capture(
            rows, view, texts, "", True, low, table.confidences(), table.label_ids().astype(np.int64),
            list(table.label_vocab), anchors,
        )  # fmt: skip
    waiting = len(table.unembedded())
    note = (  # in the walkthrough a lead asked early: 896 of 1,000 grouped, and nothing said why
        f"{counted(waiting, 'ticket')} the first pass has not read yet {'is' if waiting == 1 else 'are'} not "
        "grouped: suggest again once it has read them."
        if waiting
        else ""
    )
    return Capture(rows, view, texts, note)


def chosen(taken: Capture) -> tuple[np.ndarray, str]:
    """The table rows to group, and a sentence saying which (or which are not yet): every embedded one, or
    with ``poorly_fitted`` those the labels in use fit badly: labelled below ``low`` confidence, or far from
    every one of the ``anchors`` (the embeddings of the labels' examples and taught tickets; module
    docstring). On any thread."""
    rows, low, anchors = taken.rows, taken.low, taken.anchors
    if not taken.poorly_fitted or taken.confidences is None:
        return rows, taken.note
    confidence = taken.confidences[rows]
    unsure = np.isnan(confidence) | (confidence < low)
    threshold = far_threshold(anchors)
    far = np.zeros(len(rows), dtype=bool)
    if threshold is not None and anchors is not None and len(rows):
        far = nearest_anchor(taken.view, rows, anchors) < threshold
    picked = unsure | far
    note = f"Chosen: {counted(int(unsure.sum()), 'ticket')} labelled below {low:.0%} confidence"
    if threshold is None:
        have = 0 if anchors is None else len(anchors)
        note += (  # "far from the labels' examples is measured from 20…" read as a riddle in the walkthrough
            f" (tickets far from every label's examples count too once the labels have {MIN_ANCHORS} examples "
            f"and taught tickets; they have {have})"
        )
    else:
        note += (
            f", {counted(int((far & ~unsure).sum()), 'more ticket')} far from every label's examples and taught "
            f"tickets (cosine under {threshold:.2f})"
        )
    return rows[picked], note + "."


def gather(taken: Capture) -> tuple[np.ndarray, np.ndarray, list[str], list[str | None] | None, str]:
    """What :func:`find_groups` needs (rows, their embeddings, texts, current labels with ``poorly_fitted``,
    and the sentence saying which tickets), from a :class:`Capture`, on any thread. Raises
    :class:`NotEmbedded` when the labels in use fit every ticket."""
    rows, note = chosen(taken)
    if not len(rows):
        raise NotEmbedded(
            "No ticket is labelled with low confidence or far from the labels' examples: the labels in use "
            "fit every ticket."
        )
    texts = [taken.texts[int(r)] for r in rows]
    current = None
    if taken.poorly_fitted and taken.label_ids is not None:
        current = [taken.vocab[i] if 0 <= i < len(taken.vocab) else None for i in taken.label_ids[rows].tolist()]
    return rows, taken.view[rows], texts, current, note


def group_table(
    table: TicketTable,
    groups: int | None = None,
    seed: int = 0,
    poorly_fitted: bool = False,
    low: float = LOW_CONFIDENCE,
    anchors: np.ndarray | None = None,
) -> Grouping:
    """The table's tickets grouped (:func:`find_groups`); with ``poorly_fitted`` only those the current
    labels fit badly (:func:`chosen`), each group saying how many it would take over from which
    current label."""
    rows, vectors, texts, current, note = gather(capture(table, poorly_fitted, low, anchors))
    grouping = find_groups(rows, vectors, texts, groups, seed, current)
    grouping.note = note
    return grouping


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
