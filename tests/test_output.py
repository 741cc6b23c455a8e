"""--out respects the user's files: never a file the run reads, through a symlink to its target, an
existing file's mode kept, no device or FIFO replaced, ``-`` is standard output, names checked first."""

import os
import stat
import subprocess
import sys

import pytest
from helpers import ROOT

from triage_gui.engine.table import NewRow, TicketTable
from triage_gui.engine.tickets import check_output, write_results


def table() -> TicketTable:
    t = TicketTable()
    t.add([NewRow({"text": "my card is lost"}, "my card is lost", "t.csv")])
    return t


def test_out_onto_the_prompt_file_is_refused_before_anything_runs(tmp_path):
    from triage_gui.engine.prompt import default_profile

    tickets = tmp_path / "tickets.csv"
    tickets.write_text("text\nmy card is lost\n", encoding="utf-8")
    prompt = tmp_path / "p.json"
    default_profile().save(prompt)
    before = prompt.read_bytes()
    for out in (prompt, tmp_path / "." / "p.json"):
        result = subprocess.run(
            [sys.executable, "-m", "triage_gui", "classify", str(tickets), "--prompt", str(prompt), "--out", str(out)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert result.returncode == 2, result.stderr
        assert (
            result.stderr.strip()
            == f"ticket-triage: --out {out} is the prompt file itself; write the results to another file."
        )
    assert prompt.read_bytes() == before


def test_out_onto_the_train_file_through_a_link_is_refused(tmp_path):
    train = tmp_path / "train.csv"
    train.write_text("text,label\nmy card,billing\n", encoding="utf-8")
    link = tmp_path / "link.csv"
    link.symlink_to(train)
    with pytest.raises(ValueError, match="is the --train file itself"):
        check_output(str(link), {"input file": str(tmp_path / "in.csv"), "--train file": str(train)})


def test_a_symlink_is_written_through_to_its_target(tmp_path):
    target = tmp_path / "real.csv"
    target.write_text("old\n")
    link = tmp_path / "link.csv"
    link.symlink_to(target)
    out = check_output(str(link), {})
    assert out == str(target)
    write_results(link, table(), "h", False)
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert "my card is lost" in target.read_text()


def test_an_existing_private_output_stays_private(tmp_path):
    out = tmp_path / "private.csv"
    out.write_text("old\n")
    out.chmod(0o600)
    write_results(out, table(), "h", False)
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    assert "my card is lost" in out.read_text()


def test_a_new_output_gets_normal_permissions(tmp_path):
    out = tmp_path / "new.csv"
    write_results(out, table(), "h", False)
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE(out.stat().st_mode) == 0o666 & ~mask


def test_devices_and_fifos_are_refused_and_dash_is_standard_output(tmp_path):
    assert check_output("-", {}) is None
    if os.path.exists("/dev/null"):
        with pytest.raises(
            ValueError, match=r"^--out /dev/null is a device, not a regular file; .* - for standard output\.$"
        ):
            check_output("/dev/null", {})
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(ValueError, match="is a named pipe"):
        check_output(str(fifo), {})


def test_standard_output_named_as_a_file_is_standard_output(tmp_path):
    with open(tmp_path / "captured", "w") as handle:
        code = "from triage_gui.engine.tickets import check_output; print(check_output('/dev/stdout', {}))"
        subprocess.run([sys.executable, "-c", code], cwd=ROOT, stdout=handle, check=True, timeout=120)
    assert (tmp_path / "captured").read_text().strip() == "None"


def test_a_name_too_long_for_the_file_system_is_refused_before_scoring(tmp_path):
    with pytest.raises(ValueError, match="file name is longer than"):
        check_output(str(tmp_path / ("x" * 300 + ".csv")), {})
    long_ok = tmp_path / ("y" * 250 + ".csv")  # near the limit: the temp file beside it still fits
    assert check_output(str(long_ok), {}) == str(long_ok)
    write_results(long_ok, table(), "h", False)
    assert long_ok.exists()


def test_the_summary_counts_rows_read_labelled_and_why_not():
    from triage_gui.commands.classify import row_counts

    t = TicketTable()
    t.add(
        [
            NewRow({"text": "my card is lost"}, "my card is lost", "t.csv"),
            NewRow({"text": ""}, "", "t.csv", "blank ticket text"),
            NewRow({"text": ""}, "", "t.csv", "line 3 is not valid JSON"),
        ]
    )
    assert row_counts(t) == "3 rows read, 0 labelled, not labelled: 1 blank ticket text, 1 bad JSON, 1 not labelled"


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="only root can give a file away")
def test_an_existing_output_keeps_its_owner(tmp_path):
    out = tmp_path / "theirs.csv"
    out.write_text("old\n")
    os.chown(out, 65534, 65534)
    out.chmod(0o640)
    write_results(out, table(), "h", False)
    info = out.stat()
    assert (info.st_uid, info.st_gid, stat.S_IMODE(info.st_mode)) == (65534, 65534, 0o640)
