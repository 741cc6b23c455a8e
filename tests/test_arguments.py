"""Bad values get one sentence: every argument range-checked, prompt fields type-checked, look-alike
labels caught; random command lines never end in a traceback."""

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from triage_gui.commands import parse_args
from triage_gui.engine.prompt import PromptProfile, default_profile, label_key


def refusal(capsys, argv):
    with pytest.raises(SystemExit) as exit_info:
        parse_args(argv)
    err = capsys.readouterr().err
    assert exit_info.value.code == 2
    assert len(err.strip().splitlines()) == 1 and err.startswith("ticket-triage: ")
    return err.strip()


@pytest.mark.parametrize(
    ("argv", "reason"),
    [
        (["classify", "t.csv", "--threads", "0"], "--threads: must be at least 1, not 0"),
        (["classify", "t.csv", "--threads", "-4"], "--threads: must be at least 1, not -4"),
        (["eval", "t.csv", "--gold", "q", "--batch-size", "0"], "--batch-size: must be at least 1"),
        (["classify", "t.csv", "--batch-size", "-1"], "--batch-size: must be at least 1"),
        (["classify", "t.csv", "--device", "meta"], "'meta' is no device"),
        (["bench", "--device", "cuda:x"], "is no device"),
        (["classify", "t.csv", "--ray-actors", "2"], "--ray-actors needs --ray"),
        (["classify", "t.csv", "--ray-actors", "0", "--ray", "local"], "--ray-actors: must be at least 1"),
        (["classify", "t.csv", "--train-label", "queue"], "--train-label needs --train"),
        (["eval", "t.csv", "--gold", "q", "--draws", "0"], "--draws: must be at least 1"),
        (["eval", "t.csv", "--gold", "q", "--train-per-label", "2,0"], "not a list of whole numbers"),
        (["bench", "--n", "0"], "--n: must be at least 1"),
        (["classify", "t.csv", "--threads", str(2**70)], "--threads: must be at most 1,024"),
        (["classify", "t.csv", "--threads", "two"], "'two' is not a whole number"),
        (["eval", "t.csv", "--gold", "q", "--seed", "-1"], "--seed: must be a whole number from 0 to 2,147,483,647"),
        (["eval", "t.csv", "--gold", "q", "--seed", str(2**64)], "--seed: must be a whole number from 0"),
        (["eval", "t.csv", "--gold", "q", "--seed", "nan"], "--seed: 'nan' is not a whole number"),
        (["classify", "t.csv", "--out", ""], "--out: is empty; give a value or leave the option out"),
        (["classify", "t.csv", "--prompt", ""], "--prompt: is empty"),
        (["classify", "t.csv", "--model", ""], "--model: is empty"),
        (["classify", "t.csv", "--encoder", " "], "--encoder: is empty"),
        (["gui", "--model", ""], "--model: is empty"),
        (["classify", ""], "file: is empty"),
        (["eval", "t.csv", "--gold", ""], "--gold: is empty"),
        (["classify", "t.csv", "--train", "l.csv", "--no-learning"], "--train teaches the learned classifier, which"),
    ],
)
def test_bad_values_are_refused_in_one_line(capsys, argv, reason):
    assert reason in refusal(capsys, argv)


def test_good_values_parse():
    args = parse_args(
        ["classify", "t.csv", "--threads", "2", "--device", "cuda:1", "--ray", "local", "--ray-actors", "3"]
    )
    assert (args.threads, args.device, args.ray_actors) == (2, "cuda:1", 3)


OPTIONS = {
    "classify": [
        "--threads",
        "--batch-size",
        "--device",
        "--ray-actors",
        "--ray",
        "--column",
        "--train-label",
        "--dtype",
    ],
    "eval": ["--threads", "--batch-size", "--device", "--draws", "--train-per-label", "--seed", "--gold"],
    "bench": ["--threads", "--batch-size", "--device", "--n", "--dtype"],
}
FLAGS = ["--baseline", "--no-learning", "--no-calibration", "--no-taught", "--help", "--version"]
VALUES = (
    st.integers(-(2**70), 2**70).map(str)
    | st.sampled_from(["0", "-4", "1", "cpu", "meta", "cuda:0", "cuda:-1", "2,5", "0,1", "", " ", "nan", "1e3"])
    | st.text(max_size=8)
)


