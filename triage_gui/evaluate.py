"""``eval``: how good each labelling method is on a file with a gold column — the learning curve a lead
uses to decide how many tickets to teach.

Every ticket is scored once; then, for each K, several random draws of K taught tickets per label are
taken, and every method is measured on the tickets not drawn: the majority class, the raw prompt, the
calibrated prompt, a TF-IDF + logistic-regression baseline trained on the same drawn tickets, and the
app's taught classifier (which also learns from the prompt's examples). Mean and spread over draws.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable

import numpy as np

from .engine.metrics import macro_f1, report_from_ids


def tfidf_baseline(texts: list[str], labels: np.ndarray, train: np.ndarray, test: np.ndarray) -> np.ndarray:
    """The plain baseline: TF-IDF unigrams+bigrams and logistic regression (scikit-learn defaults)."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression

    vectorizer = TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True)
    x_train = vectorizer.fit_transform([texts[i] for i in train])
    if len(np.unique(labels[train])) < 2:
        return np.full(len(test), labels[train][0])
    model = LogisticRegression(C=10.0, max_iter=1000).fit(x_train, labels[train])
    return model.predict(vectorizer.transform([texts[i] for i in test]))


def draw(gold: np.ndarray, per_label: int, rng: np.random.Generator) -> np.ndarray:
    """K rows of each label (all of a label's rows if it has fewer than K+1, keeping one to test)."""
    chosen = []
    for label in np.unique(gold[gold >= 0]):
        rows = np.flatnonzero(gold == label)
        take = min(per_label, max(0, len(rows) - 1))
        chosen += rng.choice(rows, take, replace=False).tolist()
    return np.array(sorted(chosen), dtype=np.int64)


def measure(labels: list[str], gold: np.ndarray, predicted: np.ndarray, rows: np.ndarray) -> tuple[float, float]:
    report = report_from_ids(labels, gold[rows], predicted)
    return report.accuracy, macro_f1(report)


def run_eval(args: argparse.Namespace) -> int:
    from .classify import read_table, score_local
    from .engine.learning import Examples, fit_all
    from .engine.lexical import LexicalStore
    from .engine.model_loader import load_model
    from .engine.prompt import load_profile
    from .engine.scorer import Scorer
    from .engine.teacher import features_of, prompt_examples, pseudo_set
    from .session.gold import GoldColumn

    ks = [int(k) for k in str(args.train_per_label).split(",") if k.strip()]
    table, _, summary = read_table(args.file, args.column)
    if args.gold not in table.columns:
        raise ValueError(f"no column {args.gold!r}; the file has: {', '.join(table.columns)}")
    profile = load_profile(args.prompt)
    loaded = load_model(args.model, args.device, None, args.threads, args.dtype)
    scorer = Scorer(loaded, profile, calibrate=True)
    table.start_version(0, scorer.labels, scorer.bias.tolist())
    gold = GoldColumn(args.gold).ids(table)
    usable = int((gold >= 0).sum())
    if usable < 2 * len(scorer.labels):
        raise ValueError(f"only {usable} rows of {args.gold!r} hold one of the labels {', '.join(scorer.labels)}")
    print(f"{usable} tickets with a gold label from {args.file} ({summary}); scoring…", file=sys.stderr)
    started = time.perf_counter()
    score_local(scorer, table, args.batch_size, False)
    scoring = time.perf_counter() - started
    n, labels = len(table), scorer.labels
    zero = np.zeros(len(labels), dtype=np.float32)
    logprobs = np.stack([_or(table.logprobs(i), zero) for i in range(n)])
    store = LexicalStore()
    store.add(table.texts)
    pseudo = pseudo_set(profile, features_of(scorer, [t for t, _ in prompt_examples(profile)]))
    features = table.features.view(n)
    everyone = np.flatnonzero(gold >= 0)
    majority = np.bincount(gold[everyone]).argmax()

    results: dict[str, dict[int, list[tuple[float, float]]]] = {}

    def record(method: str, k: int, predicted: np.ndarray, rows: np.ndarray) -> None:
        results.setdefault(method, {}).setdefault(k, []).append(measure(labels, gold, predicted, rows))

    record("majority class", 0, np.full(len(everyone), majority), everyone)
    record("raw prompt", 0, logprobs[everyone].argmax(axis=1), everyone)
    record("calibrated prompt", 0, (logprobs[everyone] + scorer.bias.numpy()).argmax(axis=1), everyone)

    def ours(train_rows: np.ndarray) -> np.ndarray:
        taught = Examples(
            features[train_rows].astype(np.float32),
            [table.texts[r] for r in train_rows],
            gold[train_rows],
            train_rows.tolist(),
        )
        fit = fit_all(taught, pseudo, features, store, table.texts, n, len(labels))
        return fit.probs.argmax(axis=1)

    rng = np.random.default_rng(args.seed)
    timings: list[float] = []
    for k in [0, *ks]:
        for _ in range(1 if k == 0 else args.draws):
            train_rows = draw(gold, k, rng) if k else np.zeros(0, dtype=np.int64)
            test = np.setdiff1d(everyone, train_rows)
            t0 = time.perf_counter()
            predicted = ours(train_rows)
            timings.append(time.perf_counter() - t0)
            record("taught classifier (this app)", k, predicted[test], test)
            if k:
                record("TF-IDF + logistic regression", k, tfidf_baseline(table.texts, gold, train_rows, test), test)
        print(f"K={k} done", file=sys.stderr)
    print_tables(args.file, profile.name, labels, usable, ks, results, print)
    print(
        f"\nscoring {usable} tickets: {scoring:.0f} s; one fit of the taught classifier (with self-training)"
        f": median {statistics.median(timings):.2f} s"
    )
    return 0


def _or(value: np.ndarray | None, default: np.ndarray) -> np.ndarray:
    return default if value is None else value


def print_tables(
    path: str,
    name: str,
    labels: list[str],
    usable: int,
    ks: list[int],
    results: dict[str, dict[int, list[tuple[float, float]]]],
    out: Callable[[str], None],
) -> None:
    out(f"{path}: {usable} tickets, {len(labels)} labels; prompt: {name}")
    for metric, index in (("accuracy", 0), ("macro-F1", 1)):
        out(f"\n{metric} (mean ± std over draws; taught tickets excluded from the test)\n")
        out("| method | untaught | " + " | ".join(f"K={k}" for k in ks) + " |")
        out("|---|---:|" + "---:|" * len(ks))
        for method, by_k in results.items():
            cells = []
            for k in [0, *ks]:
                values = [v[index] for v in by_k.get(k, [])]
                if not values:
                    cells.append("–")
                elif len(values) == 1:
                    cells.append(f"{values[0]:.3f}")
                else:
                    cells.append(f"{statistics.mean(values):.3f} ± {statistics.stdev(values):.3f}")
            out(f"| {method} | " + " | ".join(cells) + " |")
