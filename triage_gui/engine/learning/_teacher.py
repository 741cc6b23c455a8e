"""Teaching a table: gather the taught tickets and the prompt's own examples, fit, relabel every row.

The pieces the window's session runs on its threads one by one, and the command line in one call:
pseudo-tickets come from the prompt (:func:`prompt_examples`), their features from the scorer and the
encoder; taught tickets that are loaded rows use the row's features, the others are computed like
pseudo-tickets.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from ...words import counted
from ..model import EncoderLike, ScorerLike
from ..prompt import PromptProfile, learned_text
from ..table import TicketTable
from . import _head_table as heads
from ._heads import PSEUDO_WEIGHT, Examples, Fit, Head, OutOfFold, RowSource, fit_all, out_of_fold
from ._lexical import LexicalStore


def prompt_examples(profile: PromptProfile) -> list[tuple[str, int]]:
    """(text, label index): the few-shot examples, and for each label its description and a "name:
    description" line, as pseudo-tickets. Descriptions were the biggest lever with few taught tickets: on
    the 5-queue dev set at K=2, 0.46 -> 0.62; through the encoder they label untaught tickets on their own."""
    index = {name: i for i, name in enumerate(profile.label_names)}
    out = [(e.text.strip(), index[e.label]) for e in profile.examples if e.label in index and e.text.strip()]
    for i, label in enumerate(profile.labels):
        description = label.description.strip()
        out.append((f"{label.name}: {description}" if description else label.name, i))
        if description:
            out.append((description, i))
    return out


@dataclass
class TextFeatures:
    """Features of texts that are not loaded rows: the LLM's hidden state and calibrated prompt
    probabilities (width 0 / NaN without a scorer) and the encoder's embedding (width 0 without one)."""

    hidden: np.ndarray
    prompt: np.ndarray
    embeddings: np.ndarray

    def by_source(self) -> dict[str, np.ndarray]:
        """By the table sources' names (:mod:`head_table`), as ``Examples`` carry them."""
        hidden, prompt, embeddings = heads.HIDDEN.name, heads.PROMPT_SCORES.name, heads.EMBEDDINGS.name
        return {hidden: self.hidden, prompt: self.prompt, embeddings: self.embeddings}


def features_of(
    scorer: ScorerLike | None,
    encoder: EncoderLike | None,
    texts: Sequence[str],
    n_labels: int,
    batch: int = 32,
) -> TextFeatures:
    """The features of texts that are not loaded rows (engine thread), in batches as tickets are; each is
    read up to :func:`engine.prompt.learned_text`'s cut, in the window and in ``classify`` alike."""
    hidden, prompt, embedded = [], [], []
    for start in range(0, len(texts), batch):
        chunk = [learned_text(t) for t in texts[start : start + batch]]
        if scorer is not None:
            scores = scorer.score_batch(chunk)
            hidden.append(np.stack([s.features for s in scores]).astype(np.float32))  # type: ignore[misc]
            prompt.append(np.array([s.probs for s in scores], dtype=np.float32))
        if encoder is not None:
            embedded.append(np.asarray(encoder.encode(chunk), dtype=np.float32))
    n = len(texts)
    return TextFeatures(
        np.concatenate(hidden) if hidden else np.zeros((n, 0), np.float32),
        np.concatenate(prompt) if prompt else np.full((n, n_labels), np.nan, np.float32),
        np.concatenate(embedded) if embedded else np.zeros((n, 0), np.float32),
    )


def embed_each(encoder: EncoderLike, texts: Sequence[str]) -> np.ndarray:
    """The encoder's features of texts that are not loaded rows, one text at a time: the encoder's float32
    output moves by ~1e-7 with the other texts of a batch, and which taught tickets are outside the file
    differs between the window (as rows arrive) and ``classify``; alone, a text has the same features in both."""
    if not texts:
        return np.zeros((0, encoder.dim), np.float32)
    return np.concatenate([np.asarray(encoder.encode([learned_text(t)]), dtype=np.float32) for t in texts])


