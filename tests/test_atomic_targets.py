"""Only a regular file is ever replaced: a saved file (or a prefix-store entry) that is, or links to, a
named pipe, a device or a folder is refused in one sentence and left as it is, by every writer (the one
rule of ``files.writable_target``); a cache entry that is a link is replaced itself, never followed. And
every export is atomic: one interrupted mid-write (an error, or ``kill -9``) leaves the old file
byte for byte, with no temporary file left by an error."""

from __future__ import annotations

import os
import stat
import subprocess
import sys

import pytest

from triage_gui.engine.files import NotAFile, atomic_path, atomic_write_text
from triage_gui.engine.prompt import Label, PromptProfile
from triage_gui.engine.table import NewRow, TicketTable
from triage_gui.engine.tickets import ExcelExport, write_results, write_taught

GOOD = PromptProfile("Route the ticket.", [Label("billing", "money"), Label("technical", "broken")])


def node(folder, kind: str):
    """A named pipe, a device (a /dev/null twin, made as root) or a folder, in ``folder``."""
    path = folder / f"node-{kind}"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "device":
        if os.geteuid() != 0:
            pytest.skip("making a device node needs root")
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    else:
        path.mkdir()
    return path


def writers(tmp_path):
    table = TicketTable()
    table.add([NewRow({"text": "my card was charged twice"}, "my card was charged twice")])
    return {
        "atomic_write_text": lambda p: atomic_write_text(p, "x"),
        "prompt save": GOOD.save,
        "csv export": lambda p: write_results(p, table, "hash", False),
        "xlsx export": lambda p: ExcelExport(table, "hash", False).write(p),
        "taught export": lambda p: write_taught(p, [("my card was charged twice", "billing")]),
    }


@pytest.mark.parametrize("kind", ["fifo", "device", "folder"])
@pytest.mark.parametrize("via", ["link", "name"])
def test_a_name_that_is_no_regular_file_is_refused_by_every_writer(tmp_path, kind, via):
    target = node(tmp_path, kind)
    mode = os.lstat(target).st_mode
    for what, write in writers(tmp_path).items():
        name = tmp_path / f"saved-{what.replace(' ', '-')}.xlsx" if what == "xlsx export" else tmp_path / f"s-{what}"
        if via == "link":
            name.unlink(missing_ok=True)
            name.symlink_to(target)
        else:
            name = target
        with pytest.raises(NotAFile) as caught:
            write(name)
        kinds = {"fifo": "a named pipe", "device": "a device", "folder": "a folder"}
        assert caught.value.strerror.startswith(f"it is {kinds[kind]}, not a regular file"), what
        assert os.lstat(target).st_mode == mode, what  # left as it is
        assert via == "name" or name.is_symlink(), what
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temporary file left


def test_a_cache_entry_that_links_to_a_pipe_is_replaced_itself_not_followed(tmp_path):
    pipe = node(tmp_path, "fifo")
    cache = tmp_path / "cache"
    cache.mkdir()
    entry = cache / "abc.safetensors"
    entry.symlink_to(pipe)
    with atomic_path(entry, follow=False) as tmp:
        tmp.write_bytes(b"fresh")
    assert not entry.is_symlink() and entry.read_bytes() == b"fresh"
    assert stat.S_ISFIFO(os.lstat(pipe).st_mode)


def test_the_prefix_store_mends_an_entry_that_links_to_a_pipe(tmp_path, monkeypatch):
    import torch

    from triage_gui.engine.model import _prefix_store as store

    pipe = node(tmp_path, "fifo")
    monkeypatch.setattr(store, "_folder", lambda: tmp_path / "prefixes")
    monkeypatch.setattr(store, "key", lambda loaded, ids: "abc")
    (tmp_path / "prefixes").mkdir()
    entry = tmp_path / "prefixes" / "abc.safetensors"
    entry.symlink_to(pipe)
    layers = [(torch.ones(1, 2, 3, 4), torch.zeros(1, 2, 3, 4))]
    store.save(None, [1, 2, 3], layers)  # type: ignore[arg-type]
    assert not entry.is_symlink() and entry.is_file() and stat.S_ISFIFO(os.lstat(pipe).st_mode)
    assert len(store._read_verified(entry, "abc", 3)) == 1  # a whole, verified entry


def big_table(n: int) -> TicketTable:
    table = TicketTable()
    texts = [f"ticket number {i} about a card" for i in range(n)]
    table.add([NewRow({"text": t}, t) for t in texts])
    return table


class Broken(Exception):
    pass


@pytest.mark.parametrize("kind", ["csv", "xlsx"])
def test_an_export_interrupted_mid_write_leaves_the_old_file_byte_for_byte(tmp_path, kind, monkeypatch):
    from triage_gui.engine.tickets import _export

    path = tmp_path / f"labelled.{kind}"
    path.write_bytes(b"the old export\n")
    table = big_table(3000)
    real = _export.result_row

    def failing(table, row, *args):
        if row == 2000:
            raise Broken("the disk went away")
        return real(table, row, *args)

    monkeypatch.setattr(_export, "result_row", failing)
    with pytest.raises(Broken):
        write_results(path, table, "hash", False)
    assert path.read_bytes() == b"the old export\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name]


KILLED = """
import sys, time
sys.path.insert(0, {root!r})
from triage_gui.engine.table import NewRow, TicketTable
from triage_gui.engine.tickets import _export
table = TicketTable()
table.add([NewRow({{"text": f"ticket {{i}}"}}, f"ticket {{i}}") for i in range(30000)])
real = _export.result_row
def slow(table, row, *args):
    if row == 20000:
        print("halfway", flush=True)
        time.sleep(600)  # killed here
    return real(table, row, *args)
_export.result_row = slow
_export.write_results(sys.argv[1], table, "hash", False)
"""


@pytest.mark.parametrize("kind", ["csv", "xlsx"])
def test_kill_9_mid_export_leaves_the_old_file_byte_for_byte(tmp_path, kind):
    """Round four: ``kill -9`` of the window 10.7 s into an .xlsx export of 30,000 tickets left the old file
    changed: the export had finished (30,000 rows are written in 1.7-1.9 s); killed mid-write, the old file
    stays whole."""
    from pathlib import Path

    path = tmp_path / f"labelled.{kind}"
    path.write_bytes(b"the old export\n")
    root = str(Path(__file__).resolve().parent.parent)
    child = subprocess.Popen(
        [sys.executable, "-c", KILLED.format(root=root), str(path)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout.readline().strip() == "halfway"
        temporary = [p for p in tmp_path.iterdir() if p.name != path.name]
        assert len(temporary) == 1 and temporary[0].name.startswith(".labelled.")  # written beside, hidden
    finally:
        child.kill()
        child.wait(30)
    assert path.read_bytes() == b"the old export\n"
