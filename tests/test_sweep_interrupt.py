"""Sweep five: Ctrl+C or an error mid-run gets a line of its own, not glued to the progress line."""

from __future__ import annotations

import time

from triage_gui import commands as cli
from triage_gui.commands._console import progress_line
from triage_gui.engine.tickets import TicketFileError


def test_an_interrupt_mid_progress_starts_its_own_line(monkeypatch, capsys):
    def run(args):
        progress_line(64, 30000, time.perf_counter(), " embedded (first pass)")
        raise KeyboardInterrupt

    monkeypatch.setattr("triage_gui.commands.classify.run", run)
    assert cli.main(["classify", "t.csv"]) == 130
    err = capsys.readouterr().err
    assert "(first pass)\nticket-triage: interrupted\n" in err


def test_an_error_mid_progress_starts_its_own_line_and_none_without(monkeypatch, capsys):
    def run(args):
        progress_line(64, 30000, time.perf_counter())
        raise TicketFileError("the disk is full")

    monkeypatch.setattr("triage_gui.commands.classify.run", run)
    assert cli.main(["classify", "t.csv"]) == 2
    assert "/s\nticket-triage: the disk is full" in capsys.readouterr().err

    def fails(args):
        raise TicketFileError("no such column")

    monkeypatch.setattr("triage_gui.commands.classify.run", fails)
    assert cli.main(["classify", "t.csv"]) == 2
    assert capsys.readouterr().err == "ticket-triage: no such column\n"