def pseudo_set(profile: PromptProfile, features: TextFeatures) -> Examples:
    items = prompt_examples(profile)
    labels = np.array([k for _, k in items], dtype=np.int64)
    texts = [t for t, _ in items]
    weight = np.full(len(items), PSEUDO_WEIGHT)
    return Examples(features.by_source(), texts, labels, [None] * len(items), weight)


def row_source(table: TicketTable, rows: int | None = None) -> RowSource:
    """What a fit reads of the table's first ``rows`` rows (call on the table owner's thread)."""
    n = len(table) if rows is None else rows
    sources = heads.table_sources().values()
    present = {s.name: None if s.present is None else s.present(table)[:n].copy() for s in sources}
    return RowSource({s.name: s.view(table, n) for s in sources}, n, present)


def row_values(table: TicketTable, rows: np.ndarray, llm: bool = True) -> dict[str, np.ndarray]:
    """These table rows' source values as the heads read them; ``llm=False`` (the first pass): without the
    sources of the heads that need the language model (width 0: those heads have no features there)."""
    off = set() if llm else {h.source.name for h in heads.heads() if h.llm}
    return {
        s.name: np.zeros((len(rows), 0), np.float32) if s.name in off else s.get(table, rows)
        for s in heads.table_sources().values()
    }


def taught_set(
    table: TicketTable, items: Sequence[tuple[str, str]], outside: dict[str, dict[str, np.ndarray]]
) -> Examples:
    """Taught tickets with features: loaded rows (scored by this version or embedded) first, others from
    ``outside`` (text -> source name -> values). Items with no features yet, or no label of this prompt,
    are left out. A loaded row's source values are NaN where the row does not have them now."""
    index = {name: i for i, name in enumerate(table.labels)}
    rows_by_text: dict[str, int] = {}
    for row in table.taught_rows():
        rows_by_text.setdefault(table.texts[int(row)], int(row))
    sources = heads.table_sources().values()
    present = {s.name: s.present(table) for s in sources if s.present is not None}  # once: not per ticket
    values: dict[str, list[np.ndarray]] = {s.name: [] for s in sources}
    texts, labels, rows = [], [], []
    for text, label in items:
        if label not in index:
            continue
        row = rows_by_text.get(text)
        if row is not None and (table.scored(row) or table.embedded(row)):
            for s in sources:
                v = s.get(table, np.array([row]))[0]
                values[s.name].append(v if s.name not in present or present[s.name][row] else np.full(len(v), np.nan))
        elif text in outside:
            for s in sources:
                values[s.name].append(outside[text].get(s.name, np.zeros(0, np.float32)))
            row, text = None, learned_text(text)
        else:
            continue
        texts.append(text)
        labels.append(index[label])
        rows.append(row)
    if not texts:
        return Examples.concat([])
    return Examples({name: _rows(v) for name, v in values.items()}, texts, np.array(labels), rows)


def _rows(values: list[np.ndarray]) -> np.ndarray:
    width = max(len(v) for v in values)
    return np.stack([v if len(v) == width else np.full(width, np.nan) for v in values]).astype(np.float32)


def apply_fit(table: TicketTable, fit: Fit, rows: int, version: int, oof: dict[int, int] | None = None) -> bool:
    """Put a fit's labels on the table, if it is still the version it was fitted for. A baseline row is
    labelled from the full re-encode's hidden state and prompt scores and the row's own embedding (the
    encoder has one path only). Where the fit gives the language model's heads no weight, a row it has read
    keeps the first pass's label, and its source says so (``TicketTable.refined``: the detail pane said
    "learned" for a label the first pass had decided)."""
    if table.version != version:
        return False
    table.refined = any(float(fit.head.weights.get(h, 0.0)) > 0 for h in heads.llm_heads())
    oof = None if oof is None else with_twins(table, oof)
    table.set_head(fit.probs, np.arange(rows), oof, baseline_labels(table, fit.head, fit.store, table.baseline))
    return True


def with_twins(table: TicketTable, oof: dict[int, int]) -> dict[int, int]:
    """Taught row -> out-of-fold label, for every taught row: a text in the file twice is one taught ticket (the
    taught set holds it once, under its first row), so the fold that left it out left out both rows, and its
    twin counts with the same label (it had none: the gold count read 1,999 of 2,000)."""
    by_text = {table.texts[r]: k for r, k in oof.items() if 0 <= r < len(table)}
    out = dict(oof)
    for row in table.taught_rows().tolist():
        if row not in out and (label := by_text.get(table.texts[row])) is not None:
            out[row] = label
    return out


