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
import sys
from pathlib import Path
from typing import Any

import numpy as np

from ..engine.table import TicketTable
from ..words import counted


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


def train_columns(args: argparse.Namespace, names: list[str]) -> list[str | None]:
    """Which column of ``--train`` teaches each field: the one of its name, else the one of its name in another
    case or with spaces around it ("Priority" for the field "priority": a help desk's export names its columns
    its own way, and a file that taught nothing was refused); None: that field learns from nothing there. A file
    with no field's column is refused."""
    if not args.train:
        return [None] * len(names)
    if args.train == "-":
        raise ValueError("--train reads a labelled file; standard input (-) is only for the tickets to label.")
    from ..engine.tickets import NoTickets, loosely, open_tickets

    try:
        columns = open_tickets(args.train).columns
    except NoTickets as exc:  # a header alone: no field is taught (a checker's K = 0 as a file)
        print(f"{exc} It teaches nothing.", file=sys.stderr)
        return [None] * len(names)
    found = [loosely(name, columns) for name in names]
    if not any(found):
        raise ValueError(
            f"{Path(args.train).name} has no column named after a field ({', '.join(map(repr, names))}); "
            f"it has: {', '.join(columns)}"
        )
    for name, column in zip(names, found, strict=True):
        if column is None:
            print(f"{Path(args.train).name} has no column {name!r}: it teaches nothing for that field", file=sys.stderr)
        elif column != name:
            print(f"{Path(args.train).name}: the column {column!r} teaches the field {name!r}", file=sys.stderr)
    return found


def write_fields(
    out: str | None, table: TicketTable, names: list[str], columns: list[list[tuple[str, str, str]]], prompt_hash: str
) -> None:
    """The one place that writes a several-field output: CSV (standard output, or a file written
    atomically) or, under a name ending in .xlsx, a workbook with the confidences as numbers
    (:mod:`engine.tickets`, the window's export too)."""
    from ..engine.files import shown
    from ..engine.tickets import labelled_per_field, write_field_results, write_fields_csv

    try:
        if out is None:
            write_fields_csv(sys.stdout, table, names, columns, prompt_hash)
        else:
            write_field_results(out, table, names, columns, prompt_hash)
    except OSError as exc:
        raise ValueError(f"Cannot write {shown(out or '-')}: {exc.strerror or exc}") from None
    labelled = labelled_per_field(columns)
    said = ", ".join(f"{name} {n}" for name, n in zip(names, labelled, strict=True))
    print(f"{counted(len(table), 'row')} written; labelled per field: {said}", file=sys.stderr)
