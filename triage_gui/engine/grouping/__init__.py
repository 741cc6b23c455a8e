"""Labels from the tickets themselves: the tickets' first-pass encoder embeddings grouped (k-means, the
number of groups chosen by the silhouette on a sample, or asked for), each group's distinctive words and
two-word phrases (c-TF-IDF), representative tickets, drafted name and description; the tickets far from
every group's centre counted as fitting none; the lead's edits (rename, merge, split, drop, more or fewer);
accepted groups as a prompt's labels and examples.

Imports :mod:`..table` and :mod:`..prompt`; never the model, scoring or learning.
"""

from __future__ import annotations

from ._choose import candidates, choose_k
from ._from_table import NotEmbedded, as_profile, group_table, grouped_rows, snapshot
from ._groups import MAX_NONE, Group, Grouping, find_groups
from ._terms import Terms

__all__ = [
    "MAX_NONE",
    "Group",
    "Grouping",
    "NotEmbedded",
    "Terms",
    "as_profile",
    "candidates",
    "choose_k",
    "find_groups",
    "group_table",
    "grouped_rows",
    "snapshot",
]
