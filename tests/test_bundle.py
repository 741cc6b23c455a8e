"""Build the PyInstaller bundle and check its headless classify matches the source run (slow: minutes)."""

import csv
import io
import os
import subprocess
import sys

import pytest
from helpers import ROOT, SAMPLE

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]  # PyInstaller: minutes, past the 300 s default


def labels(csv_text: str) -> list[str]:
    return [row["label"] for row in csv.DictReader(io.StringIO(csv_text))]


def test_frozen_classify_matches_the_source_run(tmp_path):
    build = subprocess.run(["bash", "packaging/build_bundle.sh"], cwd=ROOT, capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-3000:]
    frozen = ROOT / "dist" / "ticket-triage" / ("ticket-triage.exe" if os.name == "nt" else "ticket-triage")
    env = dict(os.environ, TRIAGE_GUI_CACHE_DIR=str(tmp_path / "cache"))
    out_frozen, out_source = tmp_path / "frozen.csv", tmp_path / "source.csv"
    # The language model's runs (frozen and source) on the sample's first 20 tickets, every team among them: that
    # the bundle reads like the source is what this checks.
    first = tmp_path / "first20.csv"
    first.write_text("".join(SAMPLE.read_text(encoding="utf-8").splitlines(keepends=True)[:21]), encoding="utf-8")
    run = subprocess.run(
        [str(frozen), "classify", str(first), "--out", str(out_frozen)], env=env, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr[-3000:]
    assert "sentence encoder all-MiniLM-L6-v2 loaded" in run.stderr, run.stderr[-3000:]  # the bundle carries it
    # ... and the multilingual encoder: its first pass in the bundle is the source run's
    fast = [str(SAMPLE), "--fast", "--encoder", "e5-small"]
    e5_frozen = subprocess.run(
        [str(frozen), "classify", *fast, "--out", str(tmp_path / "e5f.csv")], env=env, capture_output=True, text=True
    )
    assert "sentence encoder multilingual-e5-small loaded" in e5_frozen.stderr, e5_frozen.stderr[-3000:]
    e5_source = subprocess.run(
        [sys.executable, "-m", "triage_gui", "classify", *fast, "--out", str(tmp_path / "e5s.csv")],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert e5_source.returncode == 0, e5_source.stderr[-3000:]
    e5_labels = labels((tmp_path / "e5f.csv").read_text(encoding="utf-8"))
    assert len(e5_labels) == 60 and e5_labels == labels((tmp_path / "e5s.csv").read_text(encoding="utf-8"))
    source = subprocess.run(
        [sys.executable, "-m", "triage_gui", "classify", str(first), "--out", str(out_source)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert source.returncode == 0, source.stderr[-3000:]
    frozen_labels = labels(out_frozen.read_text(encoding="utf-8"))
    assert len(frozen_labels) == 20
    assert frozen_labels == labels(out_source.read_text(encoding="utf-8"))
    # The bundle carries openpyxl: the same tickets as a workbook, in and out, give the same labels.
    import openpyxl

    workbook = openpyxl.Workbook()
    rows = list(csv.reader(io.StringIO(SAMPLE.read_text(encoding="utf-8"))))
    for row in rows:
        workbook.active.append(row)
    book, book_out = tmp_path / "sample.xlsx", tmp_path / "frozen.xlsx"
    workbook.save(book)
    # The first pass (as the e5 runs above): reading and writing a workbook is what this checks, and a third run
    # of the language model over the 60 tickets (the CSV runs above check its labels) adds nothing to that.
    xlsx_fast = [str(book), "--fast", "--encoder", "e5-small", "--out", str(book_out)]
    run = subprocess.run([str(frozen), "classify", *xlsx_fast], env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-3000:]
    sheet = openpyxl.load_workbook(book_out, read_only=True).active
    table = [list(r) for r in sheet.iter_rows(values_only=True)]
    column = table[0].index("label")
    assert [r[column] for r in table[1:]] == e5_labels
    version = subprocess.run([str(frozen), "--version"], capture_output=True, text=True)
    assert "Ticket Triage" in version.stdout and "torch" in version.stdout
    assert not list((ROOT / "dist" / "ticket-triage").rglob("libcudart*"))
