"""Teaching a table: gather the taught tickets and the prompt's own examples, fit, relabel every row.

The pieces the window's session runs on its threads one by one, and the command line in one call:
pseudo-tickets come from the prompt (:func:`prompt_examples`), their features from the scorer; taught
tickets that are loaded rows use the row's features, the others are scored like pseudo-tickets.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .learning import Examples, Fit, fit_all, out_of_fold
from .lexical import LexicalStore
from .prompt import PromptProfile
from .runner import ScorerLike
from .table import TicketTable


def prompt_examples(profile: PromptProfile) -> list[tuple[str, int]]:
    """(text, label index): the few-shot examples (taught tickets too), and for each label its description
    and a "name: description" line, as pseudo-tickets. Descriptions were the biggest lever with few
    taught tickets: on the 5-queue dev set at K=2, 0.46 -> 0.62."""
    index = {name: i for i, name in enumerate(profile.label_names)}
    out = [(e.text.strip(), index[e.label]) for e in profile.examples if e.label in index and e.text.strip()]
    for i, label in enumerate(profile.labels):
        description = label.description.strip()
        out.append((f"{label.name}: {description}" if description else label.name, i))
        if description:
            out.append((description, i))
    return out


def features_of(scorer: ScorerLike, texts: Sequence[str], batch: int = 32) -> np.ndarray:
    """The answer-position features of texts that are not loaded rows (engine thread)."""
    parts = []
    for start in range(0, len(texts), batch):
        scores = scorer.score_batch(list(texts[start : start + batch]))
        parts.append(np.stack([s.features for s in scores]).astype(np.float32))  # type: ignore[misc]
    return np.concatenate(parts) if parts else np.zeros((0, 0), dtype=np.float32)


def pseudo_set(profile: PromptProfile, features: np.ndarray) -> Examples:
    items = prompt_examples(profile)
    labels = np.array([k for _, k in items], dtype=np.int64)
    return Examples(features, [t for t, _ in items], labels, [None] * len(items))


def taught_set(table: TicketTable, items: Sequence[tuple[str, str]], outside: dict[str, np.ndarray]) -> Examples:
    """Taught tickets with features: loaded rows (scored by this version) first, others from ``outside``
    (text -> features). Items with no features yet, or no label of this prompt, are left out."""
    index = {name: i for i, name in enumerate(table.labels)}
    rows_by_text: dict[str, int] = {}
    for row in table.taught_rows():
        rows_by_text.setdefault(table.texts[int(row)], int(row))
    feats, texts, labels, rows = [], [], [], []
    for text, label in items:
        if label not in index:
            continue
        row = rows_by_text.get(text)
        if row is not None and table.scored(row):
            vector = table.features.get(np.array([row]))[0]
        elif text in outside:
            vector, row = outside[text], None
        else:
            continue
        feats.append(vector)
        texts.append(text)
        labels.append(index[label])
        rows.append(row)
    if not feats:
        return Examples.concat([])
    return Examples(np.stack(feats).astype(np.float32), texts, np.array(labels), rows)


def apply_fit(table: TicketTable, fit: Fit, rows: int, version: int, oof: dict[int, int] | None = None) -> bool:
    """Put a fit's labels on the table, if it is still the version it was fitted for."""
    if table.version != version:
        return False
    baseline = {}
    for row in table.baseline:
        feats = table.baseline_features.get(row)
        if feats is not None:
            probs = fit.head.predict_texts(feats[None].astype(np.float32), [table.texts[row]], fit.store)
            baseline[row] = int(probs.argmax())
    table.set_head(fit.probs, np.arange(rows), oof, baseline)
    return True


class Teacher:
    """The command line's one-call teaching (the session does the same steps on its threads)."""

    def __init__(self, scorer: ScorerLike, profile: PromptProfile) -> None:
        self.scorer = scorer
        self.profile = profile

    def fit_table(self, table: TicketTable, taught: Sequence[tuple[str, str]]) -> str | None:
        """Teach, relabel every row, and describe what was learned (with the cross-validated estimate)."""
        if len(table.labels) < 2:
            return None
        pseudo_texts = [t for t, _ in prompt_examples(self.profile)]
        pseudo = pseudo_set(self.profile, features_of(self.scorer, pseudo_texts))
        loaded = {table.texts[r]: r for r in range(len(table)) if table.scored(r)}
        outside_texts = sorted({t for t, _ in taught if t not in loaded})
        outside = dict(zip(outside_texts, features_of(self.scorer, outside_texts))) if outside_texts else {}
        for text, label in taught:
            row = loaded.get(text)
            if row is not None:
                table.teach([row], label)
        store = LexicalStore()
        store.add(table.texts)
        features = table.features.view(len(table))
        examples = taught_set(table, taught, outside)
        fit = fit_all(examples, pseudo, features, store, table.texts, len(table), len(table.labels))
        oof, estimate = out_of_fold(examples, pseudo, fit.head.scaler, store, len(table.labels))
        apply_fit(table, fit, len(table), table.version, oof)
        accuracy = "" if estimate is None else f", estimated accuracy {estimate:.1%} (cross-validated)"
        return (
            f"{len(examples)} taught tickets, {len(pseudo)} from the prompt, {fit.self_trained} self-labelled"
            f"{accuracy}; fitted in {fit.seconds:.2f} s"
        )
