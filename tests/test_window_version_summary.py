"""Each version says what it changed (W17): a lead made three versions of the queue's prompt (the instruction, then
a label's description) and went back to version 1 and forward to version 4; the Versions tab listed "5 labels:
cards, top-up and cash, fees …" on four rows of six, one like the next, and the lead had to compare two at a time
to learn which was which."""

from __future__ import annotations

from dataclasses import replace

from triage_gui.engine.prompt import Label
from triage_gui.engine.table import NewRow


def saved(qtbot, window, profile) -> None:
    before = window.session.prompt_status.version
    window.editor.set_profile(profile, clear_undo=False)
    assert window.prompt.save()
    qtbot.waitUntil(lambda: window.session.prompt_status.version > before, timeout=10_000)
    qtbot.waitUntil(lambda: not window.session.busy and not window.document.busy, timeout=10_000)


def summaries(window) -> dict[str, str]:
    table = window.results.versions
    return {table.item(r, 0).text(): table.item(r, 4).text() for r in range(table.rowCount())}


def test_each_version_says_what_it_changed_since_the_one_before(qtbot, window):
    window.session.paste([NewRow({"text": f"ticket {i}"}, f"ticket {i}") for i in range(6)])
    qtbot.waitUntil(lambda: window.session.table.count_scored() == 6, timeout=10_000)
    first = window.editor.profile()
    saved(qtbot, window, replace(first, instruction="Route the bank customer's ticket to one team."))
    second = window.editor.profile()
    billing = [Label(x.name, "refunds and invoices" if x.name == "billing" else x.description) for x in second.labels]
    saved(qtbot, window, replace(second, labels=billing))
    window.prompt.revert(1)
    qtbot.waitUntil(lambda: len(window.document.history) == 4, timeout=10_000)
    qtbot.waitUntil(lambda: not window.session.busy and not window.document.busy, timeout=10_000)
    window.prompt.refresh_versions()
    shown = summaries(window)
    assert shown["1"].startswith("3 labels: billing, technical, account — ")  # the first: what it holds
    assert shown["2"].startswith("Changed: instruction · 3 labels")
    assert shown["3"].startswith("Changed: description of billing · 3 labels")
    assert shown["4"].startswith("Same as version 1 · 3 labels")

    teams = [Label("cards", "card"), Label("transfers", "sent money"), Label("fees", "charges"), Label("login", "")]
    saved(qtbot, window, replace(first, labels=teams, examples=[]))  # suggested labels used: every label new
    window.prompt.refresh_versions()
    assert summaries(window)["5"].startswith("Changed: labels, example removed · 4 labels: cards")


def test_go_back_is_offered_for_one_version_selected_only(qtbot, window):
    """W17: *Go back to this version* looked ready with no version selected, and with two (after *Compare two…*);
    pressed, it did nothing and said nothing. It is enabled for one version, as *Compare two…* is for two."""
    window.session.paste([NewRow({"text": f"ticket {i}"}, f"ticket {i}") for i in range(6)])
    qtbot.waitUntil(lambda: window.session.table.count_scored() == 6, timeout=10_000)
    saved(qtbot, window, replace(window.editor.profile(), instruction="Route the bank customer's ticket."))
    window.prompt.refresh_versions()
    results = window.results
    results.versions.clearSelection()
    assert not results.revert_button.isEnabled() and not results.compare_button.isEnabled()
    results.versions.selectRow(1)
    assert results.revert_button.isEnabled() and not results.compare_button.isEnabled()
    results.versions.selectAll()
    assert not results.revert_button.isEnabled() and results.compare_button.isEnabled()
