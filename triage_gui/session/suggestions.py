"""*Suggest labels*: the loaded tickets grouped by meaning (:mod:`engine.grouping`) on the engine thread.

The table is read where its owner runs (the loop's thread: the rows, their first-pass embeddings, texts and
current labels: 40 ms for 20,000 tickets); the grouping itself (3.6 s for 20,000 tickets on this 2-core
machine) and every edit of it that runs k-means (a split, more or fewer groups) run on the engine thread, so
the window never waits on them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..defaults import LOW_CONFIDENCE

if TYPE_CHECKING:
    from ..engine.grouping import Grouping
    from ..engine.table import TicketTable
    from .workers import WorkerThread


async def suggest_groups(
    table: TicketTable, thread: WorkerThread, groups: int | None = None, poorly_fitted: bool = False
) -> Grouping:
    """The table's tickets grouped; with ``poorly_fitted`` those labelled below ``LOW_CONFIDENCE``, each
    group counting the tickets it would take over from each current label. Raises
    :class:`engine.grouping.NotEmbedded` (one sentence) when there is nothing to group yet."""
    from ..engine.grouping import find_groups, snapshot

    rows, vectors, texts, current = snapshot(table, poorly_fitted, LOW_CONFIDENCE)
    return await thread.run(find_groups, rows, vectors, texts, groups, 0, current)


async def edit_groups(thread: WorkerThread, edit: Callable[..., Grouping], *args: Any) -> Grouping:
    """One edit of a grouping (``grouping.split``, ``grouping.regrouped``…) on the engine thread."""
    return await thread.run(edit, *args)
