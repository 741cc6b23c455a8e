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
    """24 BANKING77 tickets plus a column the output must keep; `loaded` makes sure the model is converted."""
    from helpers import banking_tickets

    path = tmp_path_factory.mktemp("cli") / "tickets.csv"
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "text"])
        for i, text in enumerate(banking_tickets(24)):
            writer.writerow([f"T{i}", text])
    return path


def test_classify_banking77_end_to_end_with_baseline(banking_file, tmp_path):
    out = tmp_path / "out.csv"
    result = run_cli("classify", str(banking_file), "--out", str(out), "--baseline", "--batch-size", "8")
    assert result.returncode == 0, result.stderr
    rows = list(csv.DictReader(io.StringIO(out.read_text(encoding="utf-8"))))
    assert len(rows) == 24
    assert list(rows[0])[:2] == ["id", "text"]
    assert {"label", "confidence", "latency_ms", "baseline_label", "baseline_latency_ms", "agree"} <= set(rows[0])
    assert {r["label"] for r in rows} <= {"billing", "technical", "account"}
    assert all(r["agree"] == "yes" for r in rows)
    assert all(0 < float(r["confidence"]) <= 1 for r in rows)
    assert [r["id"] for r in rows] == [f"T{i}" for i in range(24)]  # file order kept
    assert "baseline agreement 24/24" in result.stderr


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
    result = run_cli("bench", "--tickets", str(SAMPLE), "--n", "6", "--batch-size", "4")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    for path in (
        "naive full re-encode, transformers modules",
        "naive full re-encode, lean decoder",
        "cached prefix, one ticket at a time",
        "cached prefix, batches of 4",
    ):
        assert path in out
    table = [line for line in out.splitlines() if line.startswith("| naive") or line.startswith("| cached")]
    assert len(table) == 4 and all("6/6" in line for line in table[1:])  # every fast path agrees with naive
    assert "prefix cache build" in out and "peak RSS" in out


def test_bench_bfloat16_reports_agreement_with_float32(loaded):
    result = run_cli("bench", "--tickets", str(SAMPLE), "--n", "4", "--batch-size", "4", "--dtype", "bfloat16")
    assert result.returncode == 0, result.stderr
    assert "naive full re-encode, transformers modules (float32)" in result.stdout
    assert "batches of 4 (bfloat16)" in result.stdout and "/4 (max" in result.stdout


def test_version():
    result = run_cli("--version")
    assert result.returncode == 0 and "Ticket Triage" in result.stdout and "transformers" in result.stdout
