"""Labels from the tickets themselves (engine/grouping, ``discover``): every ticket in exactly one group or
in "fits no group", the same tickets give the same groups, the lead's edits keep every ticket, accepted
groups are a valid prompt, and ``discover`` writes every input row once."""

from __future__ import annotations

import csv

import numpy as np
import pytest
from helpers import banking_tickets, write_tickets

from triage_gui.engine.grouping import MAX_NONE, MIN_ANCHORS, as_profile, capture, chosen, find_groups, group_table
from triage_gui.engine.prompt import load_profile
from triage_gui.engine.table import NewRow, TicketTable

TOPICS = [
    ("card", "lost stolen card blocked"),
    ("refund", "refund money returned item"),
    ("transfer", "bank transfer pending account"),
    ("password", "forgot password reset login"),
]


def blobs(per: int = 40, seed: int = 0, dim: int = 24) -> tuple[np.ndarray, list[str], np.ndarray]:
    """Four well-separated topics: unit vectors near four directions, texts from each topic's words."""
    rng = np.random.default_rng(seed)
    centres = np.eye(dim, dtype=np.float32)[: len(TOPICS)] * 3
    vectors, texts, gold = [], [], []
    for t, (_, words) in enumerate(TOPICS):
        for i in range(per):
            vectors.append(centres[t] + rng.normal(0, 0.35, dim))
            picked = rng.choice(words.split(), 3, replace=False)
            texts.append(f"my {' '.join(picked)} please help {i}")
            gold.append(t)
    return np.asarray(vectors, dtype=np.float32), texts, np.asarray(gold)


def accounted(grouping, n: int) -> None:
    """Every ticket in exactly one group or in none, the sizes adding up."""
    assert len(grouping.assignment) == n == len(set(grouping.rows.tolist()))
    assert set(grouping.assignment.tolist()) <= set(range(-1, len(grouping.groups)))
    assert sum(g.size for g in grouping.groups) + grouping.none_count == n
    assert all(g.size > 0 for g in grouping.groups)


def test_well_separated_topics_are_found_with_their_words_and_everyone_is_accounted_for():
    vectors, texts, gold = blobs()
    grouping = find_groups(np.arange(len(texts)), vectors, texts)
    accounted(grouping, len(texts))
    assert len(grouping.groups) == len(TOPICS)
    assert grouping.none_count <= MAX_NONE * len(texts)
    for group in grouping.groups:
        members = gold[grouping.assignment == grouping.groups.index(group)]
        assert len(set(members.tolist())) == 1  # each group one topic
        topic_words = TOPICS[int(members[0])][1].split()
        assert group.terms[0] in " ".join(topic_words) and group.terms[0] in group.name.lower()
        assert len(group.representatives) == 5 and group.description


def test_a_ticket_far_from_every_group_fits_none_and_is_still_there():
    vectors, texts, _ = blobs()
    vectors = np.vstack([vectors, np.eye(24, dtype=np.float32)[20:22] * 3])  # two tickets off every topic
    texts += ["the weather is nice", "what time is it"]
    grouping = find_groups(np.arange(len(texts)), vectors, texts, groups=4)
    accounted(grouping, len(texts))
    assert (grouping.assignment[-2:] == -1).all()
    assert grouping.names_by_row()[len(texts) - 1] == ""


def test_the_same_tickets_give_the_same_groups():
    vectors, texts, _ = blobs(seed=3)
    one = find_groups(np.arange(len(texts)), vectors, texts)
    two = find_groups(np.arange(len(texts)), vectors.copy(), list(texts))
    assert one.assignment.tolist() == two.assignment.tolist()
    assert [g.name for g in one.groups] == [g.name for g in two.groups]


def test_asking_for_more_or_fewer_groups_gives_that_many():
    vectors, texts, _ = blobs()
    grouping = find_groups(np.arange(len(texts)), vectors, texts)
    for k in (2, 6):
        other = grouping.regrouped(k)
        accounted(other, len(texts))
        assert len(other.groups) == k


