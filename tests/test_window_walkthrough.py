"""What a lead saw cut off in the real window at 1280×720 (Xvfb walk-through), pinned on the fake window:
the run bar, the status bar, the detail pane's sentences."""

from __future__ import annotations

from triage_gui.engine.table import NewRow
from triage_gui.session.status import RunStatus


def _shown(qtbot, window, width: int = 1280, height: int = 720):
    window.resize(width, height)
    window.show()
    qtbot.waitExposed(window)
    qtbot.wait(50)  # the layouts settle


def _matrix_at_1366(qtbot, window, tmp_path, names: list[str]) -> None:
    """A prompt of these labels, 40 tickets with a gold column of them, the Accuracy tab shown at 1366×768."""
    import csv

    from test_window_numbers import settled

    from triage_gui.engine.prompt import Label, PromptProfile

    window._closing = True
    window.session.set_prompt(PromptProfile("Route the ticket.", [Label(n, "") for n in names]))
    qtbot.waitUntil(lambda: window.session.table.labels == names and not window.session.busy, timeout=10_000)
    path = tmp_path / "t.csv"
    with open(path, "w", encoding="utf-8", newline="") as handle:
        csv.writer(handle).writerows([["text", "team"], *([f"ticket {i}", names[i % 5]] for i in range(40))])
    window.ticket_actions.open_files([str(path)])
    qtbot.waitUntil(lambda: window.evaluation.gold is not None and settled(window), timeout=60_000)
    _shown(qtbot, window, 1366, 768)
    window.results.setCurrentIndex(1)
    window.refresh_stats()
    qtbot.wait(100)


def test_the_progress_bar_keeps_its_text_on_one_line_beside_a_long_run_line(qtbot, window):
    _shown(qtbot, window)
    area = window.tickets
    area.show_run(RunStatus("running", 159, 2000, rate=5.2, eta_seconds=300, classified=2000))
    qtbot.wait(50)
    bar_text = "language model 159 / 2000"
    # was 117 px for a 170 px text: "language model 159 /" and "2000" on two clipped lines
    assert area.progress.width() >= area.progress.fontMetrics().horizontalAdvance(bar_text) + 12
    assert area.rate_label.text().endswith("5.2 tickets/s · 5 min left")  # the whole line, for readers and tests


def test_the_estimate_leaves_the_status_bar_room_for_a_passing_message(qtbot, window):
    _shown(qtbot, window)
    window.check_status.setText("~95% (76–99%), 20 checks (13 on first-pass labels) on v1 with 3 taught, just now")
    message = "Accepted 'top-up and cash' for 1 ticket — Ctrl+Z undoes"
    window.statusBar().showMessage(message)
    qtbot.wait(50)
    bar = window.statusBar()
    permanent = (window.check_status, window.learn_status, window.prompt_status, window.model_status)
    left = min(label.geometry().left() for label in permanent if label.isVisible())
    # was "Accepted 'top-up and cash' for 1 ticke", the estimate painted over the rest
    assert left >= bar.fontMetrics().horizontalAdvance(message)
    assert window.check_status.text().endswith("just now")  # whole: only its painting is cut


def test_a_taught_tickets_origin_reads_as_sentences(qtbot, window):
    window.session.paste([NewRow({"text": f"ticket {i}"}, f"ticket {i}") for i in range(6)])
    qtbot.waitUntil(lambda: window.session.table.count_scored() == 6, timeout=10_000)
    label = window.session.table.labels[1]
    window.session.teaching.teach([2], label)
    qtbot.waitUntil(lambda: window.session.table.taught_label(2) == label, timeout=10_000)
    window.detail.show_row(2)
    text = window.detail.origin.text()
    assert f"<b>{label}</b>, taught by you. The bars are the classifier's probabilities" in text
    assert "You taught this label" not in text  # was "taught by you You taught this label; the bars ..."


