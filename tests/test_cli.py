"""The headless command line, run as a user runs it: a separate process, real model, real files."""

import csv
import io
import os
import subprocess
import sys

import pytest
from helpers import ROOT, SAMPLE


def run_cli(*args, timeout=600):
    return subprocess.run(
        [sys.executable, "-m", "triage_gui", *args],
        cwd=ROOT,
        env=dict(os.environ),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.fixture(scope="module")
def banking_file(tmp_path_factory, loaded):
    """12 BANKING77 tickets (a batch of 8 and one of 4) plus a column the output must keep; `loaded` makes sure
    the model is converted. 24 took 50 s of a CI run, most of it the baseline's full re-encode of each."""
    from helpers import banking_tickets

    path = tmp_path_factory.mktemp("cli") / "tickets.csv"
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "text"])
        for i, text in enumerate(banking_tickets(12)):
            writer.writerow([f"T{i}", text])
    return path


def test_classify_banking77_end_to_end_with_baseline(banking_file, tmp_path):
    out = tmp_path / "out.csv"
    result = run_cli("classify", str(banking_file), "--out", str(out), "--baseline", "--batch-size", "8")
    assert result.returncode == 0, result.stderr
    rows = list(csv.DictReader(io.StringIO(out.read_text(encoding="utf-8"))))
    assert len(rows) == 12
    assert list(rows[0])[:2] == ["id", "text"]
    assert {"label", "confidence", "latency_ms", "baseline_label", "baseline_latency_ms", "agree"} <= set(rows[0])
    assert {r["label"] for r in rows} <= {"billing", "technical", "account"}
    assert all(r["agree"] == "yes" for r in rows)
    assert all(0 < float(r["confidence"]) <= 1 for r in rows)
    assert [r["id"] for r in rows] == [f"T{i}" for i in range(12)]  # file order kept
    assert "baseline agreement 12/12" in result.stderr


def test_classify_to_stdout_with_column_choice(loaded):
    result = run_cli("classify", str(SAMPLE), "--column", "text", "--batch-size", "32")
    assert result.returncode == 0, result.stderr
    rows = list(csv.DictReader(result.stdout.splitlines()))
    assert len(rows) == 60 and rows[0]["team"] in ("billing", "technical", "account")
    assert "60 tickets from column 'text'" in result.stderr


@pytest.mark.parametrize(
    ("args", "reason"),
    [
        (["classify", "missing.csv"], "no such file"),
        (["classify", str(SAMPLE), "--column", "nope"], "no column 'nope'"),
        (["classify", str(SAMPLE), "--model", "/nowhere/model.gguf"], "Model file not found"),
        (["classify", str(SAMPLE), "--model", "no-such-org/no-such-model"], "could not provide it"),
    ],
)
def test_bad_input_exits_non_zero_with_one_line(args, reason):
    result = run_cli(*args)
    assert result.returncode == 2
    last = result.stderr.strip().splitlines()[-1]
    assert reason in last and last.startswith("ticket-triage:")
    assert "Traceback" not in result.stderr


def test_binary_file_is_refused(tmp_path):
    path = tmp_path / "photo.csv"
    path.write_bytes(bytes(range(256)) * 10)
    result = run_cli("classify", str(path))
    assert result.returncode == 2 and "not a text file" in result.stderr


def test_bench_prints_the_table(loaded):
    """``--quick`` leaves out only what repeats work other tests do: the refit on 100,000 rows (the same code
    as on 1,000) and two ``classify`` processes of one ticket (which the classify tests run). The two bench
    tests were the slowest of a CI run (270 s and 257 s on 2 cores) before it."""
    result = run_cli("bench", "--tickets", str(SAMPLE), "--n", "6", "--batch-size", "4", "--quick")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    for path in (
        "naive full re-encode, transformers modules",
        "naive full re-encode, lean decoder",
        "cached prefix, one ticket at a time",
        "cached prefix, batches of 4",
        "cached prefix, batches of 4, with the encoder",
    ):
        assert path in out
    table = [line for line in out.splitlines() if line.startswith("| naive") or line.startswith("| cached")]
    assert len(table) == 5 and all("6/6" in line for line in table[1:])  # every fast path agrees with naive
    assert "prefix cache build" in out and "peak RSS" in out
    assert "sentence encoder all-MiniLM-L6-v2:" in out and "ms/ticket" in out and "with it" in out
    assert "refit after a correction with 1,000 loaded tickets" in out and "5 heads" in out
    assert "100,000 loaded tickets" not in out and "new process to first label" in out
    assert "not measured (--quick)" in out


def test_bench_bfloat16_reports_agreement_with_float32(loaded):
    """Without the encoders (``--encoder none``): their rows are float32 whatever the model's dtype, and the
    test above covers them; this one is about the reduced-precision model against float32 (471 s against 410 s
    for the test above, with both encoders, in a run at load 12)."""
    args = ("--tickets", str(SAMPLE), "--n", "4", "--batch-size", "4", "--dtype", "bfloat16", "--quick")
    args += ("--encoder", "none")
    result = run_cli("bench", *args)
    assert result.returncode == 0, result.stderr
    assert "naive full re-encode, transformers modules (float32)" in result.stdout
    assert "batches of 4 (bfloat16)" in result.stdout and "/4 (max" in result.stdout


def test_version():
    result = run_cli("--version")
    assert result.returncode == 0 and "Ticket Triage" in result.stdout and "transformers" in result.stdout


