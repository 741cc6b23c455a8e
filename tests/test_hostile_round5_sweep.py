"""Round five's fresh sweep (issue 38, "a fresh sweep of your own"): classes rounds one to five did not cover
(``discover``'s outputs, several text columns, hostile prompt values, ``eval`` edges, the environment). Each
test is a case that did not hold, with the safe outcome a user expects: nothing of theirs replaced or lost,
one sentence, every input row 1:1."""

from __future__ import annotations

import csv
from pathlib import Path

from triage_gui.commands import main

TICKETS = [
    "my card was charged twice",
    "reset my password please",
    "where is my parcel",
    "refund my order",
    "cannot log in to the app",
    "card blocked abroad",
] * 4


def _tickets(path: Path, header: list[str], rows: list[list[str]]) -> Path:
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def _rows(path: Path) -> list[list[str]]:
    with open(path, encoding="utf-8", newline="") as handle:
        return list(csv.reader(handle))


def test_discover_prompt_out_naming_the_new_out_file_is_refused_and_the_results_are_kept(tmp_path, capsys):
    """``--out b.csv --prompt-out b.csv`` (b.csv not there yet) wrote the CSV, then the prompt over it: the
    every-row results were gone, replaced by a JSON prompt. The same name twice is refused up front."""
    path = _tickets(tmp_path / "in.csv", ["text"], [[t] for t in TICKETS])
    out = tmp_path / "b.csv"
    assert main(["discover", str(path), "--out", str(out), "--prompt-out", str(out)]) == 2
    assert "--prompt-out" in capsys.readouterr().err
    assert not out.exists()


def test_discover_prompt_out_onto_a_folder_names_the_option_that_was_wrong(tmp_path, capsys):
    """``--prompt-out`` onto a folder (or the input) was told as "--out ... is a folder": the user looked at
    the wrong option."""
    path = _tickets(tmp_path / "in.csv", ["text"], [[t] for t in TICKETS])
    (tmp_path / "fold").mkdir()
    code = main(["discover", str(path), "--out", str(tmp_path / "o.csv"), "--prompt-out", str(tmp_path / "fold")])
    assert code == 2
    err = capsys.readouterr().err
    assert "--prompt-out" in err and "folder" in err
    assert main(["discover", str(path), "--out", str(tmp_path / "o.csv"), "--prompt-out", str(path)]) == 2
    assert "--prompt-out" in capsys.readouterr().err
    assert not (tmp_path / "o.csv").exists()


def test_discover_keeps_an_input_column_named_group_and_adds_its_own_beside_it(tmp_path):
    """An input with its own ``group`` column (a queue) came back with two columns named ``group``: read back
    by name, one of them is lost."""
    path = _tickets(tmp_path / "in.csv", ["id", "text", "group"], [[str(i), t, f"q{i}"] for i, t in enumerate(TICKETS)])
    out = tmp_path / "o.csv"
    assert main(["discover", str(path), "--column", "text", "--out", str(out), "--groups", "2"]) == 0
    rows = _rows(out)
    header = rows[0]
    assert len(set(header)) == len(header)
    with open(out, encoding="utf-8", newline="") as handle:
        records = list(csv.DictReader(handle))
    assert [r["group"] for r in records] == [f"q{i}" for i in range(len(TICKETS))]
    found = [name for name in header if name not in ("id", "text", "group")]
    assert len(found) == 1 and all(r[found[0]] for r in records)


def test_discover_with_one_group_and_a_prompt_out_says_why_in_one_sentence_and_writes_nothing(tmp_path, capsys):
    """One ticket (or ``--groups 1``) with ``--prompt-out``: the CSV was written, then the run failed with
    "Define at least two labels." (an error about the user's labels, not the tickets), the prompt missing."""
    path = _tickets(tmp_path / "in.csv", ["text"], [[t] for t in TICKETS])
    out, prompt = tmp_path / "o.csv", tmp_path / "p.json"
    assert main(["discover", str(path), "--out", str(out), "--prompt-out", str(prompt), "--groups", "1"]) == 2
    err = capsys.readouterr().err
    assert "1 group" in err and "two labels" in err
    assert not out.exists() and not prompt.exists()


