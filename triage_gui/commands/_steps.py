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
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Iterator

from ..engine.table import TicketTable
from ._console import end_line, progress_line, status_line

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
        with _terminate_as_exit():  # SIGTERM while standard input stalls: the copy is removed all the same
            try:
                with open(os.path.join(folder, STDIN), "wb") as handle:
                    _copy_bounded(stream, handle)
            except OSError as exc:
                raise ValueError(f"Cannot keep standard input in a temporary file: {exc.strerror or exc}.") from None
            yield os.path.join(folder, STDIN)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


# The most standard input ``classify -`` keeps: ``yes … | classify -`` filled 2.2 GB of the temporary folder
# in 3 s. A bigger backlog is a file, read in place with no copy.
STDIN_LIMIT = 1 << 30
_CHUNK = 1 << 20
PROGRESS_BYTES = 64 << 20  # a progress line per this much standard input copied


def _copy_bounded(stream, handle) -> None:
    """Copy standard input up to STDIN_LIMIT, a progress line every PROGRESS_BYTES; past it, one sentence."""
    copied, started = 0, time.perf_counter()
    while chunk := stream.read(_CHUNK):
        copied += len(chunk)
        if copied > STDIN_LIMIT:
            end_line()
            raise ValueError(
                f"Standard input holds more than {STDIN_LIMIT / 2**30:g} GB of tickets; save them to a file and "
                "give its name instead of -."
            )
        handle.write(chunk)
        if copied % PROGRESS_BYTES < len(chunk):
            status_line(f"{copied >> 20:,} MB read from standard input ({time.perf_counter() - started:.0f} s)")
    end_line()


@contextlib.contextmanager
def _terminate_as_exit() -> Iterator[None]:
    """SIGTERM raises SystemExit (143) here, so the ``finally`` above removes the copy; outside the main
    thread (no signal handlers there) nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum, frame) -> None:
        raise SystemExit(128 + signum)

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def read_input(path: str, column: str | None, sheet: str | None = None) -> tuple[TicketTable, str, str]:
    """The file (a workbook's ``sheet``; ``-``: standard input) as a table (every record), the text
    column's name and the summary (:func:`engine.tickets.read_table`)."""
    from ..engine.tickets import read_table

    started = time.perf_counter()
    shown = [started]

    def progress(rows: int) -> None:  # a line once a second, and only for a file that takes a while
        now = time.perf_counter()
        if now - shown[0] >= 1.0:
            shown[0] = now
            status_line(f"{rows:,} rows read ({now - started:.0f} s)")

    with ticket_file(path) as name:
        try:
            return read_table(name, column, sheet, progress)
        finally:
            end_line()


def load_encoder_for(args: argparse.Namespace, table: TicketTable | None = None):
    """The sentence encoder ``--encoder`` names (None for 'none'), its load said on stderr; given the tickets'
    ``table``, a line more where they are mostly not English and the encoder is MiniLM (:func:`multilingual_hint`)."""
    spec = getattr(args, "encoder", "bundled") or "bundled"
    if spec == "none":
        return None
    from ..engine.model import load_encoder

    encoder = load_encoder(spec, "cpu")
    print(f"sentence encoder {encoder.name} loaded in {encoder.load_seconds:.2f} s", file=sys.stderr)
    if table is not None and (hint := multilingual_hint(spec, table)):
        print(hint, file=sys.stderr)
    return encoder


def multilingual_hint(spec: str, table: TicketTable) -> str:
    """The window's offer of the multilingual encoder, on the command line: "" unless the encoder is MiniLM
    (English) and a quarter or more of the tickets of a known language are not English
    (:func:`engine.table.not_english`). On the six-language dev set (docs/performance.md) MiniLM labelled
    33.4 % of the German tickets right untaught, multilingual-e5-small 71.3 %;
    a hint, not a switch, as in the window: a script's encoder (and its labels) does not change with what a file
    holds, and e5-small embeds at about a third of MiniLM's speed."""
    from ..engine.model import E5_SMALL, MINILM, canonical_encoder
    from ..engine.table import not_english

    said = not_english(table.language_counts())
    if canonical_encoder(spec) != MINILM or not said:
        return ""
    return f"{said}: --encoder {E5_SMALL} (multilingual-e5-small, bundled) labels them better than the English MiniLM"


def first_pass(encoder, table: TicketTable) -> None:
    """Every row through the sentence encoder, in the aligned blocks the window uses (same features)."""
    from ..engine.learning import embed_table

    def progress(done: int, total: int, started: float) -> None:
        progress_line(done, total, started, " embedded (first pass)")

    if embed_table(encoder, table, progress):
        end_line()


def score_local(scorer, table: TicketTable, batch_size: int, baseline: bool, encoder=None) -> None:
    """Score every scorable row in this process (and embed it, given an ``encoder``: the first pass has
    usually embedded every row already), streaming progress to stderr."""
    from ..engine.scoring import score_table

    started = time.perf_counter()
    score_table(scorer, table, batch_size, baseline, encoder, lambda done, total: progress_line(done, total, started))
    end_line()
