"""The F1 guide: the five steps, where each label comes from, what each accuracy figure means, and the
keys (from the actions table). A scrolling dialog sized to the screen: as a message box it was taller
than a 1024x640 screen, and a lead asked where the "learned" labels and the two accuracies came from."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QTextBrowser, QVBoxLayout, QWidget

from ..engine.tickets import FORMAT_NAMES

STEPS = f"""<h3>Ticket Triage in five steps</h3>
<ol>
<li><b>Tickets in:</b> drop a {FORMAT_NAMES} file on the window, paste with Ctrl+V, or open
with Ctrl+O. Every ticket gets a label as it is read.</li>
<li><b>Check:</b> pick the column of correct labels as <i>Gold</i> to see accuracy, per-label precision and recall,
and the confusion matrix (click a cell to list its tickets).</li>
<li><b>Teach:</b> where a label is wrong, double-click it and choose the right one, or select rows and press 1-9
(0 the tenth label); Enter in the table accepts a right label, Ctrl+Z undoes. Every other ticket is relabelled
from what you taught within a second. The <i>Teach next</i> filter (N) lists the tickets that teach the most.</li>
<li><b>Prompt:</b> edit the instruction, labels and examples on the left and save (Ctrl+S); the previous labels stay
visible, marked out of date, until the new ones arrive. Every saved version is kept with the prompt, with its
accuracy, under <i>Versions</i>.</li>
<li><b>Out:</b> export (Ctrl+E) writes every row, in the file's own columns, with its label, where it came from and
the prompt's hash, as CSV or Excel.</li>
</ol>
"""

SOURCES = """<h3>Where a label comes from (the <i>From</i> column)</h3>
<ul>
<li><b>taught</b> (✓): you set it. It is kept with the prompt and never changed by the model.</li>
<li><b>first pass</b>: the classifier below before the language model has read the ticket: it labels every
ticket within seconds of opening a file from a sentence encoder's view and the ticket's words; the language
model then refines the labels row by row (the run bar counts both).</li>
<li><b>learned</b>: a classifier fitted on this computer to what you taught, the prompt's examples and the label
descriptions. It reads the language model's view of the ticket, a sentence encoder's and the ticket's words,
weighted by how well each did on your tickets. Before you teach anything it learns from the prompt alone.</li>
<li><b>prompt</b>: the language model's own choice, scoring each label's name after the instruction, descriptions
and examples (calibrated against the prompt's own bias). Shown while nothing can be learned yet.</li>
</ul>
<p>Confidence is the probability of the shown label from where it came; low ones are marked so you can check them.</p>
"""

ACCURACY = """<h3>What the accuracy figures mean</h3>
<ul>
<li><b>~88% (74–95%), 30 checks on v3 with 40 taught, 2 h ago</b> in the status bar: from <i>Teach › Check a
random sample</i>. You confirm or correct randomly drawn untaught tickets; the figure is the share you confirmed,
with a 95% interval, and the checks are kept with the prompt. "(may have changed)": a newer prompt version
(not the checked one reverted to) or more teaching is in use since; check a new sample to see.
It is the only estimate of how right the labels are on tickets nobody has looked at. The tickets you corrected
by hand are not a fair sample (they are the wrong ones), so they never count.</li>
<li><b>Accuracy against gold</b> (<i>Accuracy</i> tab, once a <i>Gold</i> column is chosen): the labels
compared with the gold column of the file. A taught ticket
counts with the label the classifier gives it when not trained on it, so teaching cannot inflate it. The change
since the previous version is given only when both were measured on the same gold rows and taught set.</li>
<li><b>Agreement</b> (with <i>Compare with baseline</i> on): how often the fast cached path gives the same label as
re-encoding the whole prompt for the ticket. It should be 100%: it checks speed, not correctness.</li>
</ul>
"""


def guide_html(shortcuts: list[tuple[str, str]]) -> str:
    rows = "".join(f"<tr><td><b>{key}</b>&nbsp;&nbsp;</td><td>{what}</td></tr>" for key, what in shortcuts)
    return STEPS + SOURCES + ACCURACY + "<h3>Keyboard shortcuts</h3><table>" + rows + "</table>"


def show_guide(parent: QWidget, shortcuts: list[tuple[str, str]]) -> QDialog:
    """Open the guide, no larger than the screen it is on; Enter or Escape closes it."""
    dialog = QDialog(parent)
    dialog.setWindowTitle("Guide and keyboard shortcuts")
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    text = QTextBrowser(dialog)
    text.setOpenExternalLinks(False)
    text.setHtml(guide_html(shortcuts))
    text.setAccessibleName("Guide")
    buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, dialog)
    buttons.rejected.connect(dialog.reject)
    buttons.button(QDialogButtonBox.StandardButton.Close).setDefault(True)
    layout = QVBoxLayout(dialog)
    layout.addWidget(text)
    layout.addWidget(buttons)
    screen = (parent.screen() if parent is not None else dialog.screen()).availableGeometry()
    dialog.resize(min(720, screen.width() - 40), min(640, screen.height() - 60))
    dialog.open()
    return dialog
