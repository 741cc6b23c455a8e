"""Write the tickets of a prompt with several fields (a queue and a priority): every input row, in input order,
with each field's three columns after the input's (``<field>_label``, ``<field>_confidence``,
``<field>_source``, as :func:`decide` gives them for that field's table), then ``prompt_hash``, ``reason``
and ``language`` once per row. The one writer of ``classify`` and of the window's export (a one-field
prompt's export is :mod:`_export`'s, unchanged)."""

from __future__ import annotations

import csv
import os
from collections.abc import Iterator
from typing import IO

from ..files import atomic_open
from ..table import TicketTable, decide
from ._export import NOT_LABELLED, ExcelExport, output_format, output_header
from ._xlsx_writer import excel_problem

FIELD_COLUMNS = ("label", "confidence", "source")  # per field, named "<field>_label" and so on
# Once per row, after every field's; the language last, as in a one-field export.
SHARED_COLUMNS = ("prompt_hash", "reason", "language")
Cells = list[tuple[str, str, str]]


def field_cells(table: TicketTable | None, rows: int | None = None) -> Cells:
    """Each row's label, confidence and source for one field, as a one-field export writes them (the same
    :func:`decide`; "" where the export writes no label, and for rows past the field's table: ``rows``)."""
    n = len(table) if table is not None else 0
    cells = []
    for row in range(n if rows is None else rows):
        d = decide(table, row) if table is not None and row < n else None
        if d is None or d.written is None:
            cells.append(("", "", ""))
        else:
            cells.append((d.written, "" if d.confidence is None else f"{d.confidence:.4f}", d.source.shown))
    return cells


def fields_header(input_columns: list[str], names: list[str]) -> list[str]:
    """The input's columns, then each field's three and the shared ones; a name the input already uses
    gets ``_predicted`` (as a one-field export's ``label`` does)."""
    return output_header(input_columns, [f"{n}_{c}" for n in names for c in FIELD_COLUMNS] + list(SHARED_COLUMNS))


def fields_rows(table: TicketTable, columns: list[Cells], prompt_hash: str) -> Iterator[list[str]]:
    """Every input row, in input order, with each field's cells; the reason says why a row has none."""
    for row in range(len(table)):
        cells = [cell for field in columns for cell in field[row]]
        unlabelled = any(not field[row][0] for field in columns)
        reason = table.problems.get(row) or (NOT_LABELLED if unlabelled else "")
        yield [*table.row_values(row), *cells, prompt_hash, reason, table.language(row)]


def write_fields_csv(
    handle: IO[str], table: TicketTable, names: list[str], columns: list[Cells], prompt_hash: str
) -> None:
    writer = csv.writer(handle)
    writer.writerow(fields_header(table.columns, names))
    writer.writerows(fields_rows(table, columns, prompt_hash))


def check_fields_fit_excel(table: TicketTable, names: list[str]) -> None:
    """Refuse, in one sentence, a sheet too wide for Excel with these fields' columns (three a field and three
    shared, against a one-field export's eight: :func:`check_fits_excel` checks the rows and cells)."""
    problem = excel_problem(fields_header(table.columns, names), len(table), [])
    if problem:
        raise ValueError(f"Cannot write an Excel workbook: {problem}; write the results as CSV instead.")


def fields_workbook(
    table: TicketTable, names: list[str], columns: list[Cells], prompt_hash: str, sheet: str | None = None
) -> ExcelExport:
    """The rows as one sheet, the confidences as numbers (call :meth:`ExcelExport.snapshot` to write it on
    another thread)."""
    check_fields_fit_excel(table, names)
    export = ExcelExport(table, prompt_hash, False, sheet)
    width = len(table.columns)
    export.header, export.rows, export.width = (
        fields_header(table.columns, names),
        fields_rows(table, columns, prompt_hash),
        width,
    )
    export.numeric = {width + 3 * i + 1 for i in range(len(names))}
    return export


def write_field_results(
    path: str | os.PathLike[str], table: TicketTable, names: list[str], columns: list[Cells], prompt_hash: str
) -> list[int]:
    """CSV written atomically (a workbook where the name ends in .xlsx); returns the rows labelled per field."""
    if output_format(path) == "xlsx":
        fields_workbook(table, names, columns, prompt_hash).write(path)
    else:
        with atomic_open(path, "w", encoding="utf-8", newline="") as handle:
            write_fields_csv(handle, table, names, columns, prompt_hash)
    return labelled_per_field(columns)


def labelled_per_field(columns: list[Cells]) -> list[int]:
    return [sum(1 for cell in field if cell[0]) for field in columns]