def test_merge_split_drop_and_rename_keep_every_ticket():
    vectors, texts, _ = blobs()
    grouping = find_groups(np.arange(len(texts)), vectors, texts).renamed(3, "Logins", "Can't sign in.")
    merged = grouping.merged([0, 1])
    accounted(merged, len(texts))
    assert len(merged.groups) == 3 and merged.groups[0].size == grouping.groups[0].size + grouping.groups[1].size
    assert merged.groups[2].name == "Logins"  # an untouched group keeps the lead's name
    split = merged.split(0)
    accounted(split, len(texts))
    assert len(split.groups) == 4 and split.groups[0].size + split.groups[1].size == merged.groups[0].size
    dropped = split.dropped(1)
    accounted(dropped, len(texts))
    assert dropped.none_count == split.none_count + split.groups[1].size
    assert [g.name for g in dropped.groups] == [split.groups[i].name for i in (0, 2, 3)]
    with pytest.raises(ValueError):
        grouping.merged([2])


def test_accepted_groups_are_a_valid_prompt_with_descriptions_and_examples():
    vectors, texts, _ = blobs()
    grouping = find_groups(np.arange(len(texts)), vectors, texts).renamed(0, "Cards", "Lost or stolen cards.")
    profile = as_profile(grouping, texts)
    profile.validate()
    assert profile.label_names == [g.name for g in grouping.groups]
    assert profile.labels[0].description == "Lost or stolen cards."
    assert all(label.description for label in profile.labels)
    assert {e.label for e in profile.examples} == set(profile.label_names)
    assert profile.examples[0].text == texts[grouping.groups[0].representatives[0]]


def test_a_table_is_grouped_from_its_stored_first_pass_embeddings():
    vectors, texts, _ = blobs()
    table = TicketTable()
    table.add([NewRow({"text": t}, t) for t in texts])
    with pytest.raises(ValueError, match="first pass"):
        group_table(table)
    table.apply_embeddings(list(range(len(texts))), vectors)
    grouping = group_table(table)
    accounted(grouping, len(texts))
    assert len(grouping.groups) == len(TOPICS)


