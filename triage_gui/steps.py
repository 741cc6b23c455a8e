"""The command line's steps that ``classify`` and ``eval`` share, with their progress on stderr: the sentence
encoder loaded as ``--encoder`` says, the first pass, the language model's scores. ``eval`` imported them
from ``classify`` before; the work itself is the engine's (:func:`engine.learning.embed_table`,
:func:`engine.scoring.score_table`), the same the window's session runs.
"""

from __future__ import annotations

import argparse
import sys
import time

from .console import end_line, progress_line
from .engine.table import TicketTable


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
