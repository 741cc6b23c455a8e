"""Another user's link planted in a shared folder is never followed (the rule of fs.protected_symlinks),
on any open or write; file names in messages print safely; a template the sandbox stops is one sentence.

We run as root, so ``os.lchown`` makes links owned by another uid in a ``1777`` folder."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from triage_gui.engine.files import UnsafeLinkError, atomic_write_text, check_links, shown
from triage_gui.engine.table import NewRow, TicketTable
from triage_gui.engine.tickets import TicketFileError, check_file, open_tickets
from triage_gui.engine.tickets import _export as export

OTHER = 54321  # a uid that is neither ours nor the shared folder's owner

needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="lchown to another uid needs root")


@pytest.fixture
def planted(tmp_path):
    """(a 1777 shared folder, the victim's private file, a link to it owned by another user in the folder)."""
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o1777)
    victim = tmp_path / "victim" / "private.csv"
    victim.parent.mkdir()
    victim.write_text("text\nthe victim's private note\n")
    os.chmod(victim, 0o600)
    link = shared / "report.csv"
    link.symlink_to(victim)
    os.lchown(link, OTHER, OTHER)
    return shared, victim, link


def table_of(texts):
    table = TicketTable()
    table.add([NewRow({"text": t}, t) for t in texts])
    return table


@needs_root
def test_another_users_link_in_a_shared_folder_is_not_read(planted):
    _, _, link = planted
    for opening in (check_file, open_tickets):
        with pytest.raises(TicketFileError) as caught:
            opening(link)
        message = str(caught.value)
        assert f"is a link owned by another user (uid {OTHER}) in the shared folder" in message
        assert "\n" not in message and "private note" not in message


@needs_root
@pytest.mark.parametrize("name", ["export.csv", "export.xlsx"])
def test_another_users_link_in_a_shared_folder_is_not_written_through(planted, name):
    shared, victim, _ = planted
    link = shared / name
    link.symlink_to(victim)
    os.lchown(link, OTHER, OTHER)
    before = victim.read_bytes()
    with pytest.raises(UnsafeLinkError):
        export.check_output(str(link), {})
    with pytest.raises(UnsafeLinkError):
        export.write_results(link, table_of(["a ticket"]), "h", False)
    with pytest.raises(UnsafeLinkError):
        atomic_write_text(link, "overwritten")
    assert victim.read_bytes() == before and os.path.islink(link)


@needs_root
def test_a_link_of_ours_or_of_the_folders_owner_or_in_a_private_folder_is_followed(tmp_path, planted):
    shared, victim, link = planted
    os.lchown(link, os.geteuid(), os.getegid())
    check_links(link)  # ours
    os.lchown(link, OTHER, OTHER)
    os.chown(shared, OTHER, OTHER)
    check_links(link)  # the folder's owner's
    private = tmp_path / "mine"
    private.mkdir(mode=0o755)
    (private / "l.csv").symlink_to(victim)
    os.lchown(private / "l.csv", OTHER, OTHER)
    check_links(private / "l.csv")  # not a shared folder: the kernel's rule does not apply either
    assert open_tickets(private / "l.csv").read_all()[0].text == "the victim's private note"


@needs_root
def test_a_planted_link_anywhere_on_the_path_counts(tmp_path, planted):
    shared, victim, _ = planted
    folder_link = shared / "exports"
    folder_link.symlink_to(victim.parent)
    os.lchown(folder_link, OTHER, OTHER)
    with pytest.raises(UnsafeLinkError):
        check_links(folder_link / "private.csv")
    with pytest.raises(UnsafeLinkError):
        export.check_output(str(folder_link / "new.csv"), {})


