"""Read records as table rows: the one way a ticket file (or pasted text) becomes rows of the table.

The window's session streams a file in batches onto the engine's table, ``classify`` and ``eval`` read a
whole file before scoring; both wrote the record-to-row step themselves, and ``eval`` imported ``classify``
for it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from ..table import SEVERAL, NewRow, TicketTable, fill_languages
from ._formats import open_tickets
from ._reader import Ticket


def rows_of(columns: Sequence[str], tickets: Sequence[Ticket], origin: str) -> list[NewRow]:
    """Every record as a row, problem records included (they come back unlabelled with their reason)."""
    return [NewRow(dict(zip(columns, t.values)), t.text, origin, t.problem) for t in tickets]


def read_table(
    path: str | Path, column: str | None, sheet: str | None = None, progress: Callable[[int], None] | None = None
) -> tuple[TicketTable, str, str]:
    """The file (a workbook's ``sheet``) as a table (every record, its language detected), the text column's
    name and the summary; ``progress(rows read)`` after every 4,096 records (a 2 GB CSV read for minutes
    without a word)."""
    source = open_tickets(path, sheet)
    name = Path(path).name
    if sheet is not None and not source.sheet:  # --sheet on a CSV: said, not ignored (the wrong file?)
        raise ValueError(f"{name} is not an Excel workbook, so it has no sheet {sheet!r}; leave --sheet out")
    index = source.text_column
    parts: list[str] = []
    if column is not None:  # "subject,body": several columns read together (one line each)
        parts = text_columns(column, source.columns)
        twice = next((p for i, p in enumerate(parts) if p in parts[:i]), None)
        if twice is not None:  # "a,a" read the ticket twice over, and the heads saw every word doubled
            raise ValueError(f"--column names {twice!r} twice; name each column once")
        missing = [p for p in parts if p not in source.columns]
        if missing:
            raise ValueError(f"no column {missing[0]!r}; the file has: {', '.join(source.columns)}")
        index = source.columns.index(parts[0])
    table = TicketTable()
    for batch in source.batches(4096, index):
        table.add(rows_of(source.columns, batch, name))
        if len(parts) <= 1:  # each ticket's language as it is read (~0.3 ms a ticket: the progress line goes on)
            fill_languages(table)
        if progress is not None:
            progress(source.rows_read)
    chosen = source.columns[index]
    if len(parts) > 1:
        chosen = SEVERAL.join(parts)
        table.set_texts(chosen)
        fill_languages(table)
    if not table.count_scorable():
        raise ValueError(f"{name} holds no tickets ({source.summary()})")
    return table, chosen, source.summary()


def text_columns(column: str, columns: list[str]) -> list[str]:
    """The columns ``--column`` names: one column (even one with a comma in its name), or "subject,body" read
    together, each part as :func:`columns_part` finds it (the tickets' file and a ``--train`` file alike)."""
    return [column] if column in columns else [columns_part(p, columns) for p in column.split(",")]


def columns_part(part: str, columns: list[str]) -> str:
    """One name of ``--column a,b``: as given, or the one column it names but for case and the spaces around
    it ("subject, body" was refused as "no column ' body'"; ``--column text`` with a train file's ``Text``);
    as given when none or several match, for the caller's "no column" message."""
    return loosely(part, columns) or part


def loosely(name: str, columns: list[str]) -> str | None:
    """The column named ``name``, else the one whose name is ``name`` but for case and surrounding spaces (None:
    none, or several)."""
    if name in columns:
        return name
    key = name.strip().casefold()
    alike = [c for c in columns if c.strip().casefold() == key]
    return alike[0] if len(alike) == 1 else None
