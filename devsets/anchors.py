#!/usr/bin/env python3
"""Anchor against ours on a two-field dev set (issue 34), on the same split and the same taught tickets.

The held-back check's anchor is a logistic regression on all-MiniLM-L6-v2 embeddings plus word and character
TF-IDF. This script fits that anchor here and runs ours, ``classify --fast --train`` with the set's two-field
prompt (in this process, through the command line's own entry point), on the same tickets:

- test: 600 tickets drawn with seed 0 (``--test``), labelled by both;
- taught: K tickets per label of the first field (0, 10 and 50: ``--ks``), drawn from the other tickets,
  with both fields' gold labels taught for each (``--train`` gets a column per field); ``--draws`` draws of
  the taught set per K > 0 (draw d uses seed 1 + d);
- untaught (K = 0): ours is ``classify --fast --no-taught`` (the prompt's examples and label descriptions
  only); the anchor is trained on the same pseudo-tickets ours learns from untaught
  (``engine.learning.prompt_examples``: the few-shot examples, each label's description and its
  "name: description" line). With K > 0 the anchor learns from the taught tickets alone (the held-back
  check's anchor), and ``anchor+prompt`` from the taught tickets and those pseudo-tickets (what ours sees).

The anchor's features: the app's bundled encoder (``triage_gui.engine.model.load_encoder``, so no Hub),
its normalised 384 values; word 1-2-gram and within-word character 3-5-gram TF-IDF (sublinear tf, each row
L2-normalised), their vocabulary and IDF fitted on the test and taught texts together (unsupervised, as the
app's n-gram store is fitted on the loaded tickets); all three side by side, scikit-learn's
``LogisticRegression(C=10, max_iter=2000)``.

Usage (after ``python devsets/build.py``; one core is plenty):
    PYTHONPATH=$PWD python devsets/anchors.py bank-fields [--draws 3] [--ks 0,10,50] [--markdown]
Prints accuracy per field and K, mean ± sd over the draws, and ours minus the anchor.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import io
import os
import statistics
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def read_set(name: str) -> tuple[list[dict[str, str]], Path]:
    path = HERE / "build" / f"{name}.csv"
    if not path.exists():
        raise SystemExit(f"{path} is missing: run python devsets/build.py ../shared/data first")
    with open(path, encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle)), HERE / f"{name}-prompt.json"


def taught_rows(rows: list[dict[str, str]], pool: np.ndarray, field: str, k: int, seed: int) -> np.ndarray:
    """K rows of each of ``field``'s gold labels, drawn from ``pool``."""
    rng = np.random.default_rng(seed)
    gold = np.array([rows[i][field] for i in pool], dtype=object)
    chosen: list[int] = []
    for label in sorted(set(gold)):
        where = pool[gold == label]
        chosen += rng.choice(where, min(k, len(where)), replace=False).tolist()
    return np.array(sorted(chosen), dtype=np.int64)


def write_csv(path: Path, rows: list[dict[str, str]], columns: list[str]) -> None:
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(columns)
        writer.writerows([r[c] for c in columns] for r in rows)


def ours(test: Path, prompt: Path, train: Path | None, names: list[str], folder: Path) -> tuple[dict, str]:
    """``classify --fast`` (``--no-taught``; ``--train`` when given): each field's labels, row by row, and
    what it said about learning (its stderr lines that start with "labels learned")."""
    from triage_gui.commands import main

    out = folder / "out.csv"
    argv = ["classify", str(test), "--prompt", str(prompt), "--column", "text", "--fast", "--no-taught"]
    argv += ["--out", str(out)] + (["--train", str(train)] if train else [])
    said = io.StringIO()
    with contextlib.redirect_stderr(said):
        code = main(argv)
    if code:
        raise SystemExit(f"classify failed ({code}):\n{said.getvalue()}")
    with open(out, encoding="utf-8", newline="") as handle:
        result = list(csv.DictReader(handle))
    learned = [line.strip() for line in said.getvalue().splitlines() if line.startswith("labels learned")]
    return {n: [r[f"{n}_label"] for r in result] for n in names}, "\n".join(learned)


class Anchor:
    """LR on the bundled encoder's embeddings plus word and character TF-IDF (module docstring)."""

    def __init__(self, texts: list[str]) -> None:
        from sklearn.feature_extraction.text import TfidfVectorizer

        from triage_gui.engine.model import load_encoder

        self.encoder = load_encoder("bundled", "cpu")
        self.cache: dict[str, np.ndarray] = {}
        self.word = TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True).fit(texts)
        self.char = TfidfVectorizer(analyzer="char_wb", ngram_range=(3, 5), sublinear_tf=True).fit(texts)

    def features(self, texts: list[str]):
        import scipy.sparse as sp

        missing = [t for t in dict.fromkeys(texts) if t not in self.cache]
        for a in range(0, len(missing), 32):
            chunk = missing[a : a + 32]
            for t, v in zip(chunk, np.asarray(self.encoder.encode(chunk), dtype=np.float32), strict=True):
                self.cache[t] = v
        embedded = sp.csr_matrix(np.stack([self.cache[t] for t in texts]))
        return sp.hstack([embedded, self.word.transform(texts), self.char.transform(texts)], format="csr")

    def predict(self, train: list[str], labels: list[str], test_x) -> list[str]:
        from sklearn.linear_model import LogisticRegression

        if len(set(labels)) < 2:
            return [labels[0]] * test_x.shape[0]
        model = LogisticRegression(C=10.0, max_iter=2000).fit(self.features(train), labels)
        return list(model.predict(test_x))


def accuracy(predicted: list[str], gold: list[str]) -> float:
    return float(np.mean([p == g for p, g in zip(predicted, gold, strict=True)]))