def test_a_narrow_window_keeps_the_time_left_in_sight(qtbot, window):
    _shown(qtbot, window, 1016, 600)  # a 1024×640 screen
    area = window.tickets
    line = "2,000 labelled by the classifier · language model 111 / 2,000 · 3.9 tickets/s · 7 min left"
    area.show_run(RunStatus("running", 111, 2000, rate=3.9, eta_seconds=420, classified=2000))
    qtbot.wait(50)
    assert area.rate_label.text() == line
    shown = area.rate_label.elided()
    # was "2,000 labelled by the classifier · langua…", then "2,000 labelled by the … · 7 min left" beside the
    # progress bar; on a row of its own it is whole
    assert shown == line and area.rate_label.toolTip() == ""


def test_the_first_pass_in_progress_is_counted_not_shown_as_a_stalled_rate(qtbot, window):
    """A walkthrough saw "0.0 tickets/s" while ~70 rows/s were being labelled by the first pass."""
    _shown(qtbot, window)
    area = window.tickets
    area.show_run(RunStatus("running", 0, 2000, rate=0.0, classified=640))
    assert area.rate_label.text() == "first pass 640 / 2,000 · language model 0 / 2,000 · the language model starts"
    assert "0.0 tickets/s" not in area.rate_label.text()


def test_the_summary_and_the_quit_question_say_every_ticket_has_a_label(qtbot, window):
    """The summary said "111 of 2000 tickets labelled" and the quit question "1537 tickets to go" while every
    ticket had the first pass's label."""
    from triage_gui.gui.actions.ticket_actions import running_text

    window.results.show_stats(111, 2000, 0, None, None, None, classified=2000)
    stats = window.results.stats.text()
    assert "<b>111</b> of 2000 tickets labelled by the language model; 2,000 have a label" in stats
    text = running_text(RunStatus("running", 463, 2000, classified=2000))
    assert text == "The language model is still reading 1,537 tickets (each has the classifier's label)."


def test_the_confusion_matrix_names_its_axes_and_elides_only_what_does_not_fit(qtbot, window, tmp_path):
    """At 1024×640 "account" showed as "ac…nt" in a column wide enough for it (elided while the tab was
    hidden, never widened again), and the axes were not named gold and labelled."""
    from test_window_numbers import settled, write_tickets

    window._closing = True
    window.ticket_actions.open_files([write_tickets(tmp_path / "t.csv", window.session.profile.label_names)])
    qtbot.waitUntil(lambda: window.evaluation.gold is not None and settled(window), timeout=60_000)
    _shown(qtbot, window, 1016, 600)  # the window made smaller with the matrix shown, then larger
    window.results.setCurrentIndex(1)
    qtbot.wait(300)
    window.refresh_stats()
    qtbot.wait(100)
    matrix = window.results.confusion
    header = matrix.horizontalHeader()
    for i, name in enumerate(window.results._labels):
        item = matrix.horizontalHeaderItem(i)
        fits = header.fontMetrics().horizontalAdvance(name) + 16 <= header.sectionSize(i)
        assert item.toolTip() == name and (item.text() == name or not fits), (item.text(), header.sectionSize(i))
    axes = window.results.axes.text()
    assert "gold" in axes and "labelled" in axes


def test_long_label_names_in_the_matrix_break_at_a_space_rather_than_lose_their_middle(qtbot, window, tmp_path):
    """At 1366×768 "hr and work" and "travel and car" read "hr a…work" and "trav… car"."""
    names = ["banking", "cards", "hr and work", "it and devices", "travel and car"]
    _matrix_at_1366(qtbot, window, tmp_path, names)
    shown = [window.results.confusion.horizontalHeaderItem(i).text() for i in range(5)]
    assert all("…" not in text and text.replace("\n", " ") == name for text, name in zip(shown, names)), shown
    _shown(qtbot, window, 1016, 600)  # a 1024×640 screen: "b…g", "hr…rk", "it…es", "tr…ar"
    qtbot.wait(100)
    matrix = window.results.confusion
    assert [matrix.horizontalHeaderItem(i).text() for i in range(5)] == ["1", "2", "3", "4", "5"]
    assert [matrix.verticalHeaderItem(i).text() for i in range(5)] == [f"{i + 1} {n}" for i, n in enumerate(names)]
    assert matrix.horizontalHeaderItem(2).toolTip() == "hr and work"
    assert "numbered as the rows" in window.results.axes.text()


