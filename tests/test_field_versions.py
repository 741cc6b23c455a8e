"""The further fields' flips and versions as plain functions (``session/field_versions.py``): flips compare label
names across two tables' own vocabularies, a field keeps its previous labels when only another field changed,
and a field's versions are keyed by its own part of the prompt."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from test_session_fields import QUEUE
from test_window_field_gold import PRIORITY

from triage_gui.engine.prompt import Label, Measure, PromptProfile
from triage_gui.session.field_versions import applied, flips_between, previous_tables, scored


class Labelled:
    """The part of a field's table the flips read: its rows' label ids in its own vocabulary, and texts."""

    def __init__(self, labels: list[str | None], vocab: list[str]) -> None:
        self.label_vocab = vocab
        self.ids = np.array([-1 if x is None else vocab.index(x) for x in labels], dtype=np.int32)
        self.texts = [f"ticket {i}" for i in range(len(labels))]

    def __len__(self) -> int:
        return len(self.ids)

    def label_ids(self) -> np.ndarray:
        return self.ids


def test_flips_compare_names_across_vocabularies_where_both_rows_have_a_label():
    before = Labelled(["low", "high", None, "medium", "urgent", "low"], ["low", "medium", "high", "urgent"])
    after = Labelled(["low", "low", "high", "medium", "high"], ["high", "medium", "low"])  # other ids, one row fewer
    flips, count = flips_between(before, after)  # type: ignore[arg-type]
    assert flips == [(1, "ticket 1", "high", "low"), (4, "ticket 4", "urgent", "high")] and count == 2
    assert flips_between(None, after) == ([], 0)  # type: ignore[arg-type]
    assert flips_between(before, after, limit=1) == ([(1, "ticket 1", "high", "low")], 2)  # type: ignore[arg-type]


@dataclass(frozen=True)
class Spec:
    name: str
    profile: PromptProfile


def test_a_field_keeps_its_previous_labels_unless_its_own_part_or_taught_set_changed():
    one, two = PromptProfile.of_fields([QUEUE, PRIORITY]).field_profile(1), PromptProfile("Other", PRIORITY.labels)
    shown, kept = object(), object()
    specs, taught = [Spec("priority", one), Spec("urgency", one)], [{}, {"a": "low"}]
    previous = previous_tables(specs, taught, [shown, shown], [kept, kept], specs, taught)  # type: ignore[arg-type, list-item]
    assert previous == [kept, kept]  # nothing of theirs changed (another field did)
    new = [Spec("priority", two), Spec("urgency", one), Spec("new", one)]
    after = previous_tables(specs, taught, [shown, None], [kept, kept], new, [{}, {"a": "high"}, {}])  # type: ignore[arg-type, list-item]
    assert after == [shown, kept, None]  # its part changed; its taught set did (none fitted yet); a new field


def test_a_further_fields_versions_are_its_own_part_and_a_score_adds_the_version_it_measured():
    profile = PromptProfile.of_fields([QUEUE, PRIORITY], "Queue and priority")
    first = applied(profile, [[]])
    assert [r.number for r in first[0]] == [1] and first[0][0].prompt["instruction"] == PRIORITY.instruction
    assert applied(profile, first) == first  # the same part: no new version
    swapped = PromptProfile.of_fields([QUEUE, replace(PRIORITY, labels=[Label("low")])])
    measure = Measure(0.5, 0, 36, "g", "t", "now")
    kept = scored(first, 1, swapped.field_profile(1), measure)  # its fit landed before the window numbered it
    assert [(r.number, r.accuracy) for r in kept[0]] == [(1, None), (2, 0.5)]
    assert applied(swapped, kept) == kept  # numbered already
    other = Measure(0.9, 0, 36, "g", "t", "later")
    assert scored(kept, 1, swapped.field_profile(1), other)[0][-1].accuracy == 0.5  # the first score stays
