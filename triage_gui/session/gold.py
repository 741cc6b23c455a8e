"""Gold labels: a column of the loaded tickets measured against, with a mapping where its values are not
label names, and the honest report (taught tickets count with their out-of-fold label).

Also the row masks the ticket table filters on, computed over all rows at once with numpy.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from ..engine.scoring import GoldReport, far_apart, report_from_ids, steps_apart
from ..engine.table import NONE, TicketTable
from ..words import counted, plural

IGNORE = ""  # mapped to this: the value is not counted
Far = tuple[str, str, str]  # an ordered field's label, the taught or gold one two steps from it, "taught"/"gold"
FAR_MARK = "‼ "  # the ticket table's mark before a label two or more steps from its taught or gold one


def normal(value: str) -> str:
    return value.strip().casefold()


@dataclass
class GoldColumn:
    """The column, and value -> label for values that are not label names (IGNORE: not counted)."""

    column: str
    mapping: dict[str, str] = field(default_factory=dict)
    _ids: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64), repr=False, compare=False)
    _labels: list[str] = field(default_factory=list, repr=False, compare=False)

    def label_for(self, value: str, labels: list[str]) -> str | None:
        key = normal(value)
        if not key:
            return None
        if key in self.mapping:
            return self.mapping[key] or None
        by_name = {normal(name): name for name in labels}
        return by_name.get(key)

    def renamed(self, labels: Mapping[str, str]) -> dict[str, str]:
        """The value mapping once ``labels`` (old name -> new) are renamed: the old names' values too (W15)."""
        mapping = {value: labels.get(label, label) for value, label in self.mapping.items()}
        return {**{normal(old): new for old, new in labels.items()}, **mapping}

    def ids(self, table: TicketTable) -> np.ndarray:
        """Each row's gold label as an index into the current labels; -1 where none or ignored.
        Rows already mapped are kept (a refresh during a 200,000-row stream maps only the new ones)."""
        labels = table.labels
        if labels != self._labels or len(self._ids) > len(table):
            self._ids, self._labels = np.zeros(0, dtype=np.int64), list(labels)
        start = len(self._ids)
        if start < len(table):
            index = {name: i for i, name in enumerate(labels)}
            cache: dict[str, int] = {}
            new = np.full(len(table) - start, -1, dtype=np.int64)
            for offset, row in enumerate(range(start, len(table))):
                value = table.value(row, self.column)
                if value not in cache:
                    label = self.label_for(value, labels)
                    cache[value] = -1 if label is None else index.get(label, -1)
                new[offset] = cache[value]
            self._ids = np.concatenate([self._ids, new])
        return self._ids


def gold_teaching(
    table: TicketTable, gold: GoldColumn, taught: Mapping[str, str], labels: list[str] | None = None
) -> tuple[dict[int, str], int, int]:
    """What learning from the gold column would teach: row -> label for every loaded row whose gold value
    maps to a label (of ``labels``: a further field's; default the table's), and how many of those rows are
    taught that label already and how many a different one now (the question before says both)."""
    found: dict[int, str] = {}
    names = table.labels if labels is None else labels
    for row in range(len(table)):
        if row not in table.problems:
            label = gold.label_for(table.value(row, gold.column), names)
            if label is not None:
                found[row] = label
    now = {row: taught.get(table.texts[row].strip()) for row in found}
    same = sum(1 for row, label in found.items() if now[row] == label)
    differ = sum(1 for row, label in found.items() if now[row] not in (None, label))
    return found, same, differ


def value_counts(table: TicketTable, column: str, limit: int = 200) -> list[tuple[str, int]]:
    """Distinct non-empty values of a column, most frequent first (for the mapping dialog)."""
    counts: dict[str, int] = {}
    for row in range(len(table)):
        value = table.value(row, column).strip()
        if value:
            counts[value] = counts.get(value, 0) + 1
    return sorted(counts.items(), key=lambda kv: -kv[1])[:limit]


