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
from typing import Any

import numpy as np

from ...defaults import LOW_CONFIDENCE
from ...words import counted
from ..prompt import Example, Label, PromptProfile, default_profile
from ..table import TicketTable
from ._groups import Grouping, distinct_rows, find_groups

FAR_QUANTILE = 0.05  # see the module docstring
MIN_ANCHORS = 20  # fewer examples and taught tickets: "far" is not measured (module docstring)
EXAMPLES_PER_GROUP = 2  # representative tickets offered as examples: the prompt stays short to score
INSTRUCTION = "Classify the support ticket into exactly one of the labels below."


class NotEmbedded(ValueError):
    """The tickets have no first-pass embeddings yet (no encoder, or the first pass still running)."""


def _unit(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float32).reshape(len(vectors), -1)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms > 0, norms, 1)


def far_threshold(anchors: np.ndarray | None) -> float | None:
    """The cosine under which a ticket is far from every anchor (see the module docstring), or None when
    there are fewer than ``MIN_ANCHORS`` distinct anchors."""
    if anchors is None or len(anchors) < MIN_ANCHORS:
        return None
    unit = _unit(anchors)
    unit = unit[distinct_rows(unit)]  # a text taught twice is one anchor
    if len(unit) < MIN_ANCHORS:
        return None
    similar = unit @ unit.T
    np.fill_diagonal(similar, -np.inf)
    return float(np.quantile(similar.max(axis=1), FAR_QUANTILE))


def nearest_anchor(vectors: np.ndarray, anchors: np.ndarray) -> np.ndarray:
    """Each vector's cosine to its nearest anchor (in blocks: never a 200,000 x anchors matrix at once)."""
    unit, ends = _unit(anchors), _unit(vectors)
    out = np.empty(len(ends), dtype=np.float32)
    for start in range(0, len(ends), 8192):
        out[start : start + 8192] = (ends[start : start + 8192] @ unit.T).max(axis=1)
    return out


def grouped_rows(
    table: TicketTable, poorly_fitted: bool = False, low: float = LOW_CONFIDENCE, anchors: np.ndarray | None = None
) -> tuple[np.ndarray, str]:
    """The table rows to group, and a sentence saying which (or which are not yet): every embedded one, or
    with ``poorly_fitted`` those the labels in use fit badly: labelled below ``low`` confidence, or far from
    every one of the ``anchors`` (the embeddings of the labels' examples and taught tickets; module
    docstring)."""
    rows = np.flatnonzero(table.embedded_mask())
    if not poorly_fitted:
        waiting = len(table.unembedded())
        if not waiting or not len(rows):
            return rows, ""
        return rows, (  # in the walkthrough a lead asked early: 896 of 1,000 grouped, and nothing said why
            f"{counted(waiting, 'ticket')} the first pass has not read yet {'is' if waiting == 1 else 'are'} not "
            "grouped: suggest again once it has read them."
        )
    unsure = np.array([(c := table.confidence(r)) is None or c < low for r in rows.tolist()], dtype=bool)
    threshold = far_threshold(anchors)
    far = np.zeros(len(rows), dtype=bool)
    if threshold is not None and anchors is not None and len(rows):
        far = nearest_anchor(table.embeddings.get(rows), anchors) < threshold
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


def snapshot(
    table: TicketTable, poorly_fitted: bool = False, low: float = LOW_CONFIDENCE, anchors: np.ndarray | None = None
) -> tuple[np.ndarray, Any, list[str], list[str | None] | None, str]:
    """What :func:`find_groups` needs of the table (rows, a view of the embeddings, texts, current labels
    with ``poorly_fitted``, and the sentence saying which tickets), read where the table's owner runs so the
    grouping itself can run on another thread. The view is read there (``view[rows]``: its blocks are never
    rewritten, as the learning thread's row sources): dequantising 20,000 x 384 values took 30-600 ms on the
    loaded 2-core machine, a stall where the window waits."""
    rows, note = grouped_rows(table, poorly_fitted, low, anchors)
    if not len(rows):
        if poorly_fitted:
            raise NotEmbedded(
                "No ticket is labelled with low confidence or far from the labels' examples: the labels in use "
                "fit every ticket."
            )
        raise NotEmbedded("The tickets have no first-pass embeddings yet; wait for the first pass to finish.")
    texts = [table.texts[int(r)] for r in rows]
    current = [table.label(int(r)) for r in rows] if poorly_fitted else None
    return rows, table.embeddings.view(len(table)), texts, current, note


def group_table(
    table: TicketTable,
    groups: int | None = None,
    seed: int = 0,
    poorly_fitted: bool = False,
    low: float = LOW_CONFIDENCE,
    anchors: np.ndarray | None = None,
) -> Grouping:
    """The table's tickets grouped (:func:`find_groups`); with ``poorly_fitted`` only those the current
    labels fit badly (:func:`grouped_rows`), each group saying how many it would take over from which
    current label."""
    rows, view, texts, current, note = snapshot(table, poorly_fitted, low, anchors)
    grouping = find_groups(rows, view[rows], texts, groups, seed, current)
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