def test_the_baseline_after_the_run_is_counted_not_shown_as_a_stalled_rate(qtbot, window):
    """A walkthrough (W3) turned *Compare with baseline* on after the language model had read all 150 tickets
    and read "0.0 tickets/s · baseline 7/150" under a full bar for minutes: a run that looked stalled."""
    _shown(qtbot, window)
    area = window.tickets
    area.show_run(RunStatus("running", 150, 150, baseline_done=7, baseline_total=150, rate=0.0, classified=150))
    line = area.rate_label.text()
    assert "0.0 tickets/s" not in line
    assert line == "The language model has read every ticket · baseline (full re-encode) 7 / 150"
    area.show_run(RunStatus("running", 40, 150, baseline_done=7, baseline_total=150, rate=2.5, classified=40))
    assert "2.5 tickets/s" in area.rate_label.text() and "baseline 7/150" in area.rate_label.text()  # as it was


def test_a_run_embedding_tickets_whose_scores_were_kept_says_so_not_a_stalled_rate(qtbot, window):
    """At a start with every ticket's language-model score kept and the e5 encoder, the run line read "0.0 tickets/s"
    beside 154 / 154 labelled, Stop enabled, for up to a minute: the first pass was embedding the tickets."""
    _shown(qtbot, window)
    area = window.tickets
    area.show_run(RunStatus("running", 154, 154, rate=0.0, classified=154, first_pass_left=90))
    line = area.rate_label.text()
    assert "0.0 tickets/s" not in line
    assert line == "The language model has read every ticket · classifier's first pass 64 / 154"
    assert not area.stop_button.isEnabled()  # Stop never stops the first pass: nothing for it to stop (W11)
    area.show_run(RunStatus("running", 154, 154, rate=0.0, classified=154))
    assert area.rate_label.text() == "The language model has read every ticket · finishing"
    area.show_run(RunStatus("running", 40, 154, rate=2.5, classified=154, first_pass_left=0))
    assert area.rate_label.text().endswith("2.5 tickets/s")  # the language model still reading: as it was
    assert area.stop_button.isEnabled()


def test_numbered_matrix_columns_leave_their_room_to_the_row_titles(qtbot, window, tmp_path):
    """W17: with five labels the matrix's columns were numbered at 1366×768 and each was some 70 px wide for a
    three-digit count, while the rows read "2 top-u…nd cash", "4 accou…ecurity", "5 paym…nsfers" (a 110 px
    title); the row titles now take what numbered columns do not need, the names whole where that is enough."""
    names = ["cards", "top-up and cash", "fees and exchange", "account and security", "payments and transfers"]
    _matrix_at_1366(qtbot, window, tmp_path, names)
    matrix = window.results.confusion
    assert [matrix.horizontalHeaderItem(i).text() for i in range(5)] == ["1", "2", "3", "4", "5"]
    assert [matrix.verticalHeaderItem(i).text() for i in range(5)] == [f"{i + 1} {n}" for i, n in enumerate(names)]
    header = matrix.horizontalHeader()
    assert min(header.sectionSize(i) for i in range(5)) >= header.fontMetrics().horizontalAdvance("000")
    _shown(qtbot, window, 1016, 600)  # a 1024×640 screen: the columns keep room for their counts
    qtbot.wait(100)
    assert min(header.sectionSize(i) for i in range(5)) >= header.fontMetrics().horizontalAdvance("000")
    assert matrix.verticalHeaderItem(0).text() == "1 cards"


def test_the_learning_state_is_whole_at_1280_with_the_usual_estimate_beside_it(qtbot, window):
    """The README's own screenshot (1280×720, one field, 10 taught) read "Learned from 10 taught…": its room was
    30 average characters, short of the line's own width."""
    _shown(qtbot, window)
    window.check_status.setText("~85% (64–95%), 20 checks on v1 with 10 taught, just now")
    window.prompt_status.setText("Prompt ready (v1)")
    window.model_status.setText("SmolLM2-135M-Instruct (bundled) · cpu")
    for line in ("Learned from 10 taught tickets", "Learned from 250 taught tickets"):
        window.learn_status.setText(line)
        qtbot.wait(50)
        assert window.learn_status.elided() == line
    assert window.check_status.width() == window.check_status.maximumWidth()  # the estimate keeps all its room
