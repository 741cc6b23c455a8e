"""The window fits small screens: at 1024x640 and 1366x768 no widget is drawn over another or cut off,
text is not clipped, and the custom-painted parts (probability bars, confusion headers) keep their text
clear; the first and restored window sizes fit the screen. On the fake session, in milliseconds."""

from __future__ import annotations

import itertools

import pytest
from PySide6.QtCore import QRect, Qt
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QApplication,
    QCheckBox,
    QComboBox,
    QHeaderView,
    QLabel,
    QPushButton,
    QStyle,
    QWidget,
)
from window_fakes import close_fake, fake_window

from triage_gui.engine.prompt import Label

SIZES = [(1024, 640), (1366, 768)]
FIVE = ["billing", "technical", "account", "account_security", "shipping_and_delivery"]


def five_labels_loaded(qtbot, window, baseline: bool) -> None:
    """Five labels, 40 tickets with a gold column chosen, a row selected, the accuracy tab shown."""
    profile = window.editor.profile()
    known = {label.name: label for label in profile.labels}
    profile.labels = [known.get(name) or Label(name, f"Tickets about {name.replace('_', ' ')}.") for name in FIVE]
    window.editor.set_profile(profile, clear_undo=False)
    assert window.prompt.save()
    qtbot.waitUntil(lambda: window.session.table.labels == FIVE and not window.session.busy, timeout=10_000)
    lines = ["text,team"] + [f"ticket number {i} about things,{FIVE[i % 5]}" for i in range(40)]
    window.ticket_actions.paste_text("\n".join(lines))
    qtbot.waitUntil(lambda: window.session.table.count_scored() == 40 and not window.session.busy, timeout=10_000)
    window.ticket_actions.choose_gold("team")
    window.tickets.baseline_toggle.setChecked(baseline)
    qtbot.waitUntil(lambda: not window.session.busy, timeout=10_000)
    window.tickets.select_source_row(3)
    window.results.setCurrentIndex(1)
    window.refresh_stats()


def shown(window, size) -> None:
    window.resize(*size)
    window.show()
    for _ in range(3):
        QApplication.processEvents()
    window.grab().save(f"/tmp/fit/fake-{size[0]}x{size[1]}.png")


def visible_children(widget: QWidget) -> list[QWidget]:
    return [c for c in widget.findChildren(QWidget, options=_direct()) if c.isVisible() and not c.isWindow()]


def _direct():
    return Qt.FindChildOption.FindDirectChildrenOnly


def walk(widget: QWidget):
    for child in visible_children(widget):
        yield child
        yield from walk(child)


def in_viewport(widget: QWidget) -> QAbstractScrollArea | None:
    """The scroll area the widget is shown in through its viewport, if any."""
    parent = widget.parentWidget()
    while parent is not None:
        area = parent.parentWidget()
        if isinstance(area, QAbstractScrollArea) and parent is area.viewport():
            return area
        parent = area
    return None


def name(w: QWidget) -> str:
    text = w.text() if isinstance(w, (QLabel, QPushButton, QCheckBox)) else ""
    return f"{type(w).__name__}({w.accessibleName() or w.objectName() or text!r})"


