"""The command line's steps that ``classify`` and ``eval`` share, with their progress on stderr: the tickets
read (a file, or ``-`` for standard input), the sentence encoder loaded as ``--encoder`` says, the first
pass, the language model's scores. ``eval`` imported them
from ``classify`` before; the work itself is the engine's (:func:`engine.learning.embed_table`,
:func:`engine.scoring.score_table`), the same the window's session runs.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator

from .console import end_line, progress_line
from .engine.table import TicketTable

STDIN = "standard input"


@contextlib.contextmanager
def ticket_file(path: str) -> Iterator[str]:
    """``path``, or for ``-`` standard input kept in a private temporary file named "standard input": the
    readers sniff it as they sniff a file (CSV, TSV, JSONL, a JSON array, a workbook), and their messages
    name it ("standard input has no rows."). The file is removed once read."""
    if path != "-":
        yield path
        return
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:
        raise ValueError("There is no standard input to read tickets from; give a file name instead of -.")
    if stream.isatty():
        print("reading tickets from standard input (end with Ctrl+D)", file=sys.stderr)
    folder = tempfile.mkdtemp(prefix="triage-stdin-")
    try:
        try:
            with open(os.path.join(folder, STDIN), "wb") as handle:
                shutil.copyfileobj(stream, handle)
        except OSError as exc:
            raise ValueError(f"Cannot keep standard input in a temporary file: {exc.strerror or exc}.") from None
        yield os.path.join(folder, STDIN)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def read_input(path: str, column: str | None, sheet: str | None = None) -> tuple[TicketTable, str, str]:
    """The file (a workbook's ``sheet``; ``-``: standard input) as a table (every record), the text
    column's name and the summary (:func:`engine.tickets.read_table`)."""
    from .engine.tickets import read_table

    with ticket_file(path) as name:
        return read_table(name, column, sheet)


def load_encoder_for(args: argparse.Namespace):
    """The sentence encoder ``--encoder`` names (None for 'none'), its load said on stderr."""
    spec = getattr(args, "encoder", "bundled") or "bundled"
    if spec == "none":
        return None
    from .engine.model import load_encoder

    encoder = load_encoder(spec, "cpu")
    print(f"sentence encoder {encoder.name} loaded in {encoder.load_seconds:.2f} s", file=sys.stderr)
    return encoder


def first_pass(encoder, table: TicketTable) -> None:
    """Every row through the sentence encoder, in the aligned blocks the window uses (same features)."""
    from .engine.learning import embed_table

    def progress(done: int, total: int, started: float) -> None:
        progress_line(done, total, started, " embedded (first pass)")

    if embed_table(encoder, table, progress):
        end_line()


def score_local(scorer, table: TicketTable, batch_size: int, baseline: bool, encoder=None) -> None:
    """Score every scorable row in this process (and embed it, given an ``encoder``: the first pass has
    usually embedded every row already), streaming progress to stderr."""
    from .engine.scoring import score_table

    started = time.perf_counter()
    score_table(scorer, table, batch_size, baseline, encoder, lambda done, total: progress_line(done, total, started))
    end_line()
