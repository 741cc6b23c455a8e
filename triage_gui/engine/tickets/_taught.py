"""Taught tickets as files: read a labelled file to teach from, write the taught set as CSV (text, label).

Read with the same reader as ticket files (every dialect it knows); the text column is found the same
way, or named; label values match label names as label names are compared (``prompt.label_key``: case, Unicode form
and runs of spaces aside).
"""

from __future__ import annotations

import csv
import os
from dataclasses import dataclass, field

from ...words import counted, plural
from ..files import atomic_open
from ..prompt import MAX_TAUGHT_CHARS, Example, label_key
from ..table import BLANK, SEVERAL, joined
from ._formats import open_tickets
from ._into_table import loosely, text_columns

LABEL_COLUMN_NAMES = ("label", "labels", "queue", "team", "category", "class", "intent", "group")


@dataclass
class TaughtFile:
    items: list[tuple[str, str]] = field(default_factory=list)  # (text, label name as the prompt spells it)
    skipped: int = 0
    reason: str = ""
    label_column: str = ""
    text_column: str = ""


def read_taught(
    path: str | os.PathLike[str],
    labels: list[str],
    label_column: str | None = None,
    text_column: str | None = None,
) -> TaughtFile:
    """(text, label) pairs from a labelled ticket file; rows whose label is no label name are skipped."""
    source = open_tickets(path)
    columns = source.columns
    parts = text_columns(text_column, columns) if text_column is not None else []
    missing = next((p for p in parts if p not in columns), None)
    if missing is not None:
        raise ValueError(f"{source.path.name} has no column {missing!r}; it has: {', '.join(columns)}")
    text_index = columns.index(parts[0]) if parts else source.text_column
    if label_column is None:
        label_column = next(
            (
                c
                for name in LABEL_COLUMN_NAMES
                for c in columns
                if c.strip().lower() == name and c != columns[text_index]
            ),
            None,
        )
        if label_column is None:
            raise ValueError(f"{source.path.name}: which column holds the labels? It has: {', '.join(columns)}")
    label_column = loosely(label_column, columns) or label_column
    if label_column not in columns:
        raise ValueError(f"{source.path.name} has no column {label_column!r}; it has: {', '.join(columns)}")
    label_index = columns.index(label_column)
    by_name = {label_key(name): name for name in labels}
    text_name = SEVERAL.join(parts) if len(parts) > 1 else columns[text_index]
    out = TaughtFile(label_column=label_column, text_column=text_name)
    unknown: dict[str, int] = {}
    for ticket in source.read_all(text_index):
        value = ticket.values[label_index].strip() if label_index < len(ticket.values) else ""
        label = by_name.get(label_key(value))
        if len(parts) > 1 and ticket.problem in (None, BLANK):  # read as the input's rows are (TicketTable.set_texts)
            ticket.text = joined(ticket.values[i] if i < len(ticket.values) else "" for i in map(columns.index, parts))
            ticket.problem = None
        if ticket.problem or not ticket.text or label is None:
            out.skipped += 1
            if value and label is None:
                unknown[value] = unknown.get(value, 0) + 1
            continue
        out.items.append((ticket.text, label))
    if unknown:
        shown = ", ".join(sorted(unknown, key=lambda v: -unknown[v])[:5])
        out.reason = f"label values that are no label of the prompt, such as {shown}"
    elif out.skipped:
        out.reason = "blank ticket text or label"
    if not out.items:
        raise ValueError(
            f"{source.path.name}: no row of column {label_column!r} holds a label of the prompt "
            f"({', '.join(labels)})" + (f"; found {out.reason.split('such as ')[-1]}" if unknown else "") + "."
        )
    return out


def usable_taught(taught: list[Example], labels: list[str]) -> tuple[list[tuple[str, str]], list[str]]:
    """The taught tickets saved with a prompt that can be learned from, as (text, label as the prompt
    spells it), learned from its first :data:`MAX_TAUGHT_CHARS` (:func:`learned_text`, where the features are
    computed; the text itself stays whole, so it still finds its row in the file); and one sentence for each
    kind set aside or cut.
    A ticket whose label is no longer a label of the prompt (renamed or removed by hand) is set aside,
    not fatal: the window keeps it in the file."""
    by_name = {label_key(name): name for name in labels}
    kept: list[tuple[str, str]] = []
    unknown: dict[str, int] = {}
    cut = 0
    for example in taught:
        text, label = example.text.strip(), by_name.get(label_key(example.label))
        if not text:
            continue
        if label is None:
            unknown[example.label] = unknown.get(example.label, 0) + 1
            continue
        cut += len(text) > MAX_TAUGHT_CHARS
        kept.append((text, label))
    notes = []
    if unknown:
        shown = ", ".join(repr(v) for v in sorted(unknown, key=lambda v: -unknown[v])[:3])
        n = sum(unknown.values())
        notes.append(
            f"{counted(n, 'taught ticket')} saved with the prompt "
            f"{plural(n, 'has a label that is no longer a label', 'have labels that are no longer labels')} "
            f"of the prompt (such as {shown}); {plural(n, 'it is', 'they are')} set aside."
        )
    if cut:
        notes.append(
            f"{counted(cut, 'taught ticket')} {plural(cut, 'is', 'are')} longer than {MAX_TAUGHT_CHARS:,} characters; "
            f"{plural(cut, 'it is', 'they are')} learned from the beginning, as the model reads a ticket."
        )
    return kept, notes


def write_taught(path: str | os.PathLike[str], items: list[tuple[str, str]]) -> None:
    with atomic_open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["text", "label"])
        writer.writerows(items)
