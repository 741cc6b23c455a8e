"""Facts with one home: where a label came from (``table.Source``), the low-confidence rule (the table's,
read by the ⚠ mark and the *Confidence below* filter alike), what the model reads (``PROMPT_KEYS``)."""

from __future__ import annotations

import numpy as np

from triage_gui.engine.prompt import PROMPT_KEYS, Example, Label, PromptProfile
from triage_gui.engine.table import NewRow, Source, TicketScore, TicketTable
from triage_gui.session.gold import Filters, row_mask


def table_of(confidences: list[float | None]) -> TicketTable:
    """One row a confidence (None: not labelled), labelled by the prompt."""
    table = TicketTable()
    table.add([NewRow({"text": f"ticket {i}"}, f"ticket {i}") for i in range(len(confidences))])
    table.start_version(0, ["a", "b"], [0, 0])
    rows = [i for i, c in enumerate(confidences) if c is not None]
    scores = [TicketScore("a", c, [c, 1 - c], [np.log(c), np.log(1 - c)], 1.0) for c in confidences if c is not None]
    table.apply(rows, scores, 0)
    return table


def test_the_mark_and_the_filter_keep_the_same_rows():
    table = table_of([0.55, 0.95, None, 0.6, 0.7])
    table.teach([3], "b")  # taught: the lead's own label, never marked, however unsure the classifier was
    marked = [row for row in range(len(table)) if table.is_low_confidence(row, 0.8)]
    mask = row_mask(table, Filters(below_confidence=0.8), None)
    assert mask is not None
    assert marked == np.flatnonzero(mask).tolist() == [0, 4]


def test_a_rows_source_is_one_of_the_enums_words():
    table = table_of([0.9, None, 0.7])
    table.teach([2], "b")
    assert [table.source(row) for row in range(3)] == [Source.PROMPT.shown, "", Source.TAUGHT.shown]
    assert [s.shown for s in Source] == ["", "prompt", "learned", "taught", "first pass"]


def test_the_content_hash_is_what_the_model_reads():
    profile = PromptProfile("Sort it.", [Label("a", "one"), Label("b")], [Example("x", "a")], name="First")
    same = PromptProfile("Sort it.", [Label("a", "one"), Label("b")], [Example("x", "a")], name="Renamed")
    same.taught = [Example("y", "b")]
    assert profile.content_hash() == same.content_hash()  # name and taught set: read by no model
    changes = {"instruction": "Sort it!", "labels": [{"name": "a"}, {"name": "c"}], "examples": []}
    assert set(changes) == set(PROMPT_KEYS)
    for key, value in changes.items():  # each part the model reads changes the hash
        changed = PromptProfile.from_dict({**profile.to_dict(), key: value})
        assert changed.content_hash() != profile.content_hash(), key
