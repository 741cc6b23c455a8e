"""The taught tickets that are not loaded rows (taught from another file, or imported): their features.

Their encoder features are computed at once, on the learning thread (the engine thread may hold seconds of
scoring), one text at a time so they do not depend on which other texts were taught, and kept across prompt
versions (they do not depend on the prompt): such a ticket joins the first pass's fit at once. Their
language-model features (hidden state, calibrated prompt probabilities) follow from the engine thread, in a
task of their own whose landing refits, a chunk at a time and only while no row waits for the first pass; a
lead opening a file with a taught prompt waited minutes for them when the refit awaited them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .tasks import LatestTask
from .workers import WorkerThread

if TYPE_CHECKING:
    from ..engine.table import TicketTable

CHUNK = 16  # texts an engine job: a file dropped meanwhile waits for one chunk (~0.3 s), not for all of them


class OutsideTickets:
    """Narrow inputs: the learning and engine threads, and what to call when language-model features land."""

    def __init__(self, thread: WorkerThread, engine_thread: WorkerThread, landed: Callable[[], None]) -> None:
        self.thread, self.engine_thread, self.landed = thread, engine_thread, landed
        self.embedded: dict[str, np.ndarray] = {}  # text -> the encoder's features
        self.llm: dict[str, tuple[np.ndarray, np.ndarray]] = {}  # text -> (hidden, prompt), this version
        self.scoring = LatestTask("score taught tickets")

    def new_version(self) -> None:
        """A new prompt version: the language-model features are the old prompt's; the encoder's stay."""
        self.scoring.cancel()
        self.llm = {}

    async def features(self, table: TicketTable, texts: Sequence[str], now: Any) -> dict[str, dict[str, np.ndarray]]:
        """text -> source name -> values (``hidden``, ``prompt``, ``embeddings``) for the ``texts`` that
        have any feature yet (width-0 or NaN values where one is missing); ``now``: what is in use (scorer,
        encoder), captured on the loop's thread. A new prompt version cancels the refit awaiting this, and
        the scoring task it starts."""
        from ..engine.learning import EMBEDDINGS, HIDDEN, PROMPT_SCORES, embed_each, features_of

        k = len(table.labels)
        missing = [t for t in texts if t not in self.embedded]
        if missing and now.encoder is not None:
            found = await self.thread.run(embed_each, now.encoder, missing)
            self.embedded.update(zip(missing, found))
        unscored = [t for t in texts if t not in self.llm]
        if unscored and now.scorer is not None and not self.scoring.active:

            async def score() -> None:
                for start in range(0, len(unscored), CHUNK):
                    while now.encoder is not None and len(table.unembedded()):
                        await asyncio.sleep(0.05)  # the first pass goes first: it is what every row waits for
                    chunk = unscored[start : start + CHUNK]
                    found = await self.engine_thread.run(features_of, now.scorer, None, chunk, k)
                    self.llm.update((t, (found.hidden[i], found.prompt[i])) for i, t in enumerate(chunk))
                self.landed()

            self.scoring.start(score())
        none = np.zeros(0, np.float32)
        out: dict[str, dict[str, np.ndarray]] = {}
        for text in texts:
            embedding, llm = self.embedded.get(text), self.llm.get(text)
            if embedding is not None or llm is not None:
                hidden, prompt = llm if llm is not None else (none, np.full(k, np.nan, np.float32))
                embedded = none if embedding is None else embedding
                out[text] = {HIDDEN.name: hidden, PROMPT_SCORES.name: prompt, EMBEDDINGS.name: embedded}
        return out
