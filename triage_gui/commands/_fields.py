"""``classify`` with a prompt of several fields (a queue and a priority, say): every field labelled, each
in its own three columns after the input's (``<field>_label``, ``<field>_confidence``, ``<field>_source``).

Fields are independent by construction: each field is run as the one-field prompt holding it alone
(:meth:`PromptProfile.field_profile`) by ``classify.run_fields``, through ``classify.label_table``, the
steps a one-field prompt takes, on its own copy of the tickets, with its own taught tickets (saved with
the prompt for that field, and ``--train``'s column named after it; a blank cell teaches nothing for it).
What is shared is what does not depend on the prompt: the rows read once, the language model loaded
once, and the sentence encoder's features, computed once for all fields (:class:`SharedEncoder`): the
first pass of three fields costs the encoder once and three sets of heads.
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path
from typing import Any

import numpy as np

from ..engine.table import TicketTable
from ..words import counted

FIELD_COLUMNS = ("label", "confidence", "source")  # per field, named "<field>_label" and so on
# Once per row, after every field's; the language last, as in a one-field export.
SHARED_COLUMNS = ("prompt_hash", "reason", "language")
NOT_LABELLED = "not labelled yet"  # the reason a one-field export gives (engine/tickets/_export.py)


class SharedEncoder:
    """The sentence encoder, asked once per batch of texts: a batch asked again (the next field's first
    pass over the same aligned blocks, the same taught tickets) gets the array computed the first time.
    Keyed by the whole batch, not by text: the encoder's float32 output moves by ~1e-7 with the other
    texts of its batch, so only the same batch gives each field exactly the features it would compute alone."""

    def __init__(self, encoder: Any) -> None:
        self.encoder = encoder
        self.dim = encoder.dim
        self.kept: dict[tuple[str, ...], np.ndarray] = {}
        self.computed = 0  # texts the encoder itself embedded

    def encode(self, texts) -> np.ndarray:
        key = tuple(texts)
        if key not in self.kept:
            self.kept[key] = np.asarray(self.encoder.encode(list(texts)))
            self.computed += len(key)
        return self.kept[key].copy()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.encoder, name)


def load_model_once(args: argparse.Namespace):
    """The language model, loaded once for every field's scorer."""
    from ..engine.model import load_model

    def progress(fraction: float, message: str) -> None:
        print(message, file=sys.stderr)

    loaded = load_model(args.model, args.device, progress, args.threads, args.dtype)
    if loaded.repaired:
        print(loaded.repaired, file=sys.stderr)
    return loaded


def train_columns(args: argparse.Namespace, names: list[str]) -> list[bool]:
    """Which fields ``--train`` teaches: those with a column of their name; none at all is refused."""
    if not args.train:
        return [False] * len(names)
    if args.train == "-":
        raise ValueError("--train reads a labelled file; standard input (-) is only for the tickets to label.")
    from ..engine.tickets import open_tickets

    columns = open_tickets(args.train).columns
    found = [name in columns for name in names]
    if not any(found):
        raise ValueError(
            f"{Path(args.train).name} has no column named after a field ({', '.join(map(repr, names))}); "
            f"it has: {', '.join(columns)}"
        )
    for name, present in zip(names, found, strict=True):
        if not present:
            print(f"{Path(args.train).name} has no column {name!r}: it teaches nothing for that field", file=sys.stderr)
    return found


def field_cells(table: TicketTable) -> list[tuple[str, str, str]]:
    """Each row's label, confidence and source for one field, as a one-field export writes them (the same
    :func:`engine.table.decide`; "" where the export writes no label)."""
    from ..engine.table import decide

    cells = []
    for row in range(len(table)):
        d = decide(table, row)
        if d.written is None:
            cells.append(("", "", ""))
        else:
            cells.append((d.written, "" if d.confidence is None else f"{d.confidence:.4f}", d.source.shown))
    return cells


def fields_header(input_columns: list[str], names: list[str]) -> list[str]:
    """The input's columns, then each field's three and the shared ones; a name the input already uses
    gets ``_predicted`` (as a one-field export's ``label`` does)."""
    from ..engine.tickets import output_header

    return output_header(input_columns, [f"{n}_{c}" for n in names for c in FIELD_COLUMNS] + list(SHARED_COLUMNS))


def fields_rows(table: TicketTable, columns: list[list[tuple[str, str, str]]], prompt_hash: str):
    """Every input row, in input order, with each field's cells; the reason says why a row has none."""
    for row in range(len(table)):
        cells = [cell for field in columns for cell in field[row]]
        unlabelled = any(not field[row][0] for field in columns)
        reason = table.problems.get(row) or (NOT_LABELLED if unlabelled else "")
        yield [*table.row_values(row), *cells, prompt_hash, reason, table.language(row)]


def write_fields(
    out: str | None, table: TicketTable, names: list[str], columns: list[list[tuple[str, str, str]]], prompt_hash: str
) -> None:
    """The one place that writes a several-field output: CSV (standard output, or a file written
    atomically) or, under a name ending in .xlsx, a workbook with the confidences as numbers."""
    from ..engine.files import atomic_open, shown
    from ..engine.tickets import ExcelExport, output_format

    header = fields_header(table.columns, names)
    rows = fields_rows(table, columns, prompt_hash)
    try:
        if out is None:
            writer = csv.writer(sys.stdout)
            writer.writerow(header)
            writer.writerows(rows)
        elif output_format(out) == "xlsx":
            export = ExcelExport(table, prompt_hash, False)
            width = len(table.columns)
            export.header, export.rows, export.width = header, rows, width
            export.numeric = {width + 3 * i + 1 for i in range(len(names))}
            export.write(out)
        else:
            with atomic_open(out, "w", encoding="utf-8", newline="") as handle:
                writer = csv.writer(handle)
                writer.writerow(header)
                writer.writerows(rows)
    except OSError as exc:
        raise ValueError(f"Cannot write {shown(out or '-')}: {exc.strerror or exc}") from None
    labelled = [sum(1 for cell in field if cell[0]) for field in columns]
    said = ", ".join(f"{name} {n}" for name, n in zip(names, labelled, strict=True))
    print(f"{counted(len(table), 'row')} written; labelled per field: {said}", file=sys.stderr)