@st.composite
def command_lines(draw):
    command = draw(st.sampled_from([*OPTIONS, "gui", "bogus"]))
    argv = [command]
    if command in ("classify", "eval") and draw(st.booleans()):
        argv.append("tickets.csv")
    for _ in range(draw(st.integers(0, 5))):
        if draw(st.integers(0, 4)) == 0:
            argv.append(draw(st.sampled_from(FLAGS)))
        else:
            argv.append(draw(st.sampled_from(OPTIONS.get(command, ["--device", "--model"]))))
            if draw(st.integers(0, 9)):  # now and then an option without its value
                argv.append(draw(VALUES))
    return argv


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(command_lines())
def test_random_command_lines_exit_0_or_2_with_one_line_never_a_traceback(capsys, argv):
    try:
        parse_args(argv)
    except SystemExit as exc:
        _, err = capsys.readouterr()
        assert exc.code in (0, 2)
        if exc.code == 2:
            assert len(err.strip().splitlines()) == 1 and err.startswith("ticket-triage: ")
            assert "Traceback" not in err


# ------------------------------------------------------------------ prompt fields


def profile_with(**changes) -> dict:
    data = default_profile().to_dict()
    data.update(changes)
    return data


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"labels": [{"name": "billing"}, {"name": ["technical"]}]}, "label 2's name must be text, not a list"),
        ({"labels": [{"name": None}, {"name": "x"}]}, "label 1's name must be text, not null"),
        ({"labels": [{"name": "a"}, {"name": 7}]}, "label 2's name must be text, not a number"),
        ({"labels": [{"name": "a", "description": 1.5}, {"name": "b"}]}, "label 1's description must be text"),
        ({"instruction": None}, "the instruction must be text, not null"),
        ({"labels": {"name": "a"}}, "labels must be a list, not an object"),
        ({"labels": ["a", "b"]}, "label 1 must be an object, not text"),
        ({"examples": [{"text": "x", "label": False}]}, "example 1's label must be text, not true or false"),
        ({"taught": [{"text": None, "label": "billing"}]}, "taught ticket 1's text must be text, not null"),
    ],
)
def test_prompt_fields_of_the_wrong_json_type_are_named(tmp_path, changes, message):
    path = tmp_path / "p.json"
    path.write_text(json.dumps(profile_with(**changes)), encoding="utf-8")
    with pytest.raises(ValueError, match=message) as info:
        PromptProfile.load(path)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    "names",
    [
        ["caf\u00e9", "cafe\u0301"],  # NFC and NFD forms of one word
        ["tech support", "tech  support"],  # an inner double space
        ["Billing", "billing"],
    ],
)
def test_look_alike_labels_are_duplicates(names):
    profile = default_profile()
    profile.labels = [type(profile.labels[0])(n) for n in names]
    assert label_key(names[0]) == label_key(names[1])
    assert any("duplicates label 1" in p.message for p in profile.problems())


def test_a_unicode_line_separator_in_a_label_is_a_line_break():
    profile = default_profile()
    profile.labels[0].name = "bill\u2028ing"
    assert any("line break" in p.message for p in profile.problems())


@pytest.mark.parametrize("name", ["meta", "cuda:x", "xla", "cpu:0"])
def test_the_engine_refuses_an_unknown_device_in_one_sentence(name):
    from triage_gui.engine.model import ModelLoadError
    from triage_gui.engine.model._loader import pick_device

    with pytest.raises(ModelLoadError, match=r"^Unknown device .*; use auto, cpu, cuda, cuda:N or mps\.$"):
        pick_device(name)


def test_a_library_error_keeps_its_traceback_while_our_own_checks_are_one_line(monkeypatch, capsys):
    """A ValueError raised deep inside numpy is a bug to report: its traceback shows (it used to become one
    line, exit 2, like a user's mistake); a ValueError our code raises is still one sentence."""
    import numpy as np
    import pytest

    from triage_gui import commands as cli
    from triage_gui.commands import evaluate

    def broken(args):
        np.zeros(3).reshape(2, 2)  # ValueError from numpy's own frames

    monkeypatch.setattr(evaluate, "run_eval", broken)
    with pytest.raises(ValueError, match="reshape"):
        cli.main(["eval", "x.csv", "--gold", "queue"])

    monkeypatch.undo()
    assert cli.main(["eval", "x.csv", "--gold", "queue", "--strategy", "clever"]) == 2  # raised in triage_gui
    err = capsys.readouterr().err.strip()
    assert err.startswith("ticket-triage: unknown --strategy clever") and "\n" not in err
