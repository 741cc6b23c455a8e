"""The model and the application: choose a model (with a cancellable progress dialog), calibration,
appearance (light, dark, the system's), the guide and About.

Narrow inputs, never the window: the session, the settings, a parent widget for dialogs, a
callback that repaints the ticket table when the colours change, and the status bar's line.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QDialog, QLabel, QProgressDialog, QWidget

from ...engine.model import MINILM, canonical_encoder, encoder_name
from ...session.events import Event
from ...session.session import Session
from ...session.status import ModelStatus
from .. import dialogs, guide, theme
from ..settings import AppSettings


class AppActions:
    """See the module docstring."""

    def __init__(
        self,
        session: Session,
        settings: AppSettings,
        parent: QWidget,
        repaint: Callable[[], None],
        notify: Callable[[str, int], None] | None = None,
    ) -> None:
        self.session, self.settings, self.parent, self.repaint = session, settings, parent, repaint
        self.notify = notify or (lambda text, ms: None)
        self.progress_dialog: QProgressDialog | None = None
        self.guide_dialog: QDialog | None = None  # the F1 guide while open (tests look at it)
        self.encoder_switched: Event[[]] = Event()  # by the model dialog or the offer over the table

    # --------------------------------------------------------------- model

    def choose_model(self) -> None:
        chosen = dialogs.choose_model(self.parent, self.session.model_spec or "", self.session.encoder_spec)
        if chosen:
            spec, encoder = chosen
            self.use_encoder(encoder)
            if spec != self.session.model_spec:
                self.session.load_model(spec)

    def use_encoder(self, encoder: str) -> None:
        """Switch the sentence encoder (every row is embedded again) and keep the choice for the next start; the
        status bar says so: after *Choose model…* the labels changed with no word, and nothing in the window
        names the encoder in use (walkthrough W4, a German file switched to multilingual-e5-small)."""
        self.settings.set("encoder", encoder)
        if self.session.set_encoder(encoder):
            name = encoder_name(encoder)
            again = "every ticket is labelled again" if self.session.ticket_count else "the next tickets use it"
            self.notify(f"Sentence encoder: {name}; {again}.", 15000)
            self.encoder_switched.emit()

    def name_model(self, label: QLabel) -> None:
        """The status bar's model line (``label``) and its tooltip, once a model is ready, naming the sentence
        encoder when it is not the bundled MiniLM: after a switch to multilingual-e5-small only a message said so,
        gone in 15 s (W14)."""
        status = self.session.model_status
        if status.state != "ready":
            return
        spec = canonical_encoder(self.session.encoder_spec)
        encoder = "" if spec == MINILM else "no sentence encoder" if spec == "none" else encoder_name(spec)
        label.setText(" · ".join(filter(None, [status.name, encoder, status.device])))
        label.setToolTip(f"{status.name} on {status.device}, loaded in {status.seconds:.1f} s; sentence encoder: "
                         f"{encoder or encoder_name(MINILM)}")  # fmt: skip

    def set_calibration(self, on: bool) -> None:
        """Through the session's setter (it rebuilds the prompt), never by writing its flag."""
        self.settings.set("calibrate", on)
        self.session.set_calibration(on)

    def model_progress(self, status: ModelStatus) -> None:
        """Conversions and downloads (anything that reports progress before the end) get a cancellable dialog."""
        if status.fraction >= 0.9 and self.progress_dialog is None:
            return
        if self.progress_dialog is None:
            dialog = QProgressDialog("Preparing the model…", "Cancel", 0, 100, self.parent)
            dialog.setWindowTitle("Loading the model")
            # The window manager sizes the title bar from the dialog: at the label's width it read "Loadi… model".
            dialog.setMinimumWidth(max(360, dialog.fontMetrics().horizontalAdvance(dialog.windowTitle()) + 200))
            dialog.setMinimumDuration(0)
            dialog.setWindowModality(Qt.WindowModality.NonModal)
            dialog.canceled.connect(self.session.cancel_load)
            self.progress_dialog = dialog
        self.progress_dialog.setLabelText(status.message)
        self.progress_dialog.setValue(int(status.fraction * 100))
        self.progress_dialog.show()

    def close_progress(self) -> None:
        if self.progress_dialog is not None:
            self.progress_dialog.blockSignals(True)
            self.progress_dialog.close()
            self.progress_dialog.deleteLater()
            self.progress_dialog = None

    # ----------------------------------------------------------- appearance

    def set_appearance(self, scheme: str) -> None:
        """Light, dark or the system's scheme; remembered, and followed when the system switches."""
        self.settings.set("appearance", scheme)
        theme.apply_scheme(scheme)
        self.repaint()

    def follow_system_scheme(self) -> None:
        def changed() -> None:
            if self.settings.get_str("appearance", "system") == "system":
                self.set_appearance("system")

        QGuiApplication.styleHints().colorSchemeChanged.connect(changed)
        scheme = self.settings.get_str("appearance", "system")
        theme.apply_scheme(scheme if scheme in theme.SCHEMES else "system")

    # ----------------------------------------------------------------- help

    def show_guide(self, shortcuts: list[tuple[str, str]]) -> None:
        self.guide_dialog = guide.show_guide(self.parent, shortcuts)

    def about(self) -> None:
        status = self.session.model_status
        dialogs.show_about(self.parent, status.name or "none", status.licence)