def test_a_train_file_that_teaches_one_text_two_labels_says_so(tmp_path, capsys):
    """``--train`` with the same text taught ``billing`` then ``account``: "teaching from 3 labelled tickets",
    then "learned from 2 taught tickets", one label silently replacing the other."""
    tickets = _tickets(tmp_path / "in.csv", ["text"], [["my card was charged twice"], ["reset my password"]])
    train = _tickets(
        tmp_path / "train.csv",
        ["text", "label"],
        [
            ["my card was charged twice", "billing"],
            ["my card was charged twice", "account"],
            ["reset my pin", "account"],
        ],
    )
    out = tmp_path / "o.csv"
    assert main(["classify", str(tickets), "--fast", "--train", str(train), "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "1 ticket text in train.csv has rows with different labels" in err
    assert "my card was charged twice" in err
    assert [r[0] for r in _rows(out)[1:]] == ["my card was charged twice", "reset my password"]


def test_column_list_with_a_space_after_the_comma_reads_both_columns(tmp_path):
    """``--column "subject, body"`` (as one writes a list) was refused: "no column ' body'"."""
    path = _tickets(tmp_path / "in.csv", ["subject", "body"], [["card", "charged twice"], ["login", "cannot log in"]])
    out = tmp_path / "o.csv"
    assert main(["classify", str(path), "--fast", "--column", "subject, body", "--out", str(out)]) == 0
    rows = _rows(out)
    assert [r[:2] for r in rows[1:]] == [["card", "charged twice"], ["login", "cannot log in"]]
    assert all(r[2] for r in rows[1:])  # each row labelled


def test_column_named_twice_is_refused_in_one_sentence(tmp_path, capsys):
    """``--column a,a`` read each ticket twice over (its words doubled for the heads) and labelled some
    tickets differently from ``--column a``."""
    path = _tickets(tmp_path / "in.csv", ["a", "b"], [["my card", "charged twice"], ["reset", "password"]])
    out = tmp_path / "o.csv"
    assert main(["classify", str(path), "--fast", "--column", "a,a", "--out", str(out)]) == 2
    assert "'a' twice" in capsys.readouterr().err
    assert not out.exists()


def test_eval_names_each_k_once_and_says_when_k_is_more_than_the_file_can_teach(tmp_path, capsys):
    """``eval --train-per-label 50,50`` on six tickets: two identical K=50 columns, each of which taught one
    ticket a label (one of two kept to test) while reading as fifty."""
    rows = [
        ["my card was charged twice", "billing"],
        ["refund my fee", "billing"],
        ["the app crashes", "technical"],
        ["my transfer failed", "technical"],
        ["change my email", "account"],
        ["I lost my card", "account"],
    ]
    path = _tickets(tmp_path / "gold.csv", ["text", "label"], rows)
    assert main(["eval", str(path), "--gold", "label", "--train-per-label", "50,50", "--draws", "1"]) == 0
    captured = capsys.readouterr()
    header = next(line for line in captured.out.splitlines() if line.startswith("| method |"))
    assert header.count("K=50") == 1
    assert "K=50: no label has more than 1 ticket to teach" in captured.err


def test_more_groups_asked_than_different_tickets_keeps_each_text_in_one_group():
    """``discover --groups 1000`` on 30 tickets of 6 texts made 11 groups ("Parcel" and "Parcel 2"): copies of
    one text, whose embeddings differ in the last bits from batch to batch, were split over two groups."""
    import numpy as np

    from triage_gui.engine.grouping import find_groups

    words = ["card charged twice", "reset password", "parcel late", "refund order", "cannot log in", "card abroad"]
    rng = np.random.default_rng(0)
    centres = rng.standard_normal((len(words), 32)).astype(np.float32)
    texts = [words[i % len(words)] for i in range(30)]
    noise = rng.standard_normal((30, 32)).astype(np.float32) * 1e-7  # batch-to-batch float noise
    vectors = np.stack([centres[i % len(words)] for i in range(30)]) + noise
    grouping = find_groups(np.arange(30), vectors, texts, groups=1000)
    names = grouping.names_by_row()
    by_text: dict[str, set[str]] = {}
    for row, text in enumerate(texts):
        by_text.setdefault(text, set()).add(names[row])
    assert all(len(found) == 1 for found in by_text.values()), by_text
    assert len(grouping.groups) == len(words)


def test_discover_with_more_groups_than_a_prompt_holds_writes_nothing_and_says_so(tmp_path, capsys):
    """``discover --groups 120 --prompt-out``: the CSV was written, then "120 labels defined; at most 100 are
    allowed." of labels the user never defined, the prompt missing."""
    topics = ["card", "refund", "password", "parcel", "login", "transfer", "fee", "pin", "address", "limit"]
    texts = [f"question {i} about my {topics[i % 10]} and the {topics[(i // 10) % 10]} no. {i * 7}" for i in range(150)]
    path = _tickets(tmp_path / "in.csv", ["text"], [[t] for t in texts])
    out, prompt = tmp_path / "o.csv", tmp_path / "p.json"
    assert main(["discover", str(path), "--out", str(out), "--prompt-out", str(prompt), "--groups", "120"]) == 2
    err = capsys.readouterr().err
    assert "nothing was written" in err and "at most 100" in err
    assert not out.exists() and not prompt.exists()


def test_bench_on_a_file_of_blank_rows_says_it_holds_no_tickets(tmp_path, capsys, monkeypatch):
    """``bench --tickets`` on a file whose only rows are blank benchmarked "1 distinct ticket" of 0 tokens
    (and reported its cached paths disagreeing with naive, 0/1), where classify says the file holds none."""
    import triage_gui.engine.model as model

    def no_model(*args, **kwargs):
        raise RuntimeError("the model was loaded for a file with no tickets")

    monkeypatch.setattr(model, "load_model", no_model)
    path = tmp_path / "blank.csv"
    path.write_text("text\n\n \n\t\n", encoding="utf-8")
    assert main(["bench", "--tickets", str(path)]) == 2
    assert "holds no tickets" in capsys.readouterr().err
