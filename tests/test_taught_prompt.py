"""One truth for what the lead taught: ``classify --prompt P`` learns from the taught tickets saved in P,
as the window does, and gives the labels ``--train`` of the same tickets gives; ``--no-taught`` leaves
them out. (A Ray run fits on the driver with the same taught set: ``classify.learn``.)"""

import csv
import io

from helpers import SAMPLE

from triage_gui.commands import main
from triage_gui.engine.learning import prompt_examples
from triage_gui.engine.prompt import Example, default_profile


def labels(path):
    return [(r["label"], r["label_source"]) for r in csv.DictReader(io.StringIO(path.read_text(encoding="utf-8")))]


def test_the_prompts_taught_tickets_give_the_labels_train_gives(tmp_path, loaded, capsys):
    with open(SAMPLE, encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))[:16]
    tickets = tmp_path / "tickets.csv"
    with open(tickets, "w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows([["text"], *[[r["text"]] for r in rows]])
    taught = rows[:10]
    train = tmp_path / "train.csv"
    with open(train, "w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows([["text", "label"], *[[r["text"], r["team"]] for r in taught]])
    profile = default_profile()
    profile.taught = [Example(r["text"], r["team"]) for r in taught]
    prompt = tmp_path / "taught.json"
    profile.save(prompt)

    common = ["classify", str(tickets), "--batch-size", "16", "--threads", "1"]
    assert main([*common, "--train", str(train), "--out", str(tmp_path / "train.csv.out")]) == 0
    assert main([*common, "--prompt", str(prompt), "--out", str(tmp_path / "prompt.csv.out")]) == 0
    err = capsys.readouterr().err
    assert "teaching from 10 taught tickets saved with the prompt" in err
    assert "labels learned from 10 taught tickets" in err and "from 0 taught tickets" not in err
    from_train, from_prompt = labels(tmp_path / "train.csv.out"), labels(tmp_path / "prompt.csv.out")
    assert from_prompt == from_train
    assert from_prompt[:10] == [(r["team"], "taught") for r in taught]
    assert "16 rows read, 16 labelled" in err

    assert main([*common, "--prompt", str(prompt), "--no-taught", "--out", str(tmp_path / "none.csv.out")]) == 0
    assert "labels learned from 0 taught tickets" in capsys.readouterr().err
    assert {source for _, source in labels(tmp_path / "none.csv.out")} <= {"learned", "prompt", "first pass"}


def test_a_train_file_shows_progress_while_its_features_are_computed(tmp_path, loaded, capsys):
    with open(SAMPLE, encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    tickets = tmp_path / "tickets.csv"
    with open(tickets, "w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows([["text"], *[[r["text"]] for r in rows[:4]]])
    train = tmp_path / "train.csv"
    with open(train, "w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows([["text", "label"], *[[r["text"], r["team"]] for r in rows[10:50]]])
    out = tmp_path / "out.csv"
    assert main(["classify", str(tickets), "--train", str(train), "--threads", "1", "--out", str(out)]) == 0
    err = capsys.readouterr().err
    total = 40 + len(prompt_examples(default_profile()))
    assert f"teaching: features of {total} taught and prompt tickets" in err
    assert f"\r{total}/{total} tickets" in err and "for the taught classifier" in err


def test_taught_tickets_with_a_label_no_longer_in_the_prompt_are_set_aside(tmp_path, loaded, capsys):
    """A label renamed by hand leaves its taught tickets behind: one sentence, and the run goes on; a
    500 KB taught ticket is learned from its beginning (MAX_TAUGHT_CHARS) instead of stalling the run."""
    from triage_gui.engine.tickets._taught import MAX_TAUGHT_CHARS

    with open(SAMPLE, encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))[:6]
    tickets = tmp_path / "tickets.csv"
    with open(tickets, "w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows([["text"], *[[r["text"]] for r in rows[:2]]])
    profile = default_profile()
    profile.taught = [Example(r["text"], r["team"]) for r in rows[2:5]]
    profile.taught.append(Example("my invoice is wrong", "accounts payable"))  # no such label any more
    profile.taught.append(Example("refund " * 80_000, profile.label_names[0]))  # 560 KB
    prompt = tmp_path / "taught.json"
    profile.save(prompt)
    out = tmp_path / "out.csv"
    assert main(["classify", str(tickets), "--prompt", str(prompt), "--threads", "1", "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "1 taught ticket saved with the prompt has a label that is no longer a label of the prompt" in err
    assert "(such as 'accounts payable'); it is set aside." in err
    assert f"longer than {MAX_TAUGHT_CHARS:,} characters" in err
    assert "teaching from 4 taught tickets saved with the prompt" in err and len(labels(out)) == 2