@needs_root
def test_classify_refuses_a_planted_out_link_before_scoring(planted, tmp_path):
    _, victim, link = planted
    tickets = tmp_path / "tickets.csv"
    tickets.write_text("text\nmy card was charged twice\n")
    done = subprocess.run(
        [sys.executable, "-m", "triage_gui", "classify", str(tickets), "--out", str(link), "--model", "/nonexistent"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2 and "is a link owned by another user" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "private note" in victim.read_text()


@needs_root
def test_the_window_refuses_a_planted_link_on_open_recent_and_export(qtbot, window, planted, tmp_path):
    shared, victim, link = planted
    window.ticket_actions.open_files([str(link)])  # what Open recent, Open and a drop all call
    qtbot.wait(50)
    assert len(window.session.table) == 0 and not window.session.reading
    assert "is a link owned by another user" in window.last_message.text()
    window.session.paste([NewRow({"text": "a ticket"}, "a ticket")])
    qtbot.waitUntil(lambda: len(window.session.table) == 1, timeout=5000)
    before = victim.read_bytes()
    assert window.ticket_actions.export(str(link)) is False
    xlsx = shared / "out.xlsx"
    xlsx.symlink_to(victim)
    os.lchown(xlsx, OTHER, OTHER)
    window.ticket_actions.export(str(xlsx))
    qtbot.waitUntil(lambda: "out.xlsx" in window.last_message.text(), timeout=5000)
    assert "is a link owned by another user" in window.last_message.text()
    assert victim.read_bytes() == before


def test_file_names_in_messages_are_printable():
    assert shown("plain name.csv") == "plain name.csv"
    weird = os.fsdecode(b"caf\xe9\nevil.csv")
    assert shown(weird) == "caf\\xe9\\nevil.csv"
    assert shown("tab\there\x1b[31m") == "tab\\there\\x1b[31m"


def test_a_missing_file_with_odd_bytes_in_its_name_is_one_clean_line(tmp_path):
    name = os.fsdecode(b"gone\xff\nx.csv")
    with pytest.raises(TicketFileError) as caught:
        open_tickets(tmp_path / name)
    assert str(caught.value) == "gone\\xff\\nx.csv: no such file."
    done = subprocess.run(
        [sys.executable, "-m", "triage_gui", "classify", os.fsencode(tmp_path / name)],
        capture_output=True,
        timeout=120,
    )
    err = done.stderr.decode("utf-8")  # valid UTF-8: no raw byte reached the terminal
    assert done.returncode == 2 and err.count("\n") == 1 and "gone\\xff\\nx.csv" in err


def test_a_file_that_shrinks_while_read_is_said(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("id,text\n" + "".join(f'{i},"my card was charged twice, order {i}"\n' for i in range(50_000)))
    source = open_tickets(path)
    batches = source.batches(1024)
    next(batches)
    os.truncate(path, 0)
    with pytest.raises(TicketFileError) as caught:
        for _ in batches:
            pass
    assert "t.csv shrank from" in str(caught.value) and "to 0 bytes while it was read" in str(caught.value)
    path.write_text("id,text\n1,a ticket\n")
    source = open_tickets(path)
    path.unlink()
    with pytest.raises(TicketFileError, match=r"t\.csv cannot be read any more: No such file or directory"):
        source.read_all()


def test_a_chat_template_the_sandbox_stops_is_one_sentence(tmp_path):
    from triage_gui.engine.model._chat_tokenizer import ChatTokenizer
    from triage_gui.engine.prompt import LayoutError, PromptLayout, default_profile
    from triage_gui.paths import cache_dir

    converted = sorted((cache_dir() / "models").glob("*/tokenizer_config.json"))
    if not converted:
        pytest.skip("no converted model in the cache to take a tokenizer from")
    source = converted[0].parent
    folder = tmp_path / "model"
    folder.mkdir()
    for name in ("tokenizer.json", "tokenizer_config.json"):
        (folder / name).write_bytes((source / name).read_bytes())
    (folder / "chat_template.jinja").write_text(
        "{{ ''.__class__.__mro__[1].__subclasses__() }}{% for m in messages %}{{ m.content }}{% endfor %}"
    )
    tokenizer = ChatTokenizer(folder)
    with pytest.raises(LayoutError) as caught:
        PromptLayout(tokenizer, default_profile(), max_context=2048)
    message = str(caught.value)
    assert message.startswith("The model's chat template cannot be rendered (SecurityError: ")
    assert "\n" not in message and message.count(". ") == 0


@needs_root
def test_another_users_link_in_a_shared_folder_is_not_read_as_a_prompt(planted):
    from triage_gui.engine.prompt import default_profile, load_profile

    shared, victim, _ = planted
    victim.write_text(default_profile().to_json())
    link = shared / "prompt.json"
    link.symlink_to(victim)
    os.lchown(link, OTHER, OTHER)
    with pytest.raises(ValueError) as caught:
        load_profile(link)
    assert f"is a link owned by another user (uid {OTHER})" in str(caught.value)
