"""The joint head (engine/learning/_joint.py, issue 34): untaught, a field with few labels gets the joint fit's
labels mixed into its first pass; a field with many labels is as before; teaching fades it out."""

from __future__ import annotations

import numpy as np
import pytest
from test_learning import TOPICS, no_prompt, nothing

from triage_gui.engine.learning import Examples, LexicalStore, RowSource, fit_all
from triage_gui.engine.learning import _joint as joint

WORDS = dict(TOPICS)


def tickets(n: int, labels: int, seed: int = 0):
    """Tickets cued by their words; their embeddings (unit vectors) carry the label weakly."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, labels, n)
    centres = rng.normal(0, 1, (labels, 32))
    texts = [f"Hello, {rng.choice(WORDS[k % 3])} for case {k} please (ticket {i})" for i, k in enumerate(y)]
    emb = centres[y] * 0.3 + rng.normal(0, 1, (n, 32))
    emb = (emb / np.linalg.norm(emb, axis=1, keepdims=True)).astype(np.float32)
    return texts, emb, y, centres


def pseudo(labels: int, centres: np.ndarray) -> Examples:
    words = [f"{' '.join(WORDS[k % 3])} case {k}" for k in range(labels)]
    emb = (centres / np.linalg.norm(centres, axis=1, keepdims=True)).astype(np.float32)
    values = {"hidden": np.zeros((labels, 0), np.float32), "embeddings": emb, "prompt": no_prompt(labels)[:, :0]}
    return Examples(values, words, np.arange(labels), [None] * labels, np.full(labels, 5.0))


def first_pass(texts, emb, labels, centres, taught: Examples | None = None):
    store = LexicalStore()
    store.add(texts)
    n = len(texts)
    source = RowSource({"hidden": np.zeros((n, 0), np.float32), "embeddings": emb,
                        "prompt": np.full((n, labels), np.nan, np.float32)}, n)  # fmt: skip
    return fit_all(taught or nothing(), pseudo(labels, centres), source, store, labels), store


def test_untaught_a_field_with_few_labels_gets_the_joint_fits_labels_mixed_in(monkeypatch):
    texts, emb, _, centres = tickets(300, 3)
    fit, store = first_pass(texts, emb, 3, centres)
    assert fit.head.joint is not None and fit.head.joint.share == pytest.approx(joint.SHARE)
    assert fit.head.joint_words() == "; the joint head mixed in at 0.9"  # classify's line and the status bar say so
    monkeypatch.setattr(joint, "SHARE", 0.0)
    today, _ = first_pass(texts, emb, 3, centres)
    assert today.head.joint is None
    n = len(texts)
    found = fit.head.joint.proba(fit.head.scaler.apply("embeddings", emb), {k: store.counts(k, slice(0, n))
                                                                          for k in ("word", "char")})  # fmt: skip
    mixed = 0.1 * np.log(np.clip(today.probs, 1e-9, 1)) + 0.9 * np.log(np.clip(found, 1e-9, 1))
    assert (fit.probs.argmax(1) == mixed.argmax(1)).all()
    assert (fit.probs.argmax(1) != today.probs.argmax(1)).any()  # it changes labels a user sees
    # a row's labels are the same read from its text (a row labelled as it arrives in the window)
    values = {"hidden": np.zeros((n, 0), np.float32), "embeddings": emb, "prompt": np.full((n, 3), np.nan, np.float32)}
    again = fit.head.predict_texts(values, texts, store)
    assert np.allclose(again, fit.probs, atol=1e-5)


def test_a_field_with_many_labels_is_as_before(monkeypatch):
    texts, emb, _, centres = tickets(300, 20, seed=1)
    fit, _ = first_pass(texts, emb, 20, centres)
    assert fit.head.joint is None and fit.head.joint_words() == ""
    monkeypatch.setattr(joint, "SHARE", 0.0)
    today, _ = first_pass(texts, emb, 20, centres)
    assert np.array_equal(fit.probs, today.probs)


def test_teaching_fades_the_joint_head_out():
    assert joint.share(3, 0) == pytest.approx(0.9)
    assert joint.share(3, 3) == pytest.approx(0.9 * joint.FADE / (joint.FADE + 1))
    assert joint.share(3, 30) == 0.0  # 10 taught a label: not fitted at all
    assert joint.share(7, 0) == 0.0
    texts, emb, y, centres = tickets(300, 3, seed=2)
    rows = np.concatenate([np.flatnonzero(y == k)[:10] for k in range(3)])
    values = {"hidden": np.zeros((len(rows), 0), np.float32), "embeddings": emb[rows],
              "prompt": np.full((len(rows), 3), np.nan, np.float32)}  # fmt: skip
    taught = Examples(values, [texts[r] for r in rows], y[rows], rows.tolist())
    fit, _ = first_pass(texts, emb, 3, centres, taught)
    assert fit.head.joint is None
