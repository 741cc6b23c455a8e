"""The GUI heartbeat while teaching on a 100,000-row file, on the fake session: what the GUI thread does
per teaching key press (marking rows, the prompt file's write) is measured, not the model."""

from __future__ import annotations

from qt_helpers import Heartbeat

from triage_gui.engine.table import NewRow

ROWS = 100_000


def test_teaching_on_a_100000_row_file_keeps_the_gui_responsive(qtbot, window, record_stall):
    session = window.session
    for start in range(0, ROWS, 10_000):
        session.add_rows([NewRow({"text": f"ticket {i} about {i % 97}"}, f"ticket {i} about {i % 97}")
                          for i in range(start, start + 10_000)])  # fmt: skip
    session.stop()  # the rows are loaded; what is measured is teaching, not labelling
    qtbot.waitUntil(lambda: not session.busy, timeout=60_000)
    labels = session.table.labels
    beat = Heartbeat()
    try:
        for i in range(20):  # twenty teaching key presses, 50 ms apart
            window.teach([i * 37], labels[i % len(labels)])
            qtbot.wait(50)
        qtbot.waitUntil(lambda: not window.document.busy, timeout=30_000)
    finally:
        beat.stop()
    record_stall("teaching on 100,000 rows (fake session)", beat.worst_gap)
    print(f"worst heartbeat gap {beat.worst_gap * 1000:.0f} ms")
    assert len(session.teaching.taught) == 20
    # Reported above (27-46 ms measured on a quiet 2-core machine; 119 ms once at load ~4 beside a real-window
    # run): the bound only catches work put on the loop's thread, which stalled it for over a second.
    assert beat.worst_gap < 1.0
