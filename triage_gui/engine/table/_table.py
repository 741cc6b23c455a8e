"""The loaded tickets and everything known about each: columnar, so 200,000 rows stay small and fast.

One row per input record, in input order, problem records included (they are never scored and come
back with an empty label and their reason). Per row the table keeps the prompt's scores under the
prompt version that made them, the model's features (:mod:`features`), the taught label if the lead
set one, the learned head's probabilities, and the final decision: taught, else learned, else the
calibrated prompt. Numpy arrays, not an object per row (~1.1 KB of Python objects a row, walked by the
cyclic GC). No Qt and no asyncio: the command line, a cluster worker and the session all use it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from ...defaults import LOW_CONFIDENCE
from ._decision import Decision
from ._features import FeatureStore, roundtrip
from ._language import LANGUAGES, SCRIPTS, detect_languages
from ._results import TicketScore, calibrated_probs
from ._rows import BLANK, NONE, SOURCE_NAMES, SOURCES, Grow, NewRow, Source, joined, text_parts


class TicketTable:
    """Rows of tickets with their scores; see the module docstring. Not thread-safe: one owner."""

    def __init__(self) -> None:
        self.label_vocab: list[str] = []  # every label name any prompt version used; rows index into it
        self._vocab_index: dict[str, int] = {}
        self.labels: list[str] = []  # the current prompt version's labels
        self.renamed: dict[str, str] = {}  # labels a Save renamed, old -> new: the flips read the previous so
        self.version = NONE
        self.bias = np.zeros(0, dtype=np.float32)  # the version's calibration: kept when the rows are dropped
        self._label_ids = np.zeros(0, dtype=np.int16)
        self.features = FeatureStore()
        # The sentence encoder's features: they do not depend on the prompt, so they outlive its versions.
        self.embeddings = FeatureStore()
        self.clear()

    # ------------------------------------------------------------------ rows

    def clear(self) -> None:
        """Drop every row, and the columns with them: the next file's export has its own columns only."""
        self.columns: list[str] = []
        self._column_index: dict[str, int] = {}
        self.values: list[tuple[str, ...]] = []
        self.texts: list[str] = []
        self.sources: list[str] = []
        self.problems: dict[int, str] = {}
        self._n = 0
        self._score_version = Grow(np.int32, fill=NONE)
        self._final = Grow(np.int16, fill=NONE)  # vocab id of the label shown
        self._final_source = Grow(np.int8)
        self._confidence = Grow(np.float32, fill=np.nan)
        self._previous = Grow(np.int16, fill=NONE)  # vocab id under the previous prompt version
        self._latency = Grow(np.float32, fill=np.nan)
        self._flags = Grow(np.uint8)  # 1: truncated, 2: split fallback
        self._taught = Grow(np.int16, fill=NONE)  # vocab id the lead taught
        self._auto = Grow(np.int16, fill=NONE)  # vocab id the model gives (learned or prompt), taught or not
        self._llm = Grow(np.int16, fill=NONE)  # vocab id of the language model's own label, set with its scores
        self._first = Grow(np.int16, fill=NONE)  # vocab id of the first pass (kept once the language model reads)
        self._first_conf = Grow(np.float32, fill=np.nan)  # its confidence: the least sure are read first
        self._read_seq = Grow(np.int64, fill=-1)  # the order the language model read rows in (the latency chart)
        self._reads = 0
        self.first_stamp = 0  # counts first-pass relabels: a queue re-sorts what it has left when it moves
        self._problem = Grow(np.bool_)
        self._has_baseline = Grow(np.bool_)
        self._embedded = Grow(np.bool_)
        self._language = Grow(np.int8, fill=NONE)  # 0: unknown, i: CODES[i]; NONE: not detected yet
        self._head_probs = Grow(np.float32, max(1, len(self.labels)), fill=np.nan)
        self._logprobs = Grow(np.float32, max(1, len(self.labels)), fill=np.nan)
        self.head_active, self.refined = False, True  # learned probs decide untaught rows; refined: see _decide
        self.out_of_fold: dict[int, int] = {}  # taught row -> vocab id the head gives it when not trained on it
        self.baseline: dict[int, TicketScore] = {}
        self._baseline_head: dict[int, int] = {}  # baseline row -> vocab id the head gives its features
        self.baseline_features: dict[int, np.ndarray] = {}
        self.features.clear()
        self.embeddings.clear(self.embeddings.key)  # the same encoder's, for the rows to come

    def __len__(self) -> int:
        return self._n

    def add(self, rows: Sequence[NewRow]) -> range:
        """Append rows in order; new columns join the table's columns. Returns the new rows' indices."""
        for row in rows:
            for name in row.values:
                if name not in self._column_index:
                    self._column_index[name] = len(self.columns)
                    self.columns.append(name)
        first = self._n
        for row in rows:
            values = [""] * len(self.columns)
            for name, value in row.values.items():
                values[self._column_index[name]] = value
            self.values.append(tuple(values))
            self.texts.append(row.text)
            self.sources.append(row.source)
            if row.problem:
                self.problems[self._n] = row.problem
            self._n += 1
        for array in self._arrays():
            array.ensure(self._n)
        for i, row in zip(range(first, self._n), rows):
            self._problem.data[i] = i in self.problems
            if row.language is not None:
                self._language.data[i] = CODES.index(row.language)
        self.features.ensure(self._n)
        self.embeddings.ensure(self._n)
        return range(first, self._n)

    def _arrays(self) -> list[Grow]:
        return [v for v in vars(self).values() if isinstance(v, Grow)]

    def value(self, row: int, column: str) -> str:
        j = self._column_index.get(column)
        values = self.values[row]
        return values[j] if j is not None and j < len(values) else ""

    def row_values(self, row: int) -> list[str]:
        values = self.values[row]
        return [*values, *[""] * (len(self.columns) - len(values))]

    def set_texts(self, column: str) -> None:
        """Take the ticket text from another column, or several ("subject + body": :func:`text_parts`);
        every row needs scoring again."""
        parts = text_parts(column, self.columns)
        for i in range(self._n):
            if i in self.problems and self.problems[i] != BLANK:
                continue
            text = joined(self.value(i, c) for c in parts)
            self.texts[i] = text
            if text:
                self.problems.pop(i, None)
            else:
                self.problems[i] = BLANK
            self._problem.data[i] = i in self.problems
        self._score_version.data[:] = NONE
        self._has_baseline.data[:] = False
        self._final.data[:] = NONE
        self._final_source.data[:] = 0
        self._previous.data[:] = NONE
        self._first.data[:] = NONE
        self._first_conf.data[:] = np.nan
        self._embedded.data[:] = False
        self._language.data[:] = NONE
        self.embeddings.clear(self.embeddings.key)  # the same encoder's, for the rows to come
        self.baseline.clear()
        self.baseline_features.clear()

    # ------------------------------------------------------------ languages

    def undetected(self) -> np.ndarray:
        """Rows whose language has not been detected yet, in order."""
        return np.flatnonzero(self._language.data[: self._n] == NONE)

    def set_languages(self, rows: Sequence[int] | np.ndarray, codes: Sequence[str]) -> None:
        """Store detected language codes (keys of ``LANGUAGES`` or ``SCRIPTS``, or "" for unknown)."""
        self._language.data[np.asarray(rows, dtype=np.int64)] = [CODES.index(c) for c in codes]

    def language(self, row: int) -> str:
        """The row's language code; "" while unknown or not detected yet."""
        return CODES[max(0, int(self._language.data[row]))]

    def language_mask(self, code: str) -> np.ndarray:
        """Rows detected as this language ("": detected as unknown)."""
        return self._language.data[: self._n] == (CODES.index(code) if code in CODES else -2)

    def language_counts(self) -> dict[str, int]:
        """Rows per detected language code ("" for unknown); rows not detected yet are not counted."""
        codes = self._language.data[: self._n]
        found = np.bincount(codes[codes >= 0], minlength=len(CODES))
        return {code: int(n) for code, n in zip(CODES, found) if n}

    # --------------------------------------------------------------- labels

    def vocab_id(self, name: str) -> int:
        if name not in self._vocab_index:
            self._vocab_index[name] = len(self.label_vocab)
            self.label_vocab.append(name)
        return self._vocab_index[name]

    def start_version(self, version: int, labels: list[str], bias: Sequence[float], flips: bool = True) -> None:
        """A new prompt version: its labels and calibration. Labels shown so far stay, marked stale,
        until the new version's score replaces them; they are remembered to list the flips (``flips`` False:
        not, the version labels another field)."""
        self.version = version
        self.labels = list(labels)
        self._label_ids = np.array([self.vocab_id(n) for n in labels], dtype=np.int16)
        self.bias = np.asarray(bias, dtype=np.float32) if len(bias) else np.zeros(len(labels), dtype=np.float32)
        n = self._n
        self._previous.data[:n] = self._final.data[:n] if flips else NONE
        self._logprobs, self._head_probs = (Grow(np.float32, len(labels), fill=np.nan) for _ in range(2))
        for grown in (self._logprobs, self._head_probs):
            grown.ensure(n)
        self.head_active, self.out_of_fold = False, {}
        self._first.data[:n], self._first_conf.data[:n] = NONE, np.nan  # the new version's first pass replaces it
        self._has_baseline.data[:] = False
        self.baseline.clear()
        self.baseline_features.clear()
        self._baseline_head = {}

    def scored(self, row: int) -> bool:
        """Scored by the current prompt version."""
        return bool(self._score_version.data[row] == self.version) and self.version != NONE

    def stale(self, row: int) -> bool:
        """Shows a label from an earlier prompt version, until this version's arrives (a label the learned
        head gives from the prompt-free features is current)."""
        return not self.scored(row) and bool(self._final.data[row] != NONE) and not self._head_current(row)

    def _head_current(self, row: int) -> bool:
        return self.head_active and not np.isnan(self._head_probs.data[row, 0])

    def current(self, row: int) -> bool:
        """The row's label comes from this prompt version: its score, or the learned head."""
        return self.scored(row) or self._head_current(row)

    def current_mask(self) -> np.ndarray:
        head = ~np.isnan(self._head_probs.data[: self._n, 0]) if self.head_active else False
        return self.scored_mask() | head

    def pending(self, start: int = 0, baseline: bool = False, embed: bool = False) -> np.ndarray:
        """Rows from ``start`` on that still need this version's score (or baseline, or the encoder's
        features), in order. Vectorised: a Stop and Resume over 200,000 rows scans them in a millisecond."""
        end = self._n
        todo = self._score_version.data[start:end] != self.version
        if baseline:
            todo |= ~self._has_baseline.data[start:end]
        if embed:
            todo |= ~self._embedded.data[start:end]
        todo &= ~self._problem.data[start:end]
        return np.flatnonzero(todo) + start

    def use_encoder(self, key: str) -> bool:
        """Keep the embeddings of the encoder ``key`` only (:func:`engine.model.encoder_key`): another
        encoder's are dropped, so every row goes through the first pass again. Whether any were dropped."""
        if key == self.embeddings.key:
            return False
        dropped = bool(self._embedded.data[: self._n].any())
        self.embeddings.clear(key)
        self.embeddings.ensure(self._n)
        self._embedded.data[:] = False
        return dropped

    def apply_embeddings(self, rows: Sequence[int], values: np.ndarray, key: str | None = None) -> None:
        """Store the encoder's features of these rows (kept across prompt versions); under another
        encoder's ``key`` than the table's, every other row's are dropped first (:meth:`use_encoder`)."""
        idx = np.asarray(rows, dtype=np.int64)
        if key is not None:
            self.use_encoder(key)
        if len(idx):
            self.embeddings.put(idx, np.asarray(values, dtype=np.float32))
            self._embedded.data[idx] = True

    def embedded(self, row: int) -> bool:
        return bool(self._embedded.data[row])

    def unembedded(self, start: int = 0) -> np.ndarray:
        """Rows from ``start`` on that still need the encoder's features (the first pass), in order."""
        return np.flatnonzero(~(self._embedded.data[start : self._n] | self._problem.data[start : self._n])) + start

    def embedded_mask(self) -> np.ndarray:
        return self._embedded.data[: self._n]

    def needs_baseline(self, row: int) -> bool:
        return not self._has_baseline.data[row]

    def count_scored(self) -> int:
        return int(np.count_nonzero(self._score_version.data[: self._n] == self.version)) if self.version >= 0 else 0

    def count_current(self) -> int:
        """Rows whose label is this version's (first pass, learned, prompt) or taught: what a lead can use."""
        return int(np.count_nonzero(self.current_mask() | self.taught_mask())) if self.version >= 0 else 0

    def count_scorable(self) -> int:
        return self._n - len(self.problems)

    def apply(self, rows: Sequence[int], scores: Sequence[TicketScore], version: int) -> bool:
        """Store a batch of the prompt's scores; False (nothing stored) if they are from another version."""
        if version != self.version:
            return False
        idx = np.asarray(rows, dtype=np.int64)
        self._logprobs.data[idx] = np.array([s.logprobs for s in scores], dtype=np.float32)
        self._latency.data[idx] = [s.latency_ms for s in scores]
        self._flags.data[idx] = [int(s.truncated) | 2 * int(s.split_fallback) for s in scores]
        feats = [s.features for s in scores]
        if all(f is not None for f in feats) and feats:
            self.features.put(idx, np.stack(feats))  # type: ignore[arg-type]
        self._score_version.data[idx] = version
        # The calibrated softmax's argmax, once a batch: read per row by every cell and exported row, where one
        # row's argmax cost more than the rest of the row's decision together.
        if len(self._label_ids):
            self._llm.data[idx] = self._label_ids[np.argmax(self._logprobs.data[idx] + self.bias, axis=1)]
        self._read_seq.data[idx] = np.arange(self._reads, self._reads + len(idx))
        self._reads += len(idx)
        self._decide(idx)
        return True

    def apply_baseline(self, rows: Sequence[int], scores: Sequence[TicketScore], version: int) -> None:
        if version != self.version:
            return
        for row, score in zip(rows, scores):
            self.baseline[row] = score
            self._has_baseline.data[row] = True
            if score.features is not None:
                self.baseline_features[row] = roundtrip(score.features[None])[0]

    # ------------------------------------------------------------- teaching

    def teach(self, rows: Iterable[int], label: str | None) -> None:
        """Set (or with None, clear) the label the lead taught on these rows."""
        value = NONE if label is None else self.vocab_id(label)
        idx = np.fromiter(rows, dtype=np.int64)
        self._taught.data[idx] = value
        self._decide(idx)

    def taught_label(self, row: int) -> str | None:
        t = int(self._taught.data[row])
        return None if t == NONE else self.label_vocab[t]

    def taught_rows(self) -> np.ndarray:
        return np.flatnonzero(self._taught.data[: self._n] != NONE)

    def set_head(
        self,
        probs: np.ndarray | None,
        rows: np.ndarray | None = None,
        out_of_fold: dict[int, int] | None = None,
        baseline: dict[int, int] | None = None,
    ) -> None:
        """The learned head's ``probs`` (len(rows) x labels) for ``rows`` (default: the first len(probs)), or
        None to go back to the prompt alone; ``out_of_fold``: taught row -> label index the head gives it when
        not trained on it; ``baseline``: baseline row -> label index the head gives the baseline's features."""
        if probs is None:
            self.head_active = False
            self._head_probs.data[:] = np.nan
            self.out_of_fold, self._baseline_head = {}, {}
            self._decide(np.arange(self._n))
            return
        idx = np.arange(len(probs)) if rows is None else np.asarray(rows, dtype=np.int64)
        self.head_active = True
        self._head_probs.data[idx] = probs
        if out_of_fold is not None:
            self.out_of_fold = {r: int(self._label_ids[k]) for r, k in out_of_fold.items()}
        if baseline is not None:
            self._baseline_head.update({r: int(self._label_ids[k]) for r, k in baseline.items()})
        self._decide(np.arange(self._n) if rows is None else idx)

    def set_first(self, rows: np.ndarray, probs: np.ndarray) -> None:
        """The first pass's probabilities for rows the language model has read (the learned head without its
        heads): kept as their first-pass label, what the reading's changes are counted against."""
        usable = ~np.isnan(probs[:, 0]) if len(probs) else np.zeros(0, bool)
        rows, probs = np.asarray(rows, dtype=np.int64)[usable], probs[usable]
        best = probs.argmax(axis=1)
        self._first.data[rows] = self._label_ids[best]
        self._first_conf.data[rows] = probs[np.arange(len(rows)), best]

    def _decide(self, idx: np.ndarray) -> None:
        """Recompute the shown label, its source and confidence for these rows (vectorised)."""
        if len(idx) == 0 or self.version == NONE:
            return
        scored = self._score_version.data[idx] == self.version
        rows = idx[scored]
        if len(rows):
            probs = self.prompt_probs(rows)
            source = np.full(len(rows), Source.PROMPT, dtype=np.int8)
            if self.head_active:
                learned = self._head_probs.data[rows]
                usable = ~np.isnan(learned[:, 0])
                probs[usable] = learned[usable]
                source[usable] = Source.LEARNED if self.refined else Source.FIRST  # LLM heads at 0: first pass's
            best = probs.argmax(axis=1)
            self._auto.data[rows] = self._final.data[rows] = self._label_ids[best]
            self._confidence.data[rows] = probs[np.arange(len(rows)), best]
            self._final_source.data[rows] = source
        if self.head_active:  # not scored by this version yet: the head's prompt-free heads label them
            rows = idx[~scored]
            learned = self._head_probs.data[rows]
            usable = ~np.isnan(learned[:, 0])
            rows, learned = rows[usable], learned[usable]
            best = learned.argmax(axis=1)
            self._auto.data[rows] = self._final.data[rows] = self._label_ids[best]
            self._confidence.data[rows] = learned[np.arange(len(rows)), best]
            self._final_source.data[rows] = Source.FIRST
            self._first.data[rows] = self._label_ids[best]
            self._first_conf.data[rows] = self._confidence.data[rows]
            self.first_stamp += bool(len(rows))
        taught = self._taught.data[idx]
        mask = taught != NONE
        if mask.any():
            rows = idx[mask]
            self._final.data[rows] = taught[mask]
            self._final_source.data[rows] = Source.TAUGHT
            self._confidence.data[rows] = 1.0

    # ------------------------------------------------------------- reading

    def prompt_probs(self, rows: np.ndarray) -> np.ndarray:
        """Calibrated prompt probabilities (rows x labels)."""
        return calibrated_probs(self._logprobs.data[rows], self.bias)

    def label(self, row: int) -> str | None:
        """The label shown for the row (possibly stale: see :meth:`stale`), or None."""
        v = int(self._final.data[row])
        return None if v == NONE else self.label_vocab[v]

    def label_ids(self) -> np.ndarray:
        """Vocab ids of every row's shown label (NONE where there is none)."""
        return self._final.data[: self._n]

    def previous_label(self, row: int) -> str | None:
        v = int(self._previous.data[row])
        return None if v == NONE else self.label_vocab[v]

    def source(self, row: int) -> str:
        return SOURCE_NAMES[int(self._final_source.data[row])]

    def is_low_confidence(self, row: int, threshold: float) -> bool:
        """The table's ⚠ mark: the rule of :meth:`_low_confidence` on one row, read as scalars (a third of the
        time of slicing three columns; every cell and every exported row asks)."""
        below = self._confidence.data[row] < threshold  # NaN (no confidence) is never below
        return bool(below and self._final.data[row] != NONE and self._taught.data[row] == NONE)

    def low_confidence_mask(self, threshold: float) -> np.ndarray:
        """Every row the *Confidence below* filter keeps: see :meth:`_low_confidence`."""
        return self._low_confidence(slice(0, self._n), threshold)

    def _low_confidence(self, rows: slice, threshold: float) -> np.ndarray:
        """One rule for the mark and the filter: a label whose confidence is under ``threshold``, not taught
        (a taught label is the lead's own, whatever the classifier thought)."""
        below = self._confidence.data[rows] < threshold  # NaN (no confidence) is never below
        return below & (self._final.data[rows] != NONE) & (self._taught.data[rows] == NONE)

    def confidence(self, row: int) -> float | None:
        c = float(self._confidence.data[row])
        return None if self._final.data[row] == NONE or c != c else c

    def latency(self, row: int) -> float | None:
        if not self.scored(row):
            return None
        v = float(self._latency.data[row])
        return None if v != v else v

    def truncated(self, row: int) -> bool:
        return bool(self._flags.data[row] & 1)

    def split_fallback(self, row: int) -> bool:
        return bool(self._flags.data[row] & 2)

    def logprobs(self, row: int) -> np.ndarray | None:
        return self._logprobs.data[row].copy() if self.scored(row) else None

    def label_probs(self, row: int) -> np.ndarray | None:
        """Every current label's probability for the row, from the source its label came from."""
        if self._head_current(row):
            return self._head_probs.data[row].copy()
        if not self.scored(row):
            return None
        return self.prompt_probs(np.array([row]))[0]

    def baseline_label(self, row: int) -> str | None:
        """What the full re-encode path gives the row: through the learned head where the row's label
        is learned, else its calibrated prompt label."""
        score = self.baseline.get(row)
        if score is None:
            return None
        learned = self._baseline_head.get(row)
        if learned is not None and self.head_active and not np.isnan(self._head_probs.data[row, 0]):
            return self.label_vocab[learned]
        return score.label

    def model_label(self, row: int) -> str | None:
        """The label the model gives the row (learned or prompt), even where the lead taught another."""
        v = int(self._auto.data[row])
        return None if v == NONE or not self.current(row) else self.label_vocab[v]

    def agree(self, row: int) -> bool | None:
        """Whether the full path gives the same label as the fast one (teaching aside)."""
        base = self.baseline_label(row)
        if base is None or not self.scored(row):
            return None
        return base == self.model_label(row)

    def evaluated_label(self, row: int) -> str | None:
        """The label accuracy is measured on: a taught row counts with the head's out-of-fold label,
        never with the label it was trained on."""
        if self._taught.data[row] != NONE:
            oof = self.out_of_fold.get(row)
            if oof is not None:
                return self.label_vocab[oof]
            return self.model_label(row) if not self.head_active else None
        return self.label(row) if self.current(row) else None

    # ------------------------------------------------------------------ whole columns
    # One value for every row at once (confidences, the taught mask, latencies, the rows scored by the current
    # version), for the window's counts and the session's masks: numpy over the columns, never a Python loop.

    def confidences(self) -> np.ndarray:
        """Confidence of every row's shown label (NaN where none)."""
        n = self._n
        out = self._confidence.data[:n].copy()
        out[self._final.data[:n] == NONE] = np.nan
        return out

    def taught_mask(self) -> np.ndarray:
        return self._taught.data[: self._n] != NONE

    def previous_ids(self) -> np.ndarray:
        """Vocab ids of the labels rows showed under the previous prompt version (NONE: none)."""
        return self._previous.data[: self._n]

    def current_index(self, vocab_ids: np.ndarray) -> np.ndarray:
        """Vocab ids -> indices into the current labels (-1: not a current label, or NONE)."""
        lookup = np.full(len(self.label_vocab) + 1, -1, dtype=np.int64)
        lookup[self._label_ids.astype(np.int64)] = np.arange(len(self._label_ids))
        ids = np.asarray(vocab_ids, dtype=np.int64)
        return np.where(ids >= 0, lookup[np.clip(ids, 0, None)], -1)

    def latencies(self) -> np.ndarray:
        """Latency of every row scored by the current version, in the order the language model read them (the
        least sure first, not file order: the chart's newest point is the latest ticket read)."""
        n = self._n
        if self.version < 0:  # no version built yet: its NONE is every unscored row's too (as count_scored)
            return self._latency.data[:0]
        rows = np.flatnonzero(self._score_version.data[:n] == self.version)
        rows = rows[np.argsort(self._read_seq.data[rows], kind="stable")]
        return self._latency.data[rows]

    def first_pass_ids(self) -> np.ndarray:
        """Vocab ids of every row's first-pass label under this prompt version (NONE: none yet), kept after
        the language model has read the row: what its reading changed is measured against it."""
        return self._first.data[: self._n]

    def first_pass_confidence(self) -> np.ndarray:
        """The first pass's confidence in its label (NaN: no first-pass label)."""
        return self._first_conf.data[: self._n]

    def first_pass_label(self, row: int) -> str | None:
        v = int(self._first.data[row])
        return None if v == NONE else self.label_vocab[v]

    def llm_ids(self) -> np.ndarray:
        """Vocab ids of the language model's own label of every row (the argmax of its calibrated prompt
        scores; NONE where this version has not read the row), whatever the combination decides."""
        n = self._n
        return np.where(self.scored_mask() & (self.version != NONE), self._llm.data[:n], NONE).astype(np.int64)

    def llm_label(self, row: int) -> str | None:
        """The language model's own label of the row (see :meth:`llm_ids`), None before it read the row."""
        v = int(self._llm.data[row])
        return None if v == NONE or not self.scored(row) else self.label_vocab[v]

    def scored_mask(self) -> np.ndarray:
        return self._score_version.data[: self._n] == self.version

    def flags_count(self) -> tuple[int, int]:
        """(truncated, split fallback) among the rows scored by this version."""
        flags = self._flags.data[: self._n][self.scored_mask()]
        return int(np.count_nonzero(flags & 1)), int(np.count_nonzero(flags & 2))


