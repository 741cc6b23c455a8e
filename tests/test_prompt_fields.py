"""The prompt file with several fields (issue 34): old files load and save as they were written, a
``"fields"`` file loads and saves losslessly, and each field is the one-field prompt holding it alone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from triage_gui.engine.prompt import (
    CheckRecord,
    Example,
    Field,
    Label,
    ProfileError,
    PromptProfile,
    VersionRecord,
    load_profile,
)

DATA = Path(__file__).parent / "data"
RELEASE = DATA / "prompt-release-one-field.json"  # saved by the release before fields, byte for byte


def two_fields() -> PromptProfile:
    queue = PromptProfile.load(RELEASE)
    priority = Field(
        "priority",
        "How urgent is the ticket?",
        [Label("low", "can wait"), Label("medium"), Label("high", "money or access at risk")],
        [Example("My card was stolen", "high")],
        ordered=True,
        taught=[Example("How do I change my PIN?", "low")],
        checks=[CheckRecord("Card stolen", "high", "medium", 1, 1, 1764600200.0)],
    )
    first = queue.fields[0]
    first.name = "queue"
    return PromptProfile.of_fields([first, priority], "Queue and priority", queue.extra)


def test_a_file_the_release_wrote_loads_and_saves_byte_for_byte(tmp_path):
    profile = load_profile(RELEASE)
    assert not profile.several and len(profile.fields) == 1
    assert len(profile.taught) == 3 and len(profile.history) == 2 and len(profile.checks) == 2
    profile.save(tmp_path / "again.json")
    assert (tmp_path / "again.json").read_bytes() == RELEASE.read_bytes()


def test_a_one_field_prompt_is_its_only_field():
    profile = PromptProfile.load(RELEASE)
    alone = profile.field_profile(0)
    assert alone.to_dict() == {k: v for k, v in profile.to_dict().items() if k != "x_newer_key"}
    assert alone.content_hash() == profile.content_hash()


def test_several_fields_are_a_fields_list_with_each_entry_naming_its_field(tmp_path):
    profile = two_fields()
    profile.validate()
    profile.save(tmp_path / "two.json")
    data = json.loads((tmp_path / "two.json").read_text(encoding="utf-8"))
    assert "instruction" not in data and "labels" not in data
    assert [f["name"] for f in data["fields"]] == ["queue", "priority"]
    assert set(data["fields"][1]) == {"name", "instruction", "labels", "examples", "ordered"}
    assert data["fields"][1]["ordered"] is True and "ordered" not in data["fields"][0]
    assert data["fields"][1]["labels"][0] == {"name": "low", "description": "can wait"}
    assert data["fields"][1]["examples"] == [{"text": "My card was stolen", "label": "high"}]
    assert {(t["text"], t["field"]) for t in data["taught"]} >= {("How do I change my PIN?", "priority")}
    assert [t["field"] for t in data["taught"]].count("queue") == 3
    assert {c["field"] for c in data["checks"]} == {"queue", "priority"}
    assert {h["field"] for h in data["history"]} == {"queue"}
    assert data["x_newer_key"] == {"kept": True}


def test_load_save_load_is_equal_and_each_field_keeps_its_own_taught_set(tmp_path):
    profile = two_fields()
    profile.save(tmp_path / "two.json")
    again = load_profile(tmp_path / "two.json")
    assert again == profile
    again.save(tmp_path / "three.json")
    assert (tmp_path / "three.json").read_bytes() == (tmp_path / "two.json").read_bytes()
    queue, priority = again.field_profile(0), again.field_profile(1)
    assert [e.label for e in priority.taught] == ["low"] and len(queue.taught) == 3
    assert [c.right for c in priority.checks] == ["high"] and len(queue.checks) == 2
    assert priority.history == [] and len(queue.history) == 2
    assert priority.ordered and not queue.ordered
    assert priority.label_names == ["low", "medium", "high"]


def test_a_field_alone_is_a_one_field_prompt_with_the_same_content_hash():
    profile = two_fields()
    alone = PromptProfile.load(RELEASE)
    assert profile.field_profile(0).content_hash() == alone.content_hash()
    assert profile.content_hash() not in {profile.field_profile(i).content_hash() for i in range(2)}


def test_a_hand_written_fields_file_without_a_schema_version_and_entries_without_a_field(tmp_path):
    data = {
        "name": "hand",
        "fields": [
            {"name": "queue", "instruction": "Route it.", "labels": [{"name": "a"}, {"name": "b"}], "examples": []},
            {"name": "priority", "instruction": "How urgent?", "labels": [{"name": "low"}, {"name": "high"}]},
        ],
        "taught": [{"text": "t", "label": "a"}, {"text": "t", "label": "high", "field": "priority"}],
    }
    (tmp_path / "p.json").write_text(json.dumps(data), encoding="utf-8")
    profile = load_profile(tmp_path / "p.json")
    assert [(e.text, e.label) for e in profile.field_profile(0).taught] == [("t", "a")]
    assert [(e.text, e.label) for e in profile.field_profile(1).taught] == [("t", "high")]


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (lambda d: d["fields"][1].update(name="Queue") or d.update(taught=[]), "duplicates field 1"),
        (lambda d: d["fields"][1].update(name=" ") or d.update(taught=[]), "Field 2 has no name"),
        (lambda d: d["fields"][1].update(instruction=""), "Field 'priority': The instruction is empty."),
        (lambda d: d["fields"][1].update(ordered="yes"), "ordered must be true or false"),
        (lambda d: d["taught"].append({"text": "x", "label": "low", "field": "urgency"}), "field 'urgency'"),
        (lambda d: d.update(instruction="shared"), "both a fields list and a top-level 'instruction'"),
        (lambda d: d.update(fields=[]), "at least one field"),
    ],
)
def test_a_wrong_fields_file_is_refused_in_one_sentence(tmp_path, change, says):
    data = two_fields().to_dict()
    change(data)
    (tmp_path / "p.json").write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises((ValueError, ProfileError), match=says.replace("(", r"\(").replace(")", r"\)")):
        load_profile(tmp_path / "p.json")


def test_an_ordered_one_field_prompt_keeps_the_release_shape_with_one_key_more():
    profile = PromptProfile.load(RELEASE)
    profile.ordered = True
    data = profile.to_dict()
    assert data["schema_version"] == 2 and data["ordered"] is True and "fields" not in data
    assert PromptProfile.from_dict(json.loads(profile.to_json())) == profile


_names = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=8)
_examples = st.lists(st.builds(Example, _names, _names), max_size=3)
_checks = st.builds(CheckRecord, _names.filter(str.strip), _names, _names, st.just(1), st.just(0), st.just(5.0))


@st.composite
def _fields(draw) -> list[Field]:
    count = draw(st.integers(1, 3))
    names = draw(st.lists(_names, min_size=count, max_size=count, unique=True))
    out = []
    for name in names:
        labels = draw(st.lists(st.builds(Label, _names, _names), min_size=1, max_size=3))
        taught = draw(_examples)
        history = [VersionRecord(1, "2026-12-01 14:05", {"instruction": "i", "labels": []}, "abc")]
        checks = draw(st.lists(_checks))
        out.append(
            Field(
                name,
                draw(_names),
                labels,
                draw(_examples),
                draw(st.booleans()),
                taught,
                draw(st.sampled_from([[], history])),
                checks,
            )
        )
    return out


@settings(max_examples=60, deadline=None)
@given(_fields(), st.booleans())
def test_any_prompt_of_fields_survives_save_and_load(fields, unnamed):
    if unnamed and len(fields) == 1:
        fields[0].name = ""  # the release's one-field shape
    profile = PromptProfile.of_fields(fields, "p")
    again = PromptProfile.from_dict(json.loads(profile.to_json()))
    assert again == profile
    assert again.to_json() == profile.to_json()


def test_the_windows_document_saves_its_field_and_keeps_the_others(tmp_path):
    """The window edits the first field of a prompt of several until it edits fields (a later session): a
    Save there writes its edit and taught set, keeps the other fields with theirs, and is a version."""
    import asyncio
    from dataclasses import replace

    from triage_gui.session.prompt_document import PromptDocument

    two_fields().save(tmp_path / "prompt.json")
    doc = PromptDocument(tmp_path / "prompt.json", tmp_path / "draft.json", delay=0.02, draft_delay=0.02)
    doc.start()

    async def body():
        edited = replace(doc.saved, instruction="Route the ticket to one queue.")
        doc.save(edited, [("My card is lost", "account and security")])
        await asyncio.sleep(0.05)
        doc.close()

    asyncio.run(body())
    saved = load_profile(tmp_path / "prompt.json")
    assert [f.name for f in saved.fields] == ["queue", "priority"]
    assert saved.instruction == "Route the ticket to one queue."
    assert [(e.text, e.label) for e in saved.field_profile(0).taught] == [("My card is lost", "account and security")]
    assert saved.field_profile(1) == two_fields().field_profile(1)
    assert saved.history[-1].prompt["instruction"] == "Route the ticket to one queue."


def test_an_examples_label_in_another_case_is_the_prompts_label():
    """A checker's file wrote an example's label "HIGH" for the label "high": refused ("Example 1 uses unknown
    label 'HIGH'") while a taught ticket or a --train value so written was taught (W12). It is read as "high"; a
    label that is none of the prompt's is still refused."""
    fields = {
        "fields": [
            {"name": "queue", "instruction": "Which queue?", "labels": [{"name": "cards"}, {"name": "Tech Support"}],
             "examples": [{"text": "Card lost", "label": "CARDS"}, {"text": "App crash", "label": "tech  support"}]},
            {"name": "priority", "instruction": "How urgent?", "labels": [{"name": "low"}, {"name": "high"}],
             "examples": [{"text": "Fraud on my card", "label": " High "}]},
        ]
    }  # fmt: skip
    profile = PromptProfile.from_dict(fields)
    profile.validate()
    assert [e.label for e in profile.fields[0].examples] == ["cards", "Tech Support"]
    assert [e.label for e in profile.fields[1].examples] == ["high"]
    one = PromptProfile.from_dict(
        {"schema_version": 2, "instruction": "Which queue?", "labels": [{"name": "cards"}, {"name": "cash"}],
         "examples": [{"text": "My card is lost", "label": "Cards"}]}
    )  # fmt: skip
    assert one.examples[0].label == "cards" and not one.problems()
    fields["fields"][1]["examples"][0]["label"] = "urgent"
    with pytest.raises(ProfileError, match="unknown label 'urgent'"):
        PromptProfile.from_dict(fields).validate()
