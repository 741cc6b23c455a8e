"""A head is one row of ``engine/learning/_head_table.py``: a sixth head registered there alone (here a
test-only row over a table column) is fitted, weighted out of fold, evaluated and shown with no other
change; and the weight search that replaced the whole grid picks the grid's weights."""

from __future__ import annotations

import itertools
from types import SimpleNamespace

import numpy as np
import pytest

from triage_gui.commands.evaluate import Dev, head_parts, heads_alone
from triage_gui.engine.learning import Examples, LexicalStore, row_source
from triage_gui.engine.learning import _head_table as head_table
from triage_gui.engine.learning._combination import PULL, STEP, choose_weights, combine, describe
from triage_gui.engine.table import NewRow, TicketTable

LABELS = ["billing", "technical", "account"]


def hint_values(table: TicketTable, rows: np.ndarray) -> np.ndarray:
    """The file's "hint" column, one-hot over the labels: a derived feature no other head reads."""
    out = np.zeros((len(rows), len(LABELS)), np.float32)
    for i, row in enumerate(rows):
        value = table.value(int(row), "hint")
        if value in LABELS:
            out[i, LABELS.index(value)] = 1.0
    return out


HINT = head_table.TableFeatures(
    "hint", lambda t, n: hint_values(t, np.arange(n)), lambda t, rows: hint_values(t, np.asarray(rows))
)
SIXTH = head_table.HeadRow("hint", HINT, "hint column", "hint-column", default=0.0, no_encoder=0.0, c=1.0)


@pytest.fixture
def sixth(monkeypatch):
    """The one place a head is registered: a row in the table."""
    monkeypatch.setattr(head_table, "HEADS", [*head_table.HEADS, SIXTH])


def hinted_table(n: int = 300) -> tuple[TicketTable, np.ndarray]:
    """Tickets whose text, embedding and (unscored) LLM state carry nothing; a "hint" column that is right
    nine times in ten. The last 30 rows are not embedded yet."""
    rng = np.random.default_rng(0)
    gold = rng.integers(0, 3, n)
    hints = [LABELS[g] if rng.random() < 0.9 else LABELS[(g + 1) % 3] for g in gold]
    table = TicketTable()
    table.add([NewRow({"text": f"ticket number {i}", "hint": h}, f"ticket number {i}") for i, h in enumerate(hints)])
    table.start_version(0, LABELS, [0, 0, 0])
    junk = rng.normal(0, 1, (n - 30, 24)).astype(np.float32)
    table.apply_embeddings(list(range(n - 30)), junk / np.linalg.norm(junk, axis=1, keepdims=True))
    return table, gold


def test_a_sixth_head_in_the_table_is_fitted_weighted_evaluated_and_shown(sixth):
    table, gold = hinted_table()
    store = LexicalStore()
    store.add(table.texts)
    dev = Dev(table.texts, LABELS, gold, row_source(table), Examples.concat([]), store)
    taught = np.concatenate([np.flatnonzero(gold[:270] == k)[:20] for k in range(3)])  # 60: weights chosen
    fit, chosen = dev.teach(taught)
    assert "hint" in fit.head.linear  # fitted
    assert chosen.first_weights is not None and chosen.first_weights["hint"] >= 0.3  # weighted, out of fold
    assert chosen.weights["hint"] >= 0.3
    rest = np.setdiff1d(np.arange(len(table)), taught)
    assert not np.isnan(fit.probs).any()  # rows with only the hint and n-grams (not embedded) are labelled too
    assert (fit.probs[rest].argmax(axis=1) == gold[rest]).mean() > 0.8
    alone = heads_alone(fit.head, head_parts(fit.head, dev.source, store))  # eval's per-head rows
    assert (alone["hint-column head alone"][rest] == gold[rest]).mean() > 0.8
    assert "encoder head alone" in alone
    assert "hint column 0." in describe(chosen.first_weights)  # shown: the weights in words
    assert head_table.in_words() == "Encoder, LLM-state, word, character and hint-column heads and the prompt"


def test_the_status_bar_names_the_tables_heads(sixth, qapp):
    from PySide6.QtWidgets import QLabel

    from triage_gui.gui.actions.teach_actions import TeachActions
    from triage_gui.session.status import HeadStatus

    label = QLabel()
    status = HeadStatus("ready", 3, 5, describe({"encoder": 0.5, "hint": 0.5}), 12.0)
    one_field = SimpleNamespace(field_names=[], field_learned=lambda: [])
    actions = SimpleNamespace(_learned_from=lambda taught: "3 taught tickets", session=one_field)
    TeachActions.show_head(actions, status, label)
    assert label.toolTip() == (  # the whole of what the status bar shortens first, then the heads
        "Learned from 3 taught tickets. Encoder, LLM-state, word, character and hint-column heads and the prompt, "
        "weighted hint column 0.5, encoder 0.5. Refit in 12 ms."
    )


def test_a_head_the_table_does_not_know_still_labels_its_rows():
    """Only the table's rows that say so (n-grams, the prompt) cannot label a row alone."""
    nan = np.full((2, 3), np.nan, np.float32)
    probs = np.array([[0.8, 0.1, 0.1], [0.1, 0.1, 0.8]], np.float32)
    out = combine({"encoder": nan, "second encoder": probs, "word": probs}, {"second encoder": 0.5, "word": 0.5})
    assert out.argmax(axis=1).tolist() == [0, 2]
    assert np.isnan(combine({"encoder": nan, "word": probs}, {"word": 1.0})).all()


