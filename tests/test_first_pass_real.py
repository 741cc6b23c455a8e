"""The first pass on the bundled models: the window's first-pass labels are ``classify --fast``'s, and
``classify --fast`` labels every row without loading the language model."""

from __future__ import annotations

import csv

import pytest
from helpers import banking_tickets, write_tickets
from qt_helpers import close, drop_files, open_window
from test_cli import run_cli

N = 96  # two aligned embedding blocks, the second partly filled


@pytest.fixture
def tickets(tmp_path, loaded):
    return write_tickets(tmp_path / "tickets.csv", banking_tickets(N), ("id", [f"T{i}" for i in range(N)]))


def fast_labels(path, out, *extra: str) -> list[dict[str, str]]:
    result = run_cli("classify", str(path), "--fast", "--out", str(out), *extra)
    assert result.returncode == 0, result.stderr
    assert "embedded (first pass)" in result.stderr and f"{N} rows read, {N} labelled" in result.stderr
    assert "not in English" not in result.stderr  # English tickets: no hint of the multilingual encoder
    with open(out, encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


@pytest.mark.parametrize("encoder", [None, "e5-small"], ids=["minilm", "e5-small"])
def test_the_windows_first_pass_labels_are_classify_fast_labels(
    qtbot, tmp_path, monkeypatch, event_loop_qt, tickets, encoder
):
    monkeypatch.setenv("TRIAGE_GUI_CONFIG_DIR", str(tmp_path / "config"))
    if encoder:  # chosen in the model dialog before: the window starts with it
        from triage_gui.gui.settings import AppSettings

        settings = AppSettings()
        settings.set("encoder", encoder)
        settings.sync()
    window = open_window(qtbot)
    try:
        qtbot.waitUntil(lambda: window.session.encoder is not None, timeout=120_000)
        if encoder:
            assert window.session.encoder.name == "multilingual-e5-small"
        drop_files(window, [tickets])
        session = window.session
        table = session.table
        qtbot.waitUntil(lambda: len(table) == N, timeout=60_000)
        session.stop()  # the language model stops after its batch in flight; the first pass goes on
        qtbot.waitUntil(lambda: table.count_current() == N and not session.busy, timeout=120_000)
        qtbot.waitUntil(lambda: session.teaching.last_fit is not None and len(session.teaching.last_fit.probs) == N)
        first = [r for r in range(N) if table.source(r) == "first pass"]
        assert len(first) >= N - 20  # the language model read at most its first ramped batches
        assert "labelled by the classifier" in window.tickets.rate_label.text()
        window_labels = {r: table.label(r) for r in first}
        confidences = {r: table.confidence(r) for r in first}
    finally:
        close(window)
    rows = fast_labels(tickets, tmp_path / "fast.csv", *(["--encoder", encoder] if encoder else []))
    assert [r["id"] for r in rows] == [f"T{i}" for i in range(N)]
    assert {r["label_source"] for r in rows} == {"first pass"}
    assert {r: rows[r]["label"] for r in first} == window_labels
    assert all(abs(float(rows[r]["confidence"]) - confidences[r]) < 1e-3 for r in first)


def test_classify_fast_refuses_what_it_cannot_do_in_one_sentence(tickets, tmp_path):
    for extra, words in (
        (["--no-learning"], "needs the sentence encoder"),
        (["--encoder", "none"], "needs the sentence encoder"),
        (["--baseline"], "no baseline"),
    ):
        result = run_cli("classify", str(tickets), "--fast", "--out", str(tmp_path / "x.csv"), *extra)
        assert result.returncode == 2 and words in result.stderr, result.stderr
        assert "Traceback" not in result.stderr
        assert not (tmp_path / "x.csv").exists()


GERMAN = [
    "Meine Karte wurde zweimal belastet, bitte erstatten Sie den Betrag",
    "Ich kann mich seit gestern nicht mehr in mein Konto einloggen",
    "Wo bleibt meine neue Karte? Ich warte schon zwei Wochen",
    "Die Überweisung an meinen Vermieter ist immer noch nicht angekommen",
]


def test_classify_on_mostly_german_tickets_names_the_multilingual_encoder(tmp_path):
    """The window offers multilingual-e5-small for such a file; ``classify`` says the same in one line and
    still labels every row with the encoder it was given."""
    from triage_gui.commands._steps import multilingual_hint
    from triage_gui.engine.tickets import read_table

    texts = GERMAN * 3 + ["Where is my card?"]
    path = write_tickets(tmp_path / "de.csv", texts)
    out = tmp_path / "out.csv"
    result = run_cli("classify", str(path), "--fast", "--out", str(out))
    assert result.returncode == 0, result.stderr
    hint = [line for line in result.stderr.splitlines() if "not in English" in line]
    assert len(hint) == 1 and "12 German" in hint[0] and "--encoder e5-small" in hint[0], result.stderr
    with open(out, encoding="utf-8", newline="") as handle:
        assert len(list(csv.DictReader(handle))) == len(texts)
    table = read_table(str(path), None)[0]
    assert multilingual_hint("e5-small", table) == ""  # chosen already: nothing to say
    assert multilingual_hint("bundled", table) == hint[0]
