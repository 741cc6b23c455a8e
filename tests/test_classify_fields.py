"""``classify`` with a prompt of two fields (issue 34): each field's labels, confidences and sources are
exactly those of the one-field prompt holding that field alone with the same taught tickets (first pass
with ``--fast``, and the full run with the language model), and teaching one field leaves the other's
labels as they were."""

from __future__ import annotations

import csv
import io
import json

import pytest
from helpers import ROOT, banking_tickets
from test_cli import run_cli

from triage_gui.engine.prompt import Example, Field, Label, PromptProfile

QUEUES = ROOT / "devsets" / "queues5-prompt.json"
PRIORITY = Field(
    "priority",
    "Read the customer ticket and say how urgent it is. Answer with low, medium or high.",
    [
        Label("low", "a question or how-to that can wait"),
        Label("medium", "a payment, transfer or top-up that went wrong"),
        Label("high", "money lost, a stolen card, fraud, a locked account"),
    ],
    [Example("Someone used my stolen card in a shop", "high"), Example("How do I order a second card?", "low")],
    ordered=True,
)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Tickets, a train file with a queue and a priority column (some cells blank), the two-field prompt
    (one priority ticket taught in it) and each field alone as a one-field prompt file."""
    folder = tmp_path_factory.mktemp("fields")
    texts = banking_tickets(60)
    tickets, train = texts[:24], texts[24:]
    with open(folder / "tickets.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "text"])
        writer.writerows([f"T{i}", t] for i, t in enumerate(tickets))
    queues = PromptProfile.load(QUEUES)
    names, levels = queues.label_names, PRIORITY.label_names
    with open(folder / "train.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["text", "queue", "priority"])
        for i, text in enumerate(train):  # a blank cell teaches nothing for that field
            writer.writerow([text, "" if i % 4 == 3 else names[i % len(names)], "" if i % 3 == 2 else levels[i % 3]])
    queue = queues.fields[0]
    queue.name = "queue"
    priority = Field(**{**vars(PRIORITY), "taught": [Example(texts[0], "high")]})
    two = PromptProfile.of_fields([queue, priority], "Queue and priority")
    two.save(folder / "two.json")
    for i, name in enumerate(("queue", "priority")):
        two.field_profile(i).save(folder / f"{name}.json")
    for name, keep in (("tickets", 9), ("train", 13)):  # the language model's run: fewer rows to score
        lines = (folder / f"{name}.csv").read_text(encoding="utf-8").splitlines(keepends=True)
        (folder / f"{name}-small.csv").write_text("".join(lines[:keep]), encoding="utf-8")
    return folder


def rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def classify(files, prompt: str, *more: str, tickets: str = "tickets.csv") -> list[dict[str, str]]:
    done = run_cli("classify", str(files / tickets), "--prompt", str(files / prompt), *more)
    assert done.returncode == 0, done.stderr
    return rows(done.stdout)


def same_as_alone(files, *more: str, small: str = "") -> None:
    tickets, train = f"tickets{small}.csv", str(files / f"train{small}.csv")
    both = classify(files, "two.json", "--train", train, *more, tickets=tickets)
    assert list(both[0])[:2] == ["id", "text"]
    assert list(both[0])[2:] == [
        *(f"{f}_{c}" for f in ("queue", "priority") for c in ("label", "confidence", "source")),
        "prompt_hash",
        "reason",
        "language",
    ]
    assert {r["language"] for r in both} - {""} == {"en"}, "each ticket's language, as a one-field export writes it"
    assert [r["id"] for r in both] == [f"T{i}" for i in range(8 if small else 24)]
    for name in ("queue", "priority"):
        alone = classify(files, f"{name}.json", "--train", train, "--train-label", name, *more, tickets=tickets)
        mine = [(r[f"{name}_label"], r[f"{name}_confidence"], r[f"{name}_source"]) for r in both]
        assert mine == [(r["label"], r["confidence"], r["label_source"]) for r in alone], name
        assert all(label for label, _, _ in mine)
    assert {r["priority_label"] for r in both} <= {"low", "medium", "high"}


def test_each_fields_first_pass_is_the_one_field_prompts(files):
    same_as_alone(files, "--fast")


def test_each_fields_full_labels_are_the_one_field_prompts(files, loaded):
    """8 tickets and 12 taught (the language model scores both): 14.5 minutes with 24 and 36 on two
    cores shared with a dozen other processes."""
    same_as_alone(files, small="-small")


def test_teaching_one_field_leaves_the_others_labels_as_they_were(files, tmp_path):
    untaught = classify(files, "two.json", "--fast", "--no-taught")
    with open(files / "train.csv", encoding="utf-8") as handle:
        train = list(csv.DictReader(handle))
    only = tmp_path / "priority-only.csv"
    with open(only, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["text", "priority"])
        writer.writerows([r["text"], r["priority"]] for r in train)
    taught = classify(files, "two.json", "--fast", "--no-taught", "--train", str(only))
    queue = ("queue_label", "queue_confidence", "queue_source")
    assert [tuple(r[c] for c in queue) for r in taught] == [tuple(r[c] for c in queue) for r in untaught]
    assert [r["priority_label"] for r in taught] != [r["priority_label"] for r in untaught]


def test_a_train_files_columns_named_in_another_case_teach_their_fields(files, tmp_path):
    """A help desk's export names its columns its own way ("Queue", " PRIORITY "): refused as "no column named
    after a field" before, the whole taught set lost; each now teaches its field, as the exact names do."""
    exact = classify(files, "two.json", "--fast", "--no-taught", "--train", str(files / "train.csv"))
    with open(files / "train.csv", encoding="utf-8") as handle:
        train = list(csv.DictReader(handle))
    other = tmp_path / "export.csv"
    with open(other, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["text", "Queue", " PRIORITY "])
        writer.writerows([r["text"], r["queue"], r["priority"]] for r in train)
    done = run_cli(
        "classify", str(files / "tickets.csv"), "--prompt", str(files / "two.json"), "--fast", "--no-taught",
        "--train", str(other),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "export.csv: the column 'Queue' teaches the field 'queue'" in done.stderr
    assert rows(done.stdout) == exact


def test_a_train_file_with_a_header_alone_teaches_nothing_and_labels_as_untaught(files, tmp_path):
    """A checker's K = 0 written as a file: the header, no row. It was refused ("has a header but no tickets",
    exit 2) with one field or several, and nothing was labelled; it teaches nothing, said on stderr."""
    untaught = classify(files, "two.json", "--fast", "--no-taught")
    empty = tmp_path / "none.csv"
    empty.write_text("text,queue,priority\n", encoding="utf-8")
    for prompt, more in (("two.json", ()), ("queue.json", ("--train-label", "queue"))):
        done = run_cli(
            "classify", str(files / "tickets.csv"), "--prompt", str(files / prompt), "--fast", "--no-taught",
            "--train", str(empty), *more,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert "none.csv has a header but no tickets. It teaches nothing." in done.stderr
        labelled = rows(done.stdout)
        column = "queue_label" if prompt == "two.json" else "label"
        assert [r[column] for r in labelled] == [r["queue_label"] for r in untaught]


def test_train_label_names_one_column_and_a_train_file_without_field_columns_is_refused(files, tmp_path):
    done = run_cli(
        "classify", str(files / "tickets.csv"), "--prompt", str(files / "two.json"), "--fast",
        "--train", str(files / "train.csv"), "--train-label", "queue",
    )  # fmt: skip
    assert done.returncode != 0 and "columns named after its fields" in done.stderr
    plain = tmp_path / "plain.csv"
    plain.write_text("text,label\nmy card is lost,cards\n", encoding="utf-8")
    done = run_cli(
        "classify", str(files / "tickets.csv"), "--prompt", str(files / "two.json"), "--fast", "--train", str(plain)
    )
    assert done.returncode != 0 and "no column named after a field" in done.stderr
    assert json.loads((files / "two.json").read_text(encoding="utf-8"))["fields"][1]["name"] == "priority"


def test_eval_measures_every_field_named_and_counts_an_ordered_fields_far_misses(files, tmp_path, loaded):
    gold = tmp_path / "gold.csv"
    with open(files / "train.csv", encoding="utf-8") as handle:
        train = [r for r in csv.DictReader(handle) if r["queue"] and r["priority"]]
    with open(gold, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["text", "q", "p"])
        writer.writerows([r["text"], r["queue"], r["priority"]] for r in train)
    result = run_cli(
        "eval", str(gold), "--prompt", str(files / "two.json"), "--gold", "queue=q,priority=p",
        "--train-per-label", "1", "--draws", "1",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "## field 'queue' (gold column 'q')" in out and "## field 'priority' (gold column 'p')" in out
    queue, priority = out.split("## field 'priority'")
    assert "two steps apart" not in queue
    assert "two steps apart (ordered labels low < medium < high" in priority
    assert "| calibrated prompt |" in priority and "| majority class |" in priority
    wrong = run_cli("eval", str(gold), "--prompt", str(files / "two.json"), "--gold", "q")
    assert wrong.returncode != 0 and "--gold queue=COLUMN,priority=COLUMN" in wrong.stderr


def test_bench_prints_each_fields_cost_and_the_first_pass_of_three_against_one(files, loaded, capsys):
    """bench's fields table, in process (the whole ``bench`` run took over 10 minutes on the shared machine:
    its naive loops are what the bench tests in test_cli time)."""
    from triage_gui.commands.bench import print_fields
    from triage_gui.engine.model import load_encoder

    two = PromptProfile.load(files / "two.json")
    third = Field("mood", "How does the customer sound?", [Label("calm"), Label("annoyed"), Label("angry")])
    three = PromptProfile.of_fields([*two.fields, third], "three")
    print_fields(banking_tickets(8), three, loaded, load_encoder("bundled", "cpu"), 4)
    out = capsys.readouterr().out
    assert "3 fields (queue, priority, mood), 8 tickets" in out
    for line in ("| queue (5 labels) |", "| priority (3 labels) |", "| mood (3 labels) |", "| all 3 |"):
        assert line in out
    assert "first pass: the encoder" in out and "for the first field alone" in out
    assert "language model: " in out and "for 3 fields (" in out


def test_column_subject_body_reads_the_train_files_tickets_as_the_inputs(files, tmp_path):
    """``--column subject,body`` read the tickets but refused ``--train`` ("train.csv has no column
    'subject,body'"), with one field or several: a help desk's export labels the same two columns. The train
    file's tickets are read as the input's, so a taught ticket labels its own row."""
    with open(files / "train.csv", encoding="utf-8") as handle:
        train = [r for r in csv.DictReader(handle) if r["queue"] and r["priority"]][:12]
    both = tmp_path / "both.csv"
    with open(both, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["subject", "body", "queue", "priority"])
        writer.writerows(["" if i % 3 == 0 else f"Ticket {i}", r["text"], r["queue"], r["priority"]]
                         for i, r in enumerate(train))  # fmt: skip
    for prompt, more in (("two.json", ()), ("queue.json", ("--train-label", "queue"))):
        done = run_cli(
            "classify", str(both), "--prompt", str(files / prompt), "--fast", "--no-taught",
            "--column", "subject,body", "--train", str(both), *more,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        out = rows(done.stdout)
        label = "queue_label" if prompt == "two.json" else "label"
        assert [r[label] for r in out] == [r["queue"] for r in train], prompt
        assert "text 'subject + body'" in done.stderr


def test_column_and_train_label_named_in_another_case_find_the_train_files_columns(files, tmp_path):
    """``--column text --train-label queue`` with a train file whose columns are 'Text' and 'Queue' was refused
    ("train.csv has no column 'text'"), though a field's column is found so: one column but for case and the
    spaces around it is the one named, and the taught tickets label their own rows."""
    with open(files / "train.csv", encoding="utf-8") as handle:
        train = [r for r in csv.DictReader(handle) if r["queue"]][:10]
    upper = tmp_path / "upper.csv"
    with open(upper, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["Text", "Queue"])
        writer.writerows([r["text"], r["queue"]] for r in train)
    done = run_cli(
        "classify", str(upper), "--prompt", str(files / "queue.json"), "--fast", "--no-taught",
        "--column", "text", "--train", str(upper), "--train-label", "queue",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert [r["label"] for r in rows(done.stdout)] == [r["queue"] for r in train]
    assert "(text 'Text', label 'Queue')" in done.stderr


def test_eval_gold_finds_a_field_and_its_column_named_in_another_case(files, capsys):
    """``eval --gold queue=queue,priority=priority`` on a prompt whose fields are 'Queue' and 'Priority' (and
    a file whose columns are too) was refused ("give field=column for fields of the prompt"), though
    ``classify --train`` finds those columns; each is the one so named but for case and spaces, said."""
    from triage_gui.commands.evaluate import gold_pairs

    fields = PromptProfile.load(files / "two.json").fields
    for f, name in zip(fields, ("Queue", "Priority"), strict=True):
        f.name = name
    two = PromptProfile.of_fields(fields, "Queue and priority")
    pairs = gold_pairs("queue=queue, priority = Priority ", two, ["text", "Queue", "priority"])
    assert pairs == [(0, "Queue"), (1, "priority")]
    assert "the column 'Queue' is the gold of the field 'Queue'" in capsys.readouterr().err
    with pytest.raises(ValueError, match="no column 'urgency' for field 'Priority'"):
        gold_pairs("queue=queue,priority=urgency", two, ["text", "Queue", "priority"])
    with pytest.raises(ValueError, match="give field=column for fields of the prompt"):
        gold_pairs("team=queue", two, ["text", "Queue", "priority"])


def test_eval_refuses_a_fields_gold_column_without_its_labels_before_any_field_is_measured(files, monkeypatch, capsys):
    """``--gold queue=queue,priority=queue`` (the priority's gold column holding queue names): the queue was
    measured in full (the language model loaded, every ticket scored, every K drawn), then the run ended with
    exit 2 on the priority. Every field's gold column is checked first now: one line, nothing measured."""
    from triage_gui.commands import evaluate, main

    def measured(args):
        raise AssertionError(f"measured {args.gold!r} before refusing")

    monkeypatch.setattr(evaluate, "eval_one", measured)
    train = str(files / "train.csv")
    argv = ["eval", train, "--prompt", str(files / "two.json"), "--gold", "queue=queue,priority=queue"]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert "only 0 rows of 'queue' hold one of the labels of 'priority' (low, medium, high)" in err, err