def far(predicted: list[str], gold: list[str], order: list[str]) -> int:
    """Tickets labelled two or more steps from their gold label (an ordered field: low < medium < high)."""
    return sum(abs(order.index(p) - order.index(g)) >= 2 for p, g in zip(predicted, gold, strict=True))


def shown(values: list[float]) -> str:
    if len(values) == 1:
        return f"{values[0]:.3f}"
    return f"{statistics.mean(values):.3f} ± {statistics.stdev(values):.3f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("set", help="bank-fields or clinc-fields (devsets/build/SET.csv, devsets/SET-prompt.json)")
    parser.add_argument("--test", type=int, default=600)
    parser.add_argument("--ks", default="0,10,50")
    parser.add_argument("--draws", type=int, default=3)
    parser.add_argument("--prompt", help="another prompt file for ours and the anchor's pseudo-tickets")
    parser.add_argument("--markdown", action="store_true", help="also print the table as Markdown")
    parser.add_argument("--verbose", action="store_true", help="print what classify said it learned")
    args = parser.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    import torch

    torch.set_num_threads(1)
    from triage_gui.engine.learning import prompt_examples
    from triage_gui.engine.prompt import load_profile

    rows, prompt = read_set(args.set)
    prompt = Path(args.prompt) if args.prompt else prompt
    profile = load_profile(str(prompt))
    names = [f.name for f in profile.fields]
    order = np.random.default_rng(0).permutation(len(rows))
    test, pool = np.sort(order[: args.test]), np.sort(order[args.test :])
    test_rows = [rows[i] for i in test]
    ks = [int(k) for k in args.ks.split(",")]
    draws = {k: [taught_rows(rows, pool, names[0], k, 1 + d) for d in range(args.draws)] if k else [None] for k in ks}
    every_taught = sorted({int(i) for k in ks for t in draws[k] if t is not None for i in t})
    anchor = Anchor([r["text"] for r in test_rows] + [rows[i]["text"] for i in every_taught])
    test_x = anchor.features([r["text"] for r in test_rows])
    pseudo = {n: prompt_examples(profile.field_profile(i)) for i, n in enumerate(names)}
    labels_of = {n: profile.field_profile(i).label_names for i, n in enumerate(names)}
    ordered = [n for f, n in zip(profile.fields, names, strict=True) if f.ordered]
    apart: dict[tuple[str, str, int], list[float]] = {}
    found: dict[tuple[str, str, int], list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="anchors-") as name:
        folder = Path(name)
        test_csv = folder / "test.csv"
        write_csv(test_csv, test_rows, ["text"])
        for k in ks:
            for d, taught in enumerate(draws[k]):
                train_csv = None
                if taught is not None:
                    train_csv = folder / "train.csv"
                    write_csv(train_csv, [rows[i] for i in taught], ["text", *names])
                labelled, said = ours(test_csv, prompt, train_csv, names, folder)
                for n in names:
                    gold = [r[n] for r in test_rows]
                    texts = [] if taught is None else [rows[i]["text"] for i in taught]
                    taught_labels = [] if taught is None else [rows[i][n] for i in taught]
                    extra_texts = [t for t, _ in pseudo[n]]
                    extra_labels = [labels_of[n][j] for _, j in pseudo[n]]
                    plain = (texts, taught_labels) if texts else (extra_texts, extra_labels)
                    alone = anchor.predict(*plain, test_x)
                    found.setdefault(("anchor", n, k), []).append(accuracy(alone, gold))
                    if n in ordered:
                        apart.setdefault(("anchor", n, k), []).append(far(alone, gold, labels_of[n]))
                        apart.setdefault(("ours", n, k), []).append(far(labelled[n], gold, labels_of[n]))
                    both = anchor.predict(texts + extra_texts, taught_labels + extra_labels, test_x)
                    found.setdefault(("anchor+prompt", n, k), []).append(accuracy(both, gold))
                    found.setdefault(("ours", n, k), []).append(accuracy(labelled[n], gold))
                line = ", ".join(f"{n} ours {found[('ours', n, k)][-1]:.3f} anchor {found[('anchor', n, k)][-1]:.3f}"
                                 for n in names)  # fmt: skip
                print(f"K={k} draw {d + 1}: {line}", file=sys.stderr)
                if args.verbose and said:
                    print(said, file=sys.stderr)
    print(f"{args.set}: {args.test} test tickets (seed 0), K taught per {names[0]} label, {args.draws} draws")
    print(f"{'field':10} {'K':>3}  {'anchor':>15}  {'anchor+prompt':>15}  {'ours':>15}  {'ours-anchor':>11}")
    table = []
    for n in names:
        for k in ks:
            a, ap, o = (found[(m, n, k)] for m in ("anchor", "anchor+prompt", "ours"))
            gap = statistics.mean(o) - statistics.mean(a)
            print(f"{n:10} {k:>3}  {shown(a):>15}  {shown(ap):>15}  {shown(o):>15}  {gap:>+11.3f}")
            table.append(f"| {n} | {k} | {shown(a)} | {shown(ap)} | {shown(o)} | {gap:+.3f} |")
    for n in ordered:
        for k in ks:
            a, o = (statistics.mean(apart[(m, n, k)]) for m in ("anchor", "ours"))
            print(f"{n} K={k}: two or more steps from gold, mean of draws: anchor {a:.0f}, ours {o:.0f}")
    if args.markdown:
        print("\n| field | K | anchor | anchor + prompt | ours | ours − anchor |\n|---|---|---|---|---|---|")
        print("\n".join(table))
    return 0


if __name__ == "__main__":
    sys.exit(main())