def grid_weights(oof, labels, default, among):
    """The exhaustive grid the search replaced (every weight vector in steps of 0.1 that sums to one)."""
    heads = [h for h in among if not np.isnan(oof[h][:, 0]).all()]
    logs = {h: np.log(np.clip(oof[h], 1e-6, 1.0)) for h in heads}
    base = np.array([default[h] for h in heads])
    best_score, best = -np.inf, base
    for units in itertools.product(range(STEP + 1), repeat=len(heads)):
        if sum(units) != STEP:
            continue
        w = np.array(units) / STEP
        z, total = np.zeros(oof[heads[0]].shape), np.zeros(len(labels))
        for weight, h in zip(w, heads):
            ok = ~np.isnan(logs[h][:, 0])
            if weight:
                z[ok] += weight * logs[h][ok]
                total[ok] += weight
        if not (total > 0).all():
            continue
        z = z / total[:, None]
        logp = z - z.max(axis=1, keepdims=True)
        logp -= np.log(np.exp(logp).sum(axis=1, keepdims=True))
        score = (logp.argmax(axis=1) == labels).mean() - PULL * np.abs(w - base).sum()
        score -= 1e-3 * -logp[np.arange(len(labels)), labels].mean()
        if score > best_score:
            best_score, best = score, w
    return dict(zip(heads, best))


@pytest.mark.parametrize("seed", range(12))
def test_the_weight_search_picks_the_whole_grids_weights(seed):
    rng = np.random.default_rng(seed)
    n, k = 120, 4
    labels = rng.integers(0, k, n)
    oof = {}
    for h in head_table.names():
        logits = rng.normal(0, 1, (n, k))
        logits[np.arange(n), labels] += rng.uniform(0, 3)
        probs = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
        if h in head_table.llm_heads():
            probs[rng.random(n) < 0.3] = np.nan  # some tickets not scored
        oof[h] = probs.astype(np.float32)
    default = head_table.defaults()
    chosen = choose_weights(oof, labels, np.ones(n, bool), default)
    expected = grid_weights(oof, labels, default, head_table.names())
    assert {h: round(chosen[h], 6) for h in expected} == {h: round(w, 6) for h, w in expected.items()}


def _oof_right_on(n: int, k: int, labels: np.ndarray, right: int, rng: np.random.Generator) -> np.ndarray:
    """Out-of-fold probabilities of a head right (argmax) on the first ``right`` of ``n`` tickets."""
    probs = np.full((n, k), 0.1, np.float32)
    wrong = (labels + 1) % k
    probs[np.arange(n), np.where(np.arange(n) < right, labels, wrong)] = 0.6
    return probs / probs.sum(axis=1, keepdims=True)


def test_a_few_tickets_out_of_fold_do_not_move_the_first_pass_off_its_default_weights():
    """50 taught tickets (10 for each of five queues) where the characters head looks right on 4 more of them
    out of fold than the encoder: noise, not evidence (a draw of queues5 at K=10 moved to "characters 0.9" and
    lost 12.6 points on the tickets not taught); a head right on 20 more of them is evidence and is followed."""
    rng = np.random.default_rng(0)
    n, k = 50, 5
    labels = np.arange(n) % k
    first = head_table.first_heads()
    default = {h: w for h, w in head_table.defaults().items() if h in first}
    total = sum(default.values())
    default = {h: w / total for h, w in default.items()}
    encoder, characters = "encoder", "char"
    oof = {h: _oof_right_on(n, k, labels, 30, rng) for h in first}
    oof[encoder] = _oof_right_on(n, k, labels, 45, rng)
    oof[characters] = _oof_right_on(n, k, labels, 49, rng)
    chosen = choose_weights(oof, labels, np.ones(n, bool), default, first)
    assert {h: round(chosen[h], 1) for h in first} == {h: round(default[h], 1) for h in first}
    oof[encoder] = _oof_right_on(n, k, labels, 25, rng)
    oof[characters] = _oof_right_on(n, k, labels, 50, rng)
    chosen = choose_weights(oof, labels, np.ones(n, bool), default, first)
    assert chosen[characters] > 0.5 > chosen[encoder]


def test_the_encoder_head_reads_what_sets_a_ticket_apart_from_the_files_other_tickets():
    """Every ticket of a bank's file shares the bank part of its embedding; centred on the file's mean, a
    ticket is read by what is its own (untaught bank priority 0.438 -> 0.512 on the dev set), one ticket
    alone keeps its own direction (never a zero vector), and every row stays a unit vector."""
    from triage_gui.engine.learning._examples import Spread

    assert head_table.head("encoder").centre and head_table.head("encoder").scaled
    rng = np.random.default_rng(0)
    shared = np.zeros(8, np.float32)
    shared[0] = 3.0  # the domain every ticket shares
    own = np.zeros((40, 8), np.float32)
    own[np.arange(40), 1 + np.arange(40) % 2] = 1.0  # half the tickets lean one way, half the other
    tickets = shared + own + rng.normal(0, 0.05, (40, 8)).astype(np.float32)
    tickets /= np.linalg.norm(tickets, axis=1, keepdims=True)
    spread = Spread.fit(tickets, centre=True)
    moved = spread.apply(tickets)
    assert np.allclose(np.linalg.norm(moved, axis=1), 1.0, atol=1e-5)
    raw_same = tickets[0] @ tickets[1]  # two tickets that lean different ways: alike on raw embeddings
    assert raw_same > 0.8 and moved[0] @ moved[1] < 0.0  # apart once the shared part is gone
    one = Spread.fit(tickets[:1], centre=True)
    assert np.allclose(one.apply(tickets[:1]), tickets[:1], atol=1e-5)
