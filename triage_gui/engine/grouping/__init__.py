"""Labels from the tickets themselves: the tickets' first-pass encoder embeddings grouped (k-means, the
number of groups chosen by the silhouette on a sample, at most 2 n^(1/4), or asked for), each group's
distinctive words and two-word phrases (c-TF-IDF), representative tickets, drafted name and description;
the tickets far from every group's centre counted as fitting none; small and loose groups marked; with a
prompt in use, the tickets its labels fit badly (low confidence, or far from every label's examples and
taught tickets); the lead's edits (rename, merge, split, drop, more or fewer); accepted groups as a prompt's
labels and examples.

Imports :mod:`..table` and :mod:`..prompt`; never the model, scoring or learning.
"""

from __future__ import annotations

from ._choose import candidates, choose_k, prepare
from ._from_table import (
    FAR_QUANTILE,
    MIN_ANCHORS,
    Capture,
    NotEmbedded,
    as_profile,
    capture,
    chosen,
    far_threshold,
    gather,
    group_table,
    nearest_anchor,
)
from ._groups import LOOSE, MAX_NONE, SMALL, Group, Grouping, find_groups
from ._terms import Terms

__all__ = [
    "FAR_QUANTILE",
    "LOOSE",
    "MAX_NONE",
    "MIN_ANCHORS",
    "SMALL",
    "Capture",
    "Group",
    "Grouping",
    "NotEmbedded",
    "Terms",
    "as_profile",
    "candidates",
    "capture",
    "choose_k",
    "chosen",
    "far_threshold",
    "find_groups",
    "gather",
    "group_table",
    "nearest_anchor",
    "prepare",
]