def decide(table: TicketTable, row: int, low: float = LOW_CONFIDENCE) -> Decision:
    """The table's decision for ``row``, what its readers (``label``, ``source``, ``stale``, ``model_label``, …)
    give, in one pass of scalar reads (a test compares every field with them on every row); ``low``: the
    confidence below which a label is marked (the window's threshold; the default is the one the command line
    and the filters start with). Every shown cell and exported row asks: read through those readers it cost
    twice the rest of an exported row."""
    final, taught, auto = int(table._final.data[row]), int(table._taught.data[row]), int(table._auto.data[row])
    llm, first = int(table._llm.data[row]), int(table._first.data[row])
    scored = table.version != NONE and int(table._score_version.data[row]) == table.version
    current = scored or table._head_current(row)
    confidence = float(table._confidence.data[row])  # NaN: none
    vocab = table.label_vocab
    return Decision(
        None if final == NONE else vocab[final],
        SOURCES[int(table._final_source.data[row])],
        None if final == NONE or confidence != confidence else confidence,
        taught != NONE,
        not current and final != NONE,
        table.is_low_confidence(row, low),
        None if auto == NONE or not current else vocab[auto],
        None if llm == NONE or not scored else vocab[llm],
        None if first == NONE else vocab[first],
    )


CODES = ("", *LANGUAGES, *SCRIPTS)  # the language column's values by stored code


def fill_languages(table: TicketTable, block: int = 4096) -> None:
    """Detect the language of every row not detected yet, here and now (the command line; the window's
    session does it on its own thread as rows arrive)."""
    todo = table.undetected()
    for start in range(0, len(todo), block):
        rows = todo[start : start + block]
        table.set_languages(rows, detect_languages(table.texts[int(r)] for r in rows))
