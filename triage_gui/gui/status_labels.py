"""The status bar's four permanent labels, left to right: the random-check estimate, the learning state, the
prompt's state and the model in use; each with the room it may take from the passing messages."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QStatusBar

from ..session.checks import NOT_ESTIMATED
from .widgets.elided_label import ElidedLabel


def add_status_labels(bar: QStatusBar) -> tuple[ElidedLabel, ElidedLabel, QLabel, ElidedLabel]:
    """The estimate, the learning state, the prompt's state and the model, added to ``bar``."""
    model_status = ElidedLabel()  # gives up width to the messages and the estimate at 1024 px
    model_status.setAccessibleName("Model")
    prompt_status = QLabel("Waiting for the model…")
    prompt_status.setAccessibleName("Prompt state")
    learn_status = ElidedLabel(tooltip=False)  # its tooltip: the heads and weights
    learn_status.setAccessibleName("Learning state")
    check_status = ElidedLabel(NOT_ESTIMATED, tooltip=False)  # its tooltip: the details
    check_status.setAccessibleName("Estimated accuracy")
    widest = "~100% (100–100%), 20 checks on v10 with 100 taught"  # room left for passing messages
    check_status.setMaximumWidth(check_status.fontMetrics().horizontalAdvance(widest))
    check_status.setToolTip("Check a random sample (Teach menu) to estimate the accuracy")
    # Room left for passing messages, but the usual line whole: 30 average characters cut "Learned from 10
    # taught tickets" in the README's screenshot (1280 px); "+ 0 + 30 taught" of three fields is as wide.
    learned = learn_status.fontMetrics().horizontalAdvance("Learned from 1,000 taught tickets")
    learn_status.setMaximumWidth(learned + 2 * learn_status.margin() + 4)
    model_status.setMaximumWidth(bar.fontMetrics().averageCharWidth() * 42)
    for label in (check_status, learn_status, prompt_status, model_status):
        bar.addPermanentWidget(label)
    return check_status, learn_status, prompt_status, model_status
