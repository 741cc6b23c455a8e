import json

import pytest

from triage_gui.engine.prompt import Example, Label, ProfileError, PromptProfile, default_profile


def profile_with(labels, examples=()):
    return PromptProfile("Classify.", [Label(n) for n in labels], [Example(text, label) for text, label in examples])


def fields(profile):
    return [p.field for p in profile.problems()]


def test_default_profile_is_valid_and_has_the_seed_labels():
    profile = default_profile()
    profile.validate()
    assert profile.label_names == ["billing", "technical", "account"]


@pytest.mark.parametrize(
    ("labels", "field"),
    [
        (["billing", ""], "labels[1].name"),
        (["billing", "Billing"], "labels[1].name"),
        (["billing", " billing "], "labels[1].name"),
        (["billing", "tech\nnical"], "labels[1].name"),
        (["billing"], "labels"),
    ],
)
def test_bad_labels_point_at_the_field(labels, field):
    assert field in fields(profile_with(labels))


def test_example_with_unknown_label_is_refused():
    profile = profile_with(["a", "b"], [("ticket", "c")])
    assert fields(profile) == ["examples[0].label"]
    with pytest.raises(ProfileError) as info:
        profile.validate()
    assert "unknown label 'c'" in str(info.value)


def test_empty_instruction_is_refused():
    profile = PromptProfile("  ", [Label("a"), Label("b")])
    assert fields(profile) == ["instruction"]


def test_save_and_load_round_trip(tmp_path):
    profile = default_profile()
    path = tmp_path / "p.json"
    profile.save(path)
    assert PromptProfile.load(path) == profile
    assert json.loads(path.read_text())["schema_version"] == 1
    assert [p.name for p in tmp_path.iterdir()] == ["p.json"]  # no temp file left behind


def test_unknown_schema_version_is_refused(tmp_path):
    path = tmp_path / "p.json"
    data = default_profile().to_dict()
    data["schema_version"] = 99
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError, match="schema_version"):
        PromptProfile.load(path)


def test_broken_json_says_where(tmp_path):
    path = tmp_path / "p.json"
    path.write_text('{"schema_version": 1, "instruction": ')
    with pytest.raises(ValueError, match="line 1"):
        PromptProfile.load(path)


def test_hash_changes_with_content_not_name():
    a = default_profile()
    b = default_profile()
    b.name = "renamed"
    assert a.content_hash() == b.content_hash()
    b.labels[0].description += " and more"
    assert a.content_hash() != b.content_hash()