def match_share(table: TicketTable, column: str, labels: list[str] | None = None) -> tuple[int, int]:
    """(rows whose value is a label name, rows with a value); the table's labels unless ``labels`` (a further
    field's) are given."""
    names = {normal(n) for n in (table.labels if labels is None else labels)}
    matched = total = 0
    for row in range(min(len(table), 5000)):
        value = normal(table.value(row, column))
        if value:
            total += 1
            matched += value in names
    return matched, total


def evaluated_ids(table: TicketTable) -> np.ndarray:
    """Per row, the label index accuracy is measured on (-1: none): out-of-fold for taught rows."""
    index = {name: i for i, name in enumerate(table.labels)}
    out = table.current_index(table.label_ids())
    out[~table.current_mask()] = -1
    for row in table.taught_rows():
        label = table.evaluated_label(int(row))
        out[row] = index.get(label, -1) if label is not None else -1
    return out


def gold_report(table: TicketTable, gold: GoldColumn) -> GoldReport:
    return report_from_ids(table.labels, gold.ids(table), evaluated_ids(table))


def two_steps(table: TicketTable, gold: GoldColumn) -> int:
    """An ordered field's tickets counted in :func:`gold_report` whose label is two or more steps from their
    gold label (``engine.scoring.steps_apart``, the rule ``eval`` counts with)."""
    return steps_apart(gold.ids(table), evaluated_ids(table))


def far_from(table: TicketTable, row: int, gold: GoldColumn | None) -> Far | None:
    """For a row of an ordered field: (its label, the label it is far from, "taught" or "gold") where they are
    two or more steps apart (``engine.scoring.far_apart``), else None. A taught row is judged as accuracy
    judges it (:meth:`TicketTable.evaluated_label`: the label a model not trained on it gives) against what
    it was taught; any other row by its label against its gold value."""
    labels = table.labels
    taught = table.taught_label(row)
    own: str | None
    other: str | None
    if taught is not None:
        own, other, kind = table.evaluated_label(row), taught, "taught"
    else:
        own = table.label(row) if table.current(row) else None
        other = None if gold is None else gold.label_for(table.value(row, gold.column), labels)
        kind = "gold"
    if own is None or other is None or own not in labels or other not in labels:
        return None
    far = far_apart(np.array([labels.index(other)]), np.array([labels.index(own)]))
    return (own, other, kind) if far[0] else None


def far_words(far: Far | None) -> list[str]:
    """The one sentence on a label two or more steps from its taught or gold one (:func:`far_from`; []: none)."""
    if far is None:
        return []
    label, other, kind = far
    if kind == "taught":
        # the probabilities a tooltip lists under it are the classifier's trained with it, not the label named here
        said = f"taught {other}, the classifier not trained on it gives {label} (the figures below: trained with it)"
        return [f"{FAR_MARK}Two or more steps apart: {said}."]
    return [f"{FAR_MARK}Two or more steps apart: labelled {label}, gold {other}."]


def not_counted(table: TicketTable, gold: GoldColumn) -> str:
    """Why rows of the file are not in the accuracy against gold, in one sentence ("" when every row is): the
    count read 1,999/2,000 after All labelled with no word why. Rows without ticket text (never labelled), rows
    without a gold label (empty, or a value that maps to no label), taught tickets with no label from a model
    that did not see them yet, and rows not labelled yet."""
    n = len(table)
    ids, judged = gold.ids(table)[:n], evaluated_ids(table)[:n]
    blank = np.zeros(n, dtype=bool)
    blank[[r for r in table.problems if r < n]] = True
    no_gold = (ids < 0) & ~blank
    waiting = (ids >= 0) & ~blank & (judged < 0)
    taught = waiting & table.taught_mask()
    parts = []
    if k := int(blank.sum()):
        parts.append(f"{counted(k, 'row')} without ticket text")
    if k := int(no_gold.sum()):
        parts.append(f"{counted(k, 'ticket')} without a gold label")
    if k := int(taught.sum()):
        unseen = f"a model that did not see {plural(k, 'it', 'them')}"
        parts.append(f"{counted(k, 'taught ticket')} not yet judged by {unseen}")
    if k := int((waiting & ~taught).sum()):
        parts.append(f"{counted(k, 'ticket')} not labelled yet")
    return f"Not counted: {', '.join(parts)}." if parts else ""


