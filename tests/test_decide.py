"""One decision per ticket (``engine.table.decide``): the export's row, the ticket table's cells and the random
checks show what it returns, on a table with every kind of row (refined, first pass, taught, checked, out of
date, not labelled yet, a problem record)."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt

from triage_gui.engine.table import NewRow, Source, TicketScore, TicketTable, decide
from triage_gui.engine.tickets._export import RESULT_COLUMNS, result_row
from triage_gui.gui.tickets.ticket_model import Col, TicketTableModel
from triage_gui.session.checks import RandomChecks

LABELS = ["billing", "technical", "account"]
LOW = 0.6


def scores(rows: list[int], seed: int) -> list[TicketScore]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in rows:
        logprobs = rng.normal(-2.0, 1.5, len(LABELS))
        probs = np.exp(logprobs) / np.exp(logprobs).sum()
        out.append(TicketScore(LABELS[int(probs.argmax())], float(probs.max()), probs.tolist(), logprobs.tolist(), 9.0))
    return out


def every_kind() -> tuple[TicketTable, RandomChecks]:
    """Rows 0-2 refined (read by this version's language model, then learned), 3-4 first pass (the head alone),
    5 out of date (the previous version's label), 6 not labelled yet, 7 a problem record; 1 taught, 3 checked
    (right as shown: a check teaches it), 5 taught while out of date, 4 the language model's label differs."""
    table = TicketTable()
    texts = [f"ticket {i}" for i in range(7)] + [""]
    table.add([NewRow({"text": t}, t, problem="blank ticket text" if not t else None) for t in texts])
    table.start_version(0, LABELS, [0.1, -0.2, 0.1])
    table.apply(list(range(6)), scores(list(range(6)), 0), 0)
    table.start_version(1, LABELS, [0.0, 0.3, -0.3])
    table.apply([0, 1, 2], scores([0, 1, 2], 1), 1)
    head = np.array([[0.7, 0.2, 0.1], [0.2, 0.5, 0.3], [0.45, 0.1, 0.45], [0.3, 0.35, 0.35], [0.1, 0.1, 0.8]])
    table.set_head(head.astype(np.float32), rows=np.arange(5))
    table.teach([1], "account")
    checks = RandomChecks(table, seed=0)
    checks.queue.append(3)
    assert checks.record([3], None) == [3]
    table.teach([3], table.label(3))
    table.teach([5], "technical")
    return table, checks


def test_decide_gives_what_every_reader_of_the_table_gives():
    table, _ = every_kind()
    decisions = [decide(table, row, LOW) for row in range(len(table))]
    assert [d.source for d in decisions] == [
        Source.LEARNED, Source.TAUGHT, Source.LEARNED, Source.TAUGHT, Source.FIRST, Source.TAUGHT, 0, 0,
    ]  # fmt: skip
    assert [d.stale for d in decisions] == [False] * 5 + [True, False, False]
    assert [d.taught for d in decisions] == [False, True, False, True, False, True, False, False]
    low = table.low_confidence_mask(LOW)
    for row, d in enumerate(decisions):
        assert d.label == table.label(row) and d.source.shown == table.source(row)
        assert d.confidence == table.confidence(row) and d.stale == table.stale(row)
        assert d.low_confidence == bool(low[row]) == table.is_low_confidence(row, LOW)
        assert (d.model_label, d.llm_label) == (table.model_label(row), table.llm_label(row))
        assert d.first_pass == table.first_pass_label(row)
    assert any(d.low_confidence for d in decisions) and not all(d.low_confidence for d in decisions if d.label)
    assert [d.llm_label is not None for d in decisions] == [True, True, True] + [False] * 5  # read by this version
    assert table.llm_ids().tolist() == [table.label_vocab.index(d.llm_label) if d.llm_label else -1 for d in decisions]


def test_the_export_row_and_the_table_cells_show_the_decision(qtbot):
    table, checks = every_kind()
    model = TicketTableModel(table, lambda rows, label: None)
    model.set_low_confidence(LOW)
    column = {c: model.column_index(c) for c in (Col.LABEL, Col.FROM, Col.CONFIDENCE)}

    def cell(row: int, col: Col, role: Qt.ItemDataRole = Qt.ItemDataRole.DisplayRole):
        return model.data(model.index(row, column[col]), role)

    width = len(table.columns)
    written = []
    for row in range(len(table)):
        d = decide(table, row, LOW)
        out = dict(zip(RESULT_COLUMNS, result_row(table, row, "h", False)[width:]))
        written.append(out["label"])
        assert out["label"] == (d.written or "")
        if d.written is not None:
            assert out["label_source"] == d.source.shown and out["confidence"] == f"{d.confidence:.4f}"
        label = cell(row, Col.LABEL)
        if d.label is None:
            assert label == "" and cell(row, Col.FROM) == ""
            continue
        mark = "✓ " if d.taught else "⚠ " if d.low_confidence else ""
        assert label == f"{mark}{d.label}{' …' if d.stale and not d.taught else ''}"
        assert cell(row, Col.FROM) == ("out of date" if d.stale else d.source.shown)
        assert cell(row, Col.CONFIDENCE) == ("" if d.stale else f"{d.confidence:.2f}")
        assert cell(row, Col.LABEL, Qt.ItemDataRole.EditRole) == d.label
        assert cell(row, Col.LABEL, Qt.ItemDataRole.FontRole).bold() == d.taught
    # Out of date but taught: the export writes the lead's label; out of date alone it writes none.
    assert written[5] == "technical" and written[6] == "" and written[7] == ""
    [record] = checks.checks.values()
    assert (record.shown, record.stage) == (decide(table, 3).label, Source.FIRST.shown)  # checked on its first pass