def test_every_input_row_comes_back_in_order_with_a_reason(tmp_path, loaded):
    path = tmp_path / "mixed.jsonl"
    path.write_text(
        '{"id": 1, "text": "my card was declined"}\n'
        '{"id": 2, "text": "   "}\n'
        "{not json at all\n"
        '{"id": 4, "text": "refund please"}\n',
        encoding="utf-8",
    )
    out = tmp_path / "out.csv"
    result = run_cli("classify", str(path), "--out", str(out))
    assert result.returncode == 0, result.stderr
    rows = list(csv.DictReader(io.StringIO(out.read_text(encoding="utf-8"))))
    assert len(rows) == 4  # 4 records in, 4 rows out
    assert [r["id"] for r in rows] == ["1", "2", "", "4"]
    assert rows[0]["label"] and rows[3]["label"] and not rows[1]["label"] and not rows[2]["label"]
    assert rows[1]["reason"] == "blank ticket text" and "not valid JSON" in rows[2]["reason"]
    assert rows[0]["reason"] == "" and rows[0]["label_source"] in ("prompt", "learned", "first pass")


def test_writing_over_the_input_is_refused_before_anything_runs(tmp_path):
    path = tmp_path / "tickets.csv"
    path.write_text("text\nmy card is lost\n", encoding="utf-8")
    before = path.read_bytes()
    result = run_cli("classify", str(path), "--out", str(path))
    assert result.returncode == 2 and "is the input file itself" in result.stderr
    assert path.read_bytes() == before


def test_an_unwritable_output_is_found_before_scoring_and_named(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    for out, reason in (
        (blocker / "out.csv", "does not exist"),  # a file where the folder should be
        (tmp_path / "no" / "such" / "out.csv", "does not exist"),
        (tmp_path, "is a folder"),
    ):
        result = run_cli("classify", str(SAMPLE), "--out", str(out))
        last = result.stderr.strip().splitlines()[-1]
        assert result.returncode == 2 and str(out) in last and reason in last and ".tmp" not in last
        assert "Loading" not in result.stderr  # refused before the model was even loaded
    if os.geteuid() != 0:  # root writes into read-only folders: the permission case only means something for users
        locked = tmp_path / "locked"
        locked.mkdir()
        locked.chmod(0o500)
        try:
            result = run_cli("classify", str(SAMPLE), "--out", str(locked / "out.csv"))
        finally:
            locked.chmod(0o700)
        assert result.returncode == 2 and "permission denied" in result.stderr.strip().splitlines()[-1]


def test_train_teaches_from_a_labelled_file_before_labelling(tmp_path, loaded):
    train = tmp_path / "train.csv"
    with open(SAMPLE, encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    with open(train, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["ticket", "queue"])
        for row in rows[:30]:
            writer.writerow([row["text"], row["team"]])
    out = tmp_path / "out.csv"
    result = run_cli("classify", str(SAMPLE), "--train", str(train), "--train-label", "queue", "--out", str(out))
    assert result.returncode == 0, result.stderr
    assert "teaching from 30 labelled tickets" in result.stderr and "labels learned from 30 taught" in result.stderr
    labelled = list(csv.DictReader(io.StringIO(out.read_text(encoding="utf-8"))))
    sources = [r["label_source"] for r in labelled]
    # the classifier's: "first pass" where the language model's heads weigh 0 (no evidence they help)
    assert sources[:30] == ["taught"] * 30 and set(sources[30:]) in ({"learned"}, {"first pass"})
    assert [r["label"] for r in labelled[:30]] == [r["team"] for r in rows[:30]]
    bad = run_cli("classify", str(SAMPLE), "--train", str(train), "--train-label", "nope")
    assert bad.returncode == 2 and "no column 'nope'" in bad.stderr


def test_eval_prints_the_learning_curve(loaded, tmp_path):
    """Every other ticket of the sample (30: 9 to 12 a team, enough for K=5 and a test set each): every
    table and line of the 60, with half the language model's reading and smaller refits (106 s of a CI run
    on the 60)."""
    with open(SAMPLE, encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle))
    half = tmp_path / "half.csv"
    with open(half, "w", encoding="utf-8", newline="") as handle:
        csv.writer(handle).writerows([rows[0], *rows[1::2]])
    result = run_cli(
        "eval", str(half), "--gold", "team", "--train-per-label", "2,5", "--draws", "2",
        "--strategy", "random,suggested", "--steps", "0,3,6",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    out = result.stdout
    for method in (
        "majority class",
        "raw prompt",
        "calibrated prompt",
        "TF-IDF + logistic regression",
        "this app (encoder on)",
        "this app, encoder off",
        "encoder head alone",
        "LLM-state head alone",
        "word head alone",
        "character head alone",
    ):
        assert f"| {method} |" in out
    assert "| method | untaught | K=2 | K=5 |" in out and "macro-F1" in out
    assert "| first pass |" in out and "| refined |" in out and "| LLM heads used | 0/1 |" in out  # untaught: 0
    assert "the first pass by more than 0.5 point (worst " in out
    assert "| strategy | N=0 | N=3 | N=6 |" in out and "| random |" in out and "| suggested |" in out
    assert "suggested reach random's accuracy at N=6" in out
    assert "worst single step (random): " in out and "worst single step (suggested): " in out
    bad = run_cli("eval", str(SAMPLE), "--gold", "team", "--strategy", "clever")
    assert bad.returncode == 2 and "unknown --strategy clever" in bad.stderr