def baseline_labels(table: TicketTable, head: Head, store: LexicalStore, rows: Iterable[int]) -> dict[int, int]:
    """The head's label index for baseline rows, from the full re-encode's hidden state and prompt scores and
    the row's own embedding (the encoder has one path only; NaN, so left out, where the row has none)."""
    found = {}
    for row in rows:
        feats = table.baseline_features.get(row)
        if feats is None:
            continue
        values = row_values(table, np.array([row]))
        values[heads.HIDDEN.name] = feats[None].astype(np.float32)  # the full re-encode's, for the scored ones
        values[heads.PROMPT_SCORES.name] = np.array([table.baseline[row].probs], dtype=np.float32)
        probs = head.predict_texts(values, [table.texts[row]], store)
        if not np.isnan(probs[0, 0]):
            found[row] = int(probs.argmax())
    return found


def reweigh(source: RowSource, fit: Fit, found: OutOfFold) -> Fit:
    """The same heads with the weights chosen out of fold: every row predicted again (no refit)."""
    if (found.weights, found.first_weights) == (fit.head.weights, fit.head.first_weights):
        return fit
    head = type(fit.head)(
        fit.head.scaler,
        fit.head.linear,
        fit.head.idf,
        found.weights,
        fit.head.n_labels,
        found.first_weights,
        fit.head.joint,
    )
    probs = head.predict_rows(source, fit.store)
    return Fit(head, fit.store, probs, fit.taught, fit.pseudo, fit.seconds)


class Teacher:
    """The command line's one-call teaching (the session does the same steps on its threads). Without a
    scorer (``classify --fast``) it is the first pass: the prompt-free heads on the encoder's features."""

    def __init__(self, scorer: ScorerLike | None, profile: PromptProfile, encoder: EncoderLike | None = None) -> None:
        self.scorer = scorer
        self.profile = profile
        self.encoder = encoder

    def fit_table(self, table: TicketTable, taught: Sequence[tuple[str, str]]) -> str | None:
        """Teach, relabel every row, and describe what was learned."""
        from ._combination import describe

        if len(table.labels) < 2:
            return None
        k = len(table.labels)
        pseudo_texts = [t for t, _ in prompt_examples(self.profile)]
        pseudo = pseudo_set(self.profile, features_of(self.scorer, self.encoder, pseudo_texts, k))
        loaded = {table.texts[r]: r for r in range(len(table)) if table.scored(r) or table.embedded(r)}
        outside_texts = [t for t, _ in taught if t not in loaded]
        outside: dict[str, dict[str, np.ndarray]] = {}
        if outside_texts:
            found = features_of(self.scorer, None, outside_texts, k)
            embedded = embed_each(self.encoder, outside_texts) if self.encoder is not None else found.embeddings
            outside = {t: {heads.HIDDEN.name: found.hidden[i], heads.PROMPT_SCORES.name: found.prompt[i],
                           heads.EMBEDDINGS.name: embedded[i]} for i, t in enumerate(outside_texts)}  # fmt: skip
        for text, label in taught:
            row = loaded.get(text)
            if row is not None:
                table.teach([row], label)
        store = LexicalStore()
        store.add(table.texts)
        examples = taught_set(table, taught, outside)
        source = row_source(table)
        fit = fit_all(examples, pseudo, source, store, k)
        chosen = out_of_fold(examples, pseudo, fit.head.scaler, store, k)
        fit = reweigh(source, fit, chosen)
        apply_fit(table, fit, len(table), table.version, chosen.labels)
        weights = describe(fit.head.weights) if self.scorer is not None else describe(fit.head.first_weights or {})
        weights += fit.head.joint_words()
        said = f"; the language model's heads: {chosen.verdict.reason}" if self.scorer and chosen.verdict else ""
        return (
            f"{counted(len(examples), 'taught ticket')} and {len(pseudo)} from the prompt; heads weighted "
            f"{weights}{said}; fitted in {fit.seconds:.2f} s"
        )
