"""The first pass: every ticket embedded by the sentence encoder before the language model reads any.

The encoder costs ~1.7 ms a ticket on two cores against the language model's ~21 ms batched, and the
classifier's prompt-free heads (encoder, words, characters) label a ticket from its embedding and its text
alone, so every loaded ticket has a learned label within seconds; the language model then refines the rows
as its scores arrive. Rows are embedded in blocks aligned to the row index (rows 0-63, 64-127, …): the
encoder's float32 output moves by ~1e-7 with the other texts of its batch, so the window, ``classify`` and
``classify --fast`` form the same batches and give every row the same features and the same label.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import numpy as np

from ..model import EncoderLike, encoder_key
from ..table import TicketTable

EMBED_BLOCK = 64  # rows a batch: the encoder's best batch size on two cores (2.2 ms a ticket against 2.4-2.7)


def first_block(rows: np.ndarray, block: int = EMBED_BLOCK) -> np.ndarray:
    """The rows (ascending) that share the aligned block of the first of them."""
    if not len(rows):
        return rows
    end = (int(rows[0]) // block + 1) * block
    return rows[: int(np.searchsorted(rows, end))]


def blocks(rows: np.ndarray, block: int = EMBED_BLOCK) -> Iterator[np.ndarray]:
    """The rows (ascending) grouped by aligned block, in order."""
    while len(rows):
        chunk = first_block(rows, block)
        yield chunk
        rows = rows[len(chunk) :]


def embed_table(
    encoder: EncoderLike, table: TicketTable, progress: Callable[[int, int, float], None] | None = None
) -> int:
    """Embed every row that lacks the encoder's features, block by block; returns how many were embedded."""
    key = encoder_key(encoder)
    table.use_encoder(key)  # rows another encoder embedded are embedded again, never mixed
    todo = table.unembedded()
    started, done = time.perf_counter(), 0
    for chunk in blocks(todo):
        table.apply_embeddings(chunk.tolist(), encoder.encode([table.texts[int(r)] for r in chunk]), key)
        done += len(chunk)
        if progress is not None:
            progress(done, len(todo), started)
    return done