def test_discover_writes_every_row_with_its_group_and_a_prompt_the_window_opens(tmp_path):
    from triage_gui.commands import main

    tickets = [*banking_tickets(60), ""]  # a row without text keeps its place, with no group
    path = write_tickets(tmp_path / "in.csv", tickets, ("id", [str(i) for i in range(len(tickets))]))
    out, prompt = tmp_path / "groups.csv", tmp_path / "draft.json"
    assert main(["discover", str(path), "--column", "text", "--out", str(out), "--prompt-out", str(prompt)]) == 0
    with open(out, encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [r["id"] for r in rows] == [str(i) for i in range(len(tickets))]
    assert rows[-1]["group"] == ""
    profile = load_profile(prompt)
    assert {r["group"] for r in rows} - {""} == set(profile.label_names)
    assert sum(r["group"] == "" for r in rows) <= MAX_NONE * len(rows) + 1
    assert main(["discover", str(path), "--out", str(out), "--groups", "3"]) == 0
    with open(out, encoding="utf-8", newline="") as handle:
        assert len({r["group"] for r in csv.DictReader(handle)} - {""}) == 3


def confidently_labelled(vectors: np.ndarray, texts: list[str], gold: np.ndarray) -> TicketTable:
    """A table whose every ticket is embedded and labelled with 0.95 confidence: its topic's label, "card"
    for the tickets past the topics (gold -1)."""
    table = TicketTable()
    table.add([NewRow({"text": t}, t) for t in texts])
    table.apply_embeddings(list(range(len(texts))), vectors)
    table.start_version(1, [name for name, _ in TOPICS], [])
    probs = np.full((len(texts), len(TOPICS)), 0.05 / (len(TOPICS) - 1), dtype=np.float32)
    probs[np.arange(len(texts)), np.maximum(gold, 0)] = 0.95
    table.set_head(probs)
    return table


def test_off_topic_tickets_labelled_confidently_are_proposed_as_a_new_label_taking_over_from_theirs():
    vectors, texts, gold = blobs()
    rng = np.random.default_rng(1)
    planted = np.eye(24, dtype=np.float32)[10] * 3 + rng.normal(0, 0.35, (15, 24)).astype(np.float32)
    vectors = np.vstack([vectors, planted])
    texts += [f"what is the weather forecast tomorrow {i}" for i in range(15)]
    gold = np.concatenate([gold, np.full(15, -1)])
    table = confidently_labelled(vectors, texts, gold)
    assert all(table.confidence(r) == pytest.approx(0.95) for r in range(len(texts)))
    with pytest.raises(ValueError, match="fit every ticket"):  # without anchors, confidence alone finds none
        group_table(table, poorly_fitted=True)
    taught = np.concatenate([np.flatnonzero(gold == t)[:6] for t in range(len(TOPICS))])  # 24 anchors
    assert len(taught) >= MIN_ANCHORS
    grouping = group_table(table, poorly_fitted=True, anchors=vectors[taught])
    grouped = set(grouping.rows.tolist())
    assert set(range(len(texts) - 15, len(texts))) <= grouped  # every planted ticket
    assert len(grouped) <= 15 + 0.1 * (len(texts) - 15)  # and few of the tickets the labels fit
    planted_group = grouping.group_of()[len(texts) - 1]
    weather = grouping.groups[planted_group]
    assert weather.takes_from.get("card", 0) >= 12  # what the new label would take over, and from which
    assert "far from every label's examples" in grouping.note
    rows, note = chosen(capture(table, True, anchors=vectors[taught[: MIN_ANCHORS - 1]]))
    assert not len(rows) and f"once the labels have {MIN_ANCHORS} examples" in note  # said so, not guessed


def test_a_loose_group_and_a_small_one_are_marked_not_hidden(capsys):
    from triage_gui.commands.discover import report

    vectors, texts, _ = blobs()
    rng = np.random.default_rng(2)
    spread = (np.eye(24, dtype=np.float32)[12] * 3 + rng.normal(0, 0.8, (40, 24))).astype(np.float32)
    tiny = (np.eye(24, dtype=np.float32)[16] * 3 + rng.normal(0, 0.2, (3, 24))).astype(np.float32)
    vectors = np.vstack([vectors, spread, tiny])
    texts += [f"assorted question number {i}" for i in range(40)] + [f"fax machine {i}" for i in range(3)]
    grouping = find_groups(np.arange(len(texts)), vectors, texts)
    accounted(grouping, len(texts))
    of = {g.name: g for g in grouping.groups}
    loose = [g for g in grouping.groups if g.loose]
    assert len(loose) == 1 and all(160 <= r < 200 for r in loose[0].representatives)  # the spread topic
    small = [g for g in grouping.groups if g.small]
    assert len(small) == 1 and small[0].size == 3 and small[0].flags == ["small"]
    assert all(not g.flags for g in of.values() if g not in loose + small)
    report(grouping, len(texts), 0.1)
    err = capsys.readouterr().err
    assert f"{loose[0].name} [loose]" in err and f"{small[0].name} [small]" in err
    assert "1 loose group" in err and "1 small group" in err and "fit no group well" in err


def test_tickets_the_first_pass_has_not_read_yet_are_said_to_be_left_out():
    vectors, texts, _ = blobs()
    table = TicketTable()
    table.add([NewRow({"text": t}, t) for t in texts])
    table.apply_embeddings(list(range(150)), vectors[:150])  # the first pass still reading the last 10
    grouping = group_table(table)
    accounted(grouping, 150)
    assert "10 tickets the first pass has not read yet are not grouped" in grouping.note
    table.apply_embeddings(list(range(150, 160)), vectors[150:])
    assert group_table(table).note == ""