@dataclass
class Filters:
    """What the ticket table shows; None/False/"" switch a filter off."""

    label: str | None = None
    below_confidence: float | None = None
    disagreements: bool = False
    wrong: bool = False  # against gold
    search: str = ""
    cell: tuple[int, int] | None = None  # (gold, predicted) label indices from the confusion matrix
    cell_field: int = 0  # whose confusion matrix the cell is of (0: the first field's)
    wrong_field: int = 0  # whose labels *Wrong against gold* judges (0: the first field's)
    taught: bool = False
    only: tuple[int, ...] | None = None  # just these rows ("Teach next", "To check")
    language: str | None = None  # a detected language code ("" : tickets whose language is unknown)

    @property
    def active(self) -> bool:
        return bool(
            self.label or self.below_confidence is not None or self.disagreements or self.wrong or self.search
        ) or bool(self.cell is not None or self.taught or self.only is not None or self.language is not None)


def row_mask(
    table: TicketTable,
    filters: Filters,
    gold: GoldColumn | None,
    field: tuple[TicketTable | None, GoldColumn | None] = (None, None),
    wrong: tuple[TicketTable | None, GoldColumn | None] = (None, None),
) -> np.ndarray | None:
    """Rows to show, or None for all of them; ``field``: the table and gold column of the field whose
    confusion-matrix cell :attr:`Filters.cell` is, where that is not the first field's; ``wrong``: likewise of the
    field :attr:`Filters.wrong` judges (:attr:`Filters.wrong_field`)."""
    if not filters.active:
        return None
    n = len(table)
    mask = np.ones(n, dtype=bool)
    ids = table.label_ids()
    if filters.label is not None:
        mask &= ids == (table.vocab_id(filters.label) if filters.label in table.label_vocab else NONE - 1)
    if filters.below_confidence is not None:
        mask &= table.low_confidence_mask(filters.below_confidence)
    if filters.disagreements:
        bad = np.zeros(n, dtype=bool)
        for row in table.baseline:
            bad[row] = table.agree(row) is False
        mask &= bad
    if filters.taught:
        mask &= table.taught_mask()
    if filters.language is not None:
        mask &= table.language_mask(filters.language)
    if filters.only is not None:
        keep = np.zeros(n, dtype=bool)
        rows = np.array([r for r in filters.only if 0 <= r < n], dtype=np.int64)
        keep[rows] = True
        mask &= keep
    if filters.wrong and (judged := _judged(n, *(wrong if filters.wrong_field else (table, gold)))) is not None:
        g, p = judged
        mask &= (g >= 0) & (p >= 0) & (g != p)
    cell = filters.cell
    if cell is not None and (judged := _judged(n, *(field if filters.cell_field else (table, gold)))) is not None:
        g, p = judged
        mask &= (g == cell[0]) & (p == cell[1])
    if filters.search:
        needle = filters.search.casefold()
        mask &= np.fromiter((needle in t.casefold() for t in table.texts), dtype=bool, count=n)
    return mask


def _judged(n: int, of: TicketTable | None, gold: GoldColumn | None) -> tuple[np.ndarray, np.ndarray] | None:
    """A field's gold and judged label ids over the ``n`` rows of the ticket table (-1 past the rows of a further
    field's table, which may cover the first rows only); None without the table or a gold column."""
    if of is None or gold is None:
        return None
    k = min(n, len(of))
    g, p = np.full(n, -1, dtype=np.int64), np.full(n, -1, dtype=np.int64)
    g[:k], p[:k] = gold.ids(of)[:k], evaluated_ids(of)[:k]
    return g, p