@pytest.mark.parametrize("baseline", [False, True], ids=["plain", "baseline"])
@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_no_widget_is_drawn_over_another(qtbot, window, size, baseline):
    five_labels_loaded(qtbot, window, baseline)
    shown(window, size)
    problems = []
    for parent in [window, *walk(window)]:
        for a, b in itertools.combinations(visible_children(parent), 2):
            if a.geometry().intersects(b.geometry()):
                problems.append(f"{name(a)} {a.geometry()} overlaps {name(b)} {b.geometry()} in {name(parent)}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("baseline", [False, True], ids=["plain", "baseline"])
@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_no_widget_is_cut_off(qtbot, window, size, baseline):
    five_labels_loaded(qtbot, window, baseline)
    shown(window, size)
    problems = []
    for widget in walk(window):
        area = in_viewport(widget)
        if area is not None:  # a scroll area's content may be larger than its viewport: it scrolls...
            right = widget.mapTo(area.viewport(), widget.rect().topRight()).x()
            if (
                area.horizontalScrollBarPolicy() == Qt.ScrollBarPolicy.ScrollBarAlwaysOff
                and right >= area.viewport().width()
            ):
                problems.append(f"{name(widget)} cut on the right by {name(area)}, which cannot scroll sideways")
            continue
        parent = widget.parentWidget()
        rect = QRect(widget.mapTo(window, widget.rect().topLeft()), widget.size())
        if not window.rect().contains(rect):
            problems.append(f"{name(widget)} {rect} outside the window")
        if not parent.rect().contains(widget.geometry()):
            problems.append(f"{name(widget)} {widget.geometry()} cut by {name(parent)} {parent.rect()}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("baseline", [False, True], ids=["plain", "baseline"])
@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_text_is_not_clipped(qtbot, window, size, baseline):
    five_labels_loaded(qtbot, window, baseline)
    shown(window, size)
    problems = []
    for widget in walk(window):
        if isinstance(widget, QLabel):
            if widget.wordWrap():
                need = widget.heightForWidth(widget.width())
                if widget.height() < need:
                    problems.append(f"{name(widget)} {widget.height()} px high < {need}")
                continue
            hint = widget.minimumSizeHint()
        elif isinstance(widget, (QPushButton, QCheckBox)):
            hint = widget.sizeHint()
        elif isinstance(widget, QComboBox):
            hint = widget.minimumSizeHint()
        else:
            continue
        if widget.width() < hint.width() or widget.height() < hint.height():
            problems.append(f"{name(widget)} {widget.size()} < {hint}")
    assert not problems, "\n".join(problems)


# ----------------------------------------------------------- painted and headers


def header_problems(header: QHeaderView) -> list[str]:
    """Sections whose title is cut: each shows its whole title, or one elided on purpose ("…") whose
    tooltip has the whole title."""
    model, style, fm = header.model(), header.style(), header.fontMetrics()
    margin = 2 * style.pixelMetric(QStyle.PixelMetric.PM_HeaderMargin) + 4
    problems = []
    for section in range(header.count()):
        if header.isSectionHidden(section):
            continue
        text = str(model.headerData(section, header.orientation()) or "")
        need = fm.horizontalAdvance(text) + margin
        if header.isSortIndicatorShown() and header.sortIndicatorSection() == section:
            need += style.pixelMetric(QStyle.PixelMetric.PM_HeaderMarkSize)
        tip = model.headerData(section, header.orientation(), Qt.ItemDataRole.ToolTipRole)
        full = model.headerData(section, header.orientation(), Qt.ItemDataRole.UserRole) or text
        if header.sectionSize(section) < need:
            problems.append(f"{text!r}: {header.sectionSize(section)} px < {need}")
        elif text != full and not (("…" in text or _legend(header, section, text, full)) and tip and full in str(tip)):
            problems.append(f"{text!r} shortened from {full!r} without an ellipsis and a tooltip")
    return problems


def _legend(header: QHeaderView, section: int, text: str, full: str) -> bool:
    """A column numbered where no name fits (the confusion matrix at 1024x640): its number is the legend
    the row titles start with ("1 billing", elided where long, the whole name in its tooltip)."""
    rows = header.model().headerData(section, Qt.Orientation.Vertical) if text.isdigit() else None
    return header.orientation() == Qt.Orientation.Horizontal and str(rows or "").startswith(f"{text} ")


@pytest.mark.parametrize("baseline", [False, True], ids=["plain", "baseline"])
@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_headers_and_painted_text_are_whole(qtbot, window, size, baseline):
    five_labels_loaded(qtbot, window, baseline)
    shown(window, size)
    confusion = window.results.confusion
    assert confusion.isVisible() and confusion.columnCount() == 7
    problems = header_problems(confusion.horizontalHeader())
    problems += header_problems(window.tickets.table.horizontalHeader())
    assert not problems, "\n".join(problems)
    ticket = window.tickets.table.horizontalHeader().sectionSize(0)
    assert ticket >= 180, f"the Ticket column is {ticket} px"  # readable with every column shown
    teach = window.detail.teach_box
    assert teach.width() >= teach.fontMetrics().horizontalAdvance(teach.currentText()) + 24, "Teach combo cut"
    bars = window.detail.bars
    rows = bars.layout_rows()
    assert len(rows) == 5
    for row, (full, *_rest) in zip(rows, bars.rows):
        assert not row.name_rect.intersects(row.bar_rect) and not row.bar_rect.intersects(row.value_rect)
        assert row.name_rect.right() <= bars.width() and row.value_rect.right() <= bars.width() + 1
        assert row.text == full or ("…" in row.text and full in bars.toolTip())


def test_the_bars_elide_long_names_and_keep_text_off_the_bars(qtbot):  # qtbot: a QApplication for the fonts
    from PySide6.QtGui import QFont, QFontMetrics

    from triage_gui.gui.results.detail_pane import bar_layout

    bold = QFont()
    bold.setBold(True)
    metrics = QFontMetrics(bold)
    names = ["billing", "a_very_long_label_name_about_account_security"]
    for width in (160, 260, 600):
        rows = bar_layout(names, width, metrics)
        for row in rows:
            assert not row.name_rect.intersects(row.bar_rect) and not row.bar_rect.intersects(row.value_rect)
            assert metrics.horizontalAdvance(row.text) <= row.name_rect.width()
            assert metrics.horizontalAdvance("0.00") <= row.value_rect.width() and row.value_rect.right() <= width
        assert rows[0].text == "billing" and rows[1].name_rect.top() >= rows[0].name_rect.bottom()
    assert "…" in bar_layout(names, 260, metrics)[1].text
    assert bar_layout(names, 900, metrics)[1].text == names[1]


def test_names_too_long_for_half_the_pane_go_over_their_bars_whole(qtbot):
    """W9: at 1024x640 the two-field bank prompt's queue bars read "pa…rs", "to…sh", "fe…ge", "acc…ity"."""
    from PySide6.QtGui import QFont, QFontMetrics

    from triage_gui.gui.results.detail_pane import ROW_HEIGHT, ProbabilityBars, bar_layout

    bold = QFont()
    bold.setBold(True)
    metrics = QFontMetrics(bold)
    names = ["cards", "payments and transfers", "top-up and cash", "fees and exchange", "account and security"]
    rows = bar_layout(names, 170, metrics)
    assert [row.text for row in rows] == names
    for row, below in itertools.pairwise(rows):
        assert not row.name_rect.intersects(row.bar_rect) and not row.bar_rect.intersects(row.value_rect)
        assert row.value_rect.right() <= 170 and below.name_rect.top() >= row.bar_rect.bottom()
    assert bar_layout(["billing", "account"], 170, metrics)[1].name_rect.top() == 2 + ROW_HEIGHT  # short: one line
    bars = ProbabilityBars()
    qtbot.addWidget(bars)
    bars.show()
    bars.resize(170, 10)
    bars.set_rows([(name, 0.2, i, i == 0) for i, name in enumerate(names)])
    assert bars.height() == 2 * ROW_HEIGHT * len(names) + 4  # every row shown, none over another
    bars.resize(900, bars.height())
    assert bars.height() == ROW_HEIGHT * len(names) + 4


def test_the_teach_box_shows_a_long_label_whole(qtbot):
    """W11: the Teach box showed ten letters of "payments and transfers" ("payments and tra"), the label a lead
    was about to teach; it is as wide as the longest label, up to WIDEST_LABEL letters."""
    from triage_gui.engine.table import NewRow, TicketTable
    from triage_gui.gui.results.detail_pane import WIDEST_LABEL, FieldPart

    part = FieldPart()
    qtbot.addWidget(part)
    width = part.teach_box.fontMetrics().horizontalAdvance
    table = TicketTable()
    table.add([NewRow({"text": "my transfer failed"}, "my transfer failed")])
    table.start_version(0, ["cards", "payments and transfers"], [])
    part.show_decision(table, 0, None, "", True)
    assert part.teach_box.sizeHint().width() > width("payments and transfers")
    long = "payments and transfers " * 3  # capped: the row wraps, the pane is not pushed wider
    table.start_version(1, ["cards", long], [])
    part.show_decision(table, 0, None, "", True)
    assert width(long[:WIDEST_LABEL]) < part.teach_box.sizeHint().width() < width(long)


# ------------------------------------------------------------------ the screen


def test_a_rect_is_fitted_inside_the_free_area():
    from PySide6.QtCore import QMargins

    from triage_gui.gui.geometry import fit_rect

    laptop, frame = QRect(0, 0, 1024, 640), QMargins(4, 32, 4, 4)
    fitted = fit_rect(QRect(0, 0, 1280, 720), laptop, frame)
    assert laptop.contains(fitted.marginsAdded(frame)) and fitted.width() == 1016 and fitted.height() == 604
    moved = fit_rect(QRect(1900, 1000, 800, 500), laptop, frame)  # saved on a monitor to the right
    assert laptop.contains(moved.marginsAdded(frame)) and moved.size() == QRect(0, 0, 800, 500).size()
    panel = QRect(0, 28, 1366, 740)  # a top panel takes 28 px
    assert fit_rect(QRect(100, 0, 800, 500), panel, frame).top() == 28 + 32
    assert fit_rect(QRect(100, 100, 800, 500), panel, frame) == QRect(100, 100, 800, 500)  # fits: untouched
    second = QRect(-1280, 0, 1280, 1024)  # a monitor left of the primary
    assert fit_rect(QRect(-1200, 50, 900, 600), second, frame) == QRect(-1200, 50, 900, 600)


def fits(window) -> bool:
    """The whole window, its frame included, on its screen's free area."""
    return window.screen().availableGeometry().contains(window.frameGeometry())


def test_the_first_window_fits_the_screen(qtbot, window):
    assert window.screen().availableGeometry().width() < 1280  # the offscreen screen: 800x800
    assert fits(window) and window.width() >= 700 and window.height() >= 600


def test_a_geometry_saved_on_a_larger_monitor_is_brought_on_screen(qtbot, window, event_loop_qt):
    window.setGeometry(1500, 1200, 1800, 1000)  # off the 800x800 screen, and larger than it
    close_fake(window)
    second = fake_window(qtbot)
    try:
        assert fits(second), second.geometry()
    finally:
        close_fake(second)


SMALL_SCREEN = """
import json, os, sys
sys.path.insert(0, "tests")
import qasync
from PySide6.QtWidgets import QApplication
app = QApplication([])
qasync.QEventLoop(app, already_running=True)
from fake_engine import FakeEngine
from triage_gui.gui.main_window import MainWindow
from triage_gui.session.session import Session
window = MainWindow(session=Session(FakeEngine().as_engine(), device="cpu", encoder="none"))
window.show()
app.processEvents()
print(json.dumps([window.screen().availableGeometry().getRect(), window.frameGeometry().getRect()]))
window.close_now()
"""


def test_on_a_1024x640_screen_the_whole_window_is_on_it(tmp_path):
    """The real platform screen set to 1024x640 (the offscreen plugin's configfile), in a child process."""
    import json
    import os
    import subprocess
    import sys

    config = tmp_path / "screen.json"
    screen = {"name": "laptop", "x": 0, "y": 0, "width": 1024, "height": 640, "logicalDpi": 96, "dpr": 1}
    config.write_text(json.dumps({"screens": [screen]}), encoding="utf-8")
    env = {**os.environ, "QT_QPA_PLATFORM": f"offscreen:configfile={config}", "TRIAGE_GUI_CONFIG_DIR": str(tmp_path)}
    out = subprocess.run(
        [sys.executable, "-c", SMALL_SCREEN], env=env, capture_output=True, text=True, timeout=120, check=True
    ).stdout
    available, frame = (QRect(*r) for r in json.loads(out.strip().splitlines()[-1]))
    assert available == QRect(0, 0, 1024, 640)
    assert available.contains(frame), frame


# ------------------------------------------------------------------- keyboard


def focused_window(qtbot, window):
    window.ticket_actions.paste_text("my card is lost\nthe app crashes\na refund please")
    qtbot.waitUntil(lambda: window.session.table.count_scored() == 3 and not window.session.busy, timeout=10_000)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=2_000)
    return window.tickets.table


def test_tab_and_shift_tab_leave_the_ticket_table(qtbot, window):
    table = focused_window(qtbot, window)
    window.tickets.select_source_row(1)
    table.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(table.hasFocus, timeout=1_000)
    qtbot.keyClick(table, Qt.Key.Key_Tab)
    after = QApplication.focusWidget()
    assert after is not None and after is not table and not table.isAncestorOf(after)
    table.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.keyClick(table, Qt.Key.Key_Tab, Qt.KeyboardModifier.ShiftModifier)
    before = QApplication.focusWidget()
    assert before is not None and before is not table and before is not after
    assert table.currentIndex().row() == 1  # the cursor stayed on its row: Tab did not walk the cells


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_focused_table_is_ringed_in_the_highlight_colour(qtbot, window, scheme):
    from PySide6.QtGui import QPalette

    window.app_actions.set_appearance(scheme)
    try:
        table = focused_window(qtbot, window)
        window.editor.instruction.setFocus()
        qtbot.waitUntil(lambda: not table.hasFocus(), timeout=1_000)
        y = table.height() // 2
        plain, viewport = table.grab().toImage(), table.viewport().geometry()
        table.setFocus(Qt.FocusReason.TabFocusReason)
        qtbot.waitUntil(table.hasFocus, timeout=1_000)
        ringed = table.grab().toImage()
        highlight = QApplication.palette().color(QPalette.ColorRole.Highlight).rgb()
        assert ringed.pixel(0, y) == ringed.pixel(1, y) == highlight  # a 2 px ring on the left edge
        assert plain.pixel(0, y) != highlight and plain.pixel(1, y) != highlight
        assert ringed.pixel(ringed.width() - 1, y) == highlight
        assert table.viewport().geometry() == viewport  # nothing moved: the ring is as wide as frame and padding
        window.grab().save(f"/tmp/fit/focus-{scheme}.png")
    finally:
        window.app_actions.set_appearance("light")


# -------------------------------------------------------------------- colours


def test_a_label_keeps_its_colour_whatever_the_other_labels_and_their_order():
    from triage_gui.gui.tickets.label_colors import LABEL_HUES, color_slots, label_slot

    billing = label_slot("billing", ["billing", "technical"])
    assert label_slot("billing", ["technical", "account", "billing"]) == billing
    assert label_slot("billing", ["technical", "billing"]) == billing  # reordered
    assert label_slot("billing", ["technical", "account", "billing", "shipping_and_delivery"]) != label_slot(
        "technical", ["technical", "account", "billing", "shipping_and_delivery"]
    )
    for labels in (FIVE, [*FIVE, "general", "fraud", "refunds", "cards", "app"]):  # 5 and 10: room for all
        slots = color_slots(tuple(labels))
        assert len(set(slots.values())) == len(labels) and set(slots.values()) <= set(range(len(LABEL_HUES)))
        assert color_slots(tuple(reversed(labels))) == slots  # the prompt's order does not matter
    assert label_slot("Café", ["Café"]) == label_slot("Cafe\u0301", ["Cafe\u0301"])  # NFC: one name, one colour


def test_label_colours_are_the_same_in_another_process():
    """No salted hash(): a child process (another PYTHONHASHSEED) gives every label the same colour."""
    import os
    import subprocess
    import sys

    from triage_gui.gui.tickets.label_colors import color_slots

    code = (
        "from triage_gui.gui.tickets.label_colors import color_slots; import sys; "
        "print(color_slots(tuple(sys.argv[1:])))"
    )
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        out = subprocess.run([sys.executable, "-c", code, *FIVE], env=env, capture_output=True, text=True, check=True)
        assert out.stdout.strip() == str(color_slots(tuple(FIVE)))


def test_the_table_and_the_bars_colour_a_label_by_its_name(qtbot, window):
    from triage_gui.gui.tickets.label_colors import label_color, label_slot
    from triage_gui.gui.tickets.ticket_model import Col

    five_labels_loaded(qtbot, window, False)
    table, model = window.session.table, window.model
    column = model.column_index(Col.LABEL)
    for row in range(5):
        label = table.label(row)
        tint = model.index(row, column).data(Qt.ItemDataRole.BackgroundRole)
        assert tint == label_color(label_slot(label, FIVE), False)
    assert [r[2] for r in window.detail.bars.rows] == [label_slot(name, FIVE) for name in FIVE]


def test_the_empty_latency_charts_line_stays_inside_its_plot_at_1024x640(qtbot):
    """Walkthrough W: at 1024x640 the chart is ~330 px wide, and its one line, wider than the plot, was cut at the
    plot's frame on both sides ("atency per ticket … labellin"); it wraps now."""
    from PySide6.QtGui import QColor

    from triage_gui.gui.results.latency_chart import LatencyChart

    chart = LatencyChart()
    qtbot.addWidget(chart)
    line = chart.fontMetrics().horizontalAdvance("Latency per ticket appears here while labelling")
    chart.resize(int(line * 0.9) + 58, 230)  # the plot narrower than the line, as at 1024x640 (272 px, line ~300)
    image = chart.grab().toImage()
    plot = chart.plot_rect()
    background = QColor(image.pixel(2, 2))
    rows = range(int(plot.top()) + 3, int(plot.bottom()) - 2)
    edges = [*range(int(plot.left()) + 3, int(plot.left()) + 9), *range(int(plot.right()) - 8, int(plot.right()) - 2)]
    inked = [(x, y) for x in edges for y in rows if QColor(image.pixel(x, y)) != background]
    assert not inked, f"the line runs to the plot's frame and is cut there, at {inked[:3]}"
