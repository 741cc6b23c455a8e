"""Which tickets to teach next: the ones the classifier is least sure of, typical of the file, and unlike
what was already taught.

A ticket's uncertainty is one minus the margin between its two most probable labels. Picking by
uncertainty alone teaches outliers and near-duplicates (the same odd phrasing ten times), so the pick is
greedy: each next ticket maximises its uncertainty, plus :data:`DENSITY` times its mean cosine similarity
(sentence-encoder embeddings) to the file (typical tickets first), minus :data:`DIVERSITY` times its
largest similarity to any ticket already taught or suggested. Measured by simulating a lead teaching one
ticket at a time (``eval --strategy``, README): on clinc-domains and clinc-support-terse, (1, 1) reached
random teaching's accuracy after 40 tickets with 10-20; without the density term it took 30-40 or more,
and diversity 0.5 with density 1 was best on one set and worst on the other.
"""

from __future__ import annotations

import numpy as np

DIVERSITY = 1.0
DENSITY = 1.0
DENSITY_SAMPLE = 500  # rows the density is measured against
POOL = 2000  # most uncertain candidates considered (keeps a pick over 200,000 rows to milliseconds)


def margins(probs: np.ndarray) -> np.ndarray:
    """Top-1 minus top-2 probability per row (NaN rows: NaN)."""
    if probs.shape[1] < 2:
        return np.ones(len(probs), dtype=np.float32)
    top = np.sort(np.nan_to_num(probs, nan=-1.0), axis=1)[:, -2:]
    out = (top[:, 1] - top[:, 0]).astype(np.float32)
    out[np.isnan(probs[:, 0])] = np.nan
    return out


def suggest(
    probs: np.ndarray,
    candidates: np.ndarray,
    embeddings: np.ndarray | None = None,
    taught: np.ndarray | None = None,
    count: int = 10,
    diversity: float = DIVERSITY,
    density: float = DENSITY,
) -> np.ndarray:
    """Up to ``count`` rows (indices into ``probs``) to teach next, best first. ``candidates``: a boolean
    mask of rows that may be suggested (labelled, not taught); ``embeddings`` (rows x dim, normalised, NaN
    rows allowed) and the ``taught`` rows give the diversity term; without embeddings it is uncertainty alone."""
    margin = margins(probs)
    ok = candidates & ~np.isnan(margin)
    rows = np.flatnonzero(ok)
    if not len(rows):
        return np.zeros(0, dtype=np.int64)
    order = rows[np.argsort(margin[rows], kind="stable")][:POOL]
    uncertainty = 1.0 - margin[order].astype(np.float64)
    if embeddings is None or embeddings.ndim != 2 or not embeddings.shape[1] or diversity <= 0:
        return order[:count]
    pool = np.nan_to_num(np.asarray(embeddings[order], dtype=np.float32))
    if density > 0:
        every = np.flatnonzero(~np.isnan(margin))
        sample = every[np.linspace(0, len(every) - 1, min(DENSITY_SAMPLE, len(every))).astype(np.int64)]
        others = np.nan_to_num(np.asarray(embeddings[sample], dtype=np.float32))
        uncertainty = uncertainty + density * (pool @ others.T).mean(axis=1)
    nearest = np.zeros(len(order), dtype=np.float64)
    if taught is not None and len(taught):
        known = np.nan_to_num(np.asarray(embeddings[np.asarray(taught, dtype=np.int64)], dtype=np.float32))
        nearest = (pool @ known.T).max(axis=1).astype(np.float64)
    chosen: list[int] = []
    available = np.ones(len(order), dtype=bool)
    for _ in range(min(count, len(order))):
        score = np.where(available, uncertainty - diversity * np.clip(nearest, 0, None), -np.inf)
        best = int(np.argmax(score))
        chosen.append(best)
        available[best] = False
        nearest = np.maximum(nearest, pool @ pool[best])
    return order[np.array(chosen, dtype=np.int64)]
