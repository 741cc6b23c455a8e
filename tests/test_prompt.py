import json
import os
import threading

import pytest

from triage_gui.engine.prompt import Example, Label, ProfileError, PromptProfile, default_profile
from triage_gui.engine.prompt._profile import MAX_PROFILE_BYTES


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
    assert json.loads(path.read_text())["schema_version"] == 2
    assert [p.name for p in tmp_path.iterdir()] == ["p.json"]  # no temp file left behind


def test_taught_tickets_are_kept_with_the_profile_and_old_files_still_load(tmp_path):
    profile = default_profile()
    profile.taught = [Example("where is my card", "account"), Example("refund not showing", "billing")]
    path = tmp_path / "p.json"
    profile.save(path)
    again = PromptProfile.load(path)
    assert again.taught == profile.taught
    assert again.content_hash() == default_profile().content_hash()  # teaching is not what the model reads
    old = default_profile().to_dict()
    old["schema_version"] = 1
    del old["taught"]
    path.write_text(json.dumps(old))
    assert PromptProfile.load(path).taught == []


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


@pytest.mark.parametrize("name", ["\u200b", "\u2060", "\ufeff", "\u200b\u200d\u2060", " \u200b ", "\u3164", "\u0301"])
def test_label_made_of_invisible_characters_has_no_name(name):
    problems = profile_with(["billing", name]).problems()
    assert [p.field for p in problems] == ["labels[1].name"]
    assert "has no name" in problems[0].message


def test_label_names_with_invisible_characters_inside_are_fine():
    assert fields(profile_with(["billing", "te\u200dch", "caf\u0065\u0301"])) == []


def test_label_name_is_limited_to_64_characters():
    assert fields(profile_with(["billing", "x" * 64])) == []
    problems = profile_with(["billing", "x" * 10_000]).problems()
    assert [p.field for p in problems] == ["labels[1].name"]
    assert "at most 64 characters" in problems[0].message


def test_number_of_labels_is_limited_to_100():
    assert fields(profile_with([f"label {i}" for i in range(100)])) == []
    problems = profile_with([f"label {i}" for i in range(101)]).problems()
    assert [p.field for p in problems] == ["labels"]
    assert "101 labels" in problems[0].message and "at most 100" in problems[0].message


def test_prompt_file_over_the_size_limit_is_refused_without_reading_it(tmp_path):
    path = tmp_path / "huge.json"
    data = default_profile().to_dict()
    data["instruction"] = "x" * MAX_PROFILE_BYTES
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError, match=r"huge\.json is larger than 16 MB"):
        PromptProfile.load(path)


@pytest.mark.parametrize(("make", "reason"), [("directory", "is a directory"), ("device", "not a regular file")])
def test_prompt_path_that_is_not_a_regular_file_is_refused(tmp_path, make, reason):
    if make == "directory":
        path = tmp_path
    else:
        path = "/dev/null"  # a character device, like /dev/zero, which used to end in a MemoryError
        if not os.path.exists(path):
            pytest.skip("no /dev/null here")
    with pytest.raises(ValueError, match=reason) as info:
        PromptProfile.load(path)
    assert str(path) in str(info.value)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_prompt_path_that_is_a_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "prompt.json"
    os.mkfifo(fifo)
    outcome: list[BaseException | None] = []

    def load():
        try:
            PromptProfile.load(fifo)
            outcome.append(None)
        except BaseException as exc:
            outcome.append(exc)

    thread = threading.Thread(target=load, daemon=True)
    thread.start()
    thread.join(5)
    if thread.is_alive():  # blocked opening the FIFO: release it with a writer that closes at once
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        thread.join(5)
        pytest.fail("loading a FIFO as a prompt profile blocked")
    assert isinstance(outcome[0], ValueError)
    assert "not a regular file" in str(outcome[0]) and "prompt.json" in str(outcome[0])


def test_prompt_file_that_is_not_utf8_names_the_file(tmp_path):
    path = tmp_path / "latin.json"
    data = default_profile().to_dict()
    data["instruction"] = "Classez le ticket, café compris."
    path.write_bytes(json.dumps(data, ensure_ascii=False).encode("cp1252"))
    with pytest.raises(ValueError, match=r"latin\.json is not UTF-8"):
        PromptProfile.load(path)


def test_prompt_file_with_byte_order_mark_still_loads(tmp_path):
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + default_profile().to_json().encode())
    assert PromptProfile.load(path) == default_profile()


def test_labels_that_render_the_same_are_duplicates():
    """ "billing" and "bill\u200bing" (a zero-width space inside) look alike in every list: refused."""
    from triage_gui.engine.prompt import Label, PromptProfile, label_key

    for twin in ("bill\u200bing", "\ufeffbilling", "bil\u00adling", "Billing\u2060"):
        profile = PromptProfile("Route it.", [Label("billing"), Label(twin), Label("technical")])
        assert any("duplicates label 1" in p.message for p in profile.problems()), twin
        assert label_key(twin) == label_key("billing")
