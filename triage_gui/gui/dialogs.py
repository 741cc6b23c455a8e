"""Dialogs: model picker, About, Replace-or-Add, a workbook's sheet, gold-value mapping, the guide, a conflict."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QGridLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QRadioButton,
    QWidget,
)

from ..engine.model import BUNDLED, ENCODERS, RECOMMENDED_ONLINE, is_hub_id
from ..engine.prompt import PromptConflict
from ..words import counted, plural


class ModelDialog(QDialog):
    """Pick the bundled model, a Hub id, a local folder or a .gguf file, and the sentence encoder."""

    def __init__(self, current: str, parent: QWidget | None = None, encoder: str = "") -> None:
        super().__init__(parent)
        self.setWindowTitle("Choose model")
        self.bundled = QRadioButton("Bundled SmolLM2-135M-Instruct (offline)")
        self.hub = QRadioButton("Hugging Face Hub id (needs network the first time)")
        self.folder = QRadioButton("Local model folder")
        self.gguf = QRadioButton("Local .gguf file (converted once, then cached)")
        self.group = QButtonGroup(self)
        self.hub_id = QLineEdit(RECOMMENDED_ONLINE)
        self.hub_id.setAccessibleName("Hub model id")
        self.folder_path = QLineEdit()
        self.folder_path.setAccessibleName("Model folder")
        self.gguf_path = QLineEdit()
        self.gguf_path.setAccessibleName("GGUF file")
        browse_folder = QPushButton("Browse…")
        browse_folder.clicked.connect(self._browse_folder)
        browse_gguf = QPushButton("Browse…")
        browse_gguf.clicked.connect(self._browse_gguf)
        grid = QGridLayout(self)
        for row, (radio, edit, button) in enumerate(
            [
                (self.bundled, None, None),
                (self.hub, self.hub_id, None),
                (self.folder, self.folder_path, browse_folder),
                (self.gguf, self.gguf_path, browse_gguf),
            ]
        ):
            self.group.addButton(radio)
            grid.addWidget(radio, row, 0)
            if edit is not None:
                grid.addWidget(edit, row, 1)
            if button is not None:
                grid.addWidget(button, row, 2)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        grid.addWidget(QLabel(f"Recommended online model: {RECOMMENDED_ONLINE}"), 4, 0, 1, 3)
        # The first pass's sentence encoder: the bundled ones by name, a folder given on the command line kept.
        self.encoder = QComboBox()
        self.encoder.setAccessibleName("Sentence encoder")
        for name, title in ENCODERS.items():
            self.encoder.addItem(title, name)
        if encoder and self.encoder.findData(encoder) < 0:
            self.encoder.addItem("none (labels learned without an encoder)" if encoder == "none" else encoder, encoder)
        self.encoder.setCurrentIndex(max(0, self.encoder.findData(encoder)))
        grid.addWidget(QLabel("Sentence encoder (the first pass):"), 5, 0)
        grid.addWidget(self.encoder, 5, 1, 1, 2)
        grid.addWidget(buttons, 6, 0, 1, 3)
        self._select(current)

    def _select(self, spec: str) -> None:
        if not spec or spec == BUNDLED:
            self.bundled.setChecked(True)
        elif spec.lower().endswith(".gguf"):
            self.gguf.setChecked(True)
            self.gguf_path.setText(spec)
        elif is_hub_id(spec):
            self.hub.setChecked(True)
            self.hub_id.setText(spec)
        else:
            self.folder.setChecked(True)
            self.folder_path.setText(spec)

    def spec(self) -> str:
        if self.hub.isChecked():
            return self.hub_id.text().strip()
        if self.folder.isChecked():
            return self.folder_path.text().strip()
        if self.gguf.isChecked():
            return self.gguf_path.text().strip()
        return BUNDLED

    def _browse_folder(self) -> None:
        path = QFileDialog.getExistingDirectory(self, "Model folder")
        if path:
            self.folder_path.setText(path)
            self.folder.setChecked(True)

    def _browse_gguf(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "GGUF model file", "", "GGUF models (*.gguf)")
        if path:
            self.gguf_path.setText(path)
            self.gguf.setChecked(True)


def show_about(parent: QWidget, model_name: str, licence: str) -> None:
    from ..versions import version_text

    versions = version_text().replace("\n", "<br>")
    QMessageBox.about(
        parent,
        "About Ticket Triage",
        f"<h3>Ticket Triage</h3><p>Labels support tickets live with a small local language model, "
        f"re-using the prompt's key/value cache for every ticket.</p><p>{versions}<br>Qt {_qt_version()}</p>"
        f"<p>Model: {model_name}<br>Model licence: {licence}</p>"
        "<p>Sample data: BANKING77 (CC-BY-4.0, Casanueva et al. 2020).</p>",
    )


def _qt_version() -> str:
    from PySide6.QtCore import qVersion

    return qVersion()


def choose_model(parent: QWidget, current: str, encoder: str = "") -> tuple[str, str] | None:
    """The model and the sentence encoder chosen, or None (cancelled)."""
    dialog = ModelDialog(current, parent, encoder)
    if dialog.exec() and dialog.spec():
        return dialog.spec(), str(dialog.encoder.currentData())
    return None


def replace_or_add(parent: QWidget, loaded: int, names: list[str], title: str = "Open tickets") -> bool | None:
    """Ask what newly opened files (or pasted tickets) do to the loaded tickets: True replace, False add,
    None cancel."""
    box = QMessageBox(parent)
    box.setIcon(QMessageBox.Icon.Question)
    box.setWindowTitle(title)
    shown = ", ".join(names[:3]) + ("…" if len(names) > 3 else "")
    them = plural(loaded, "it", "them")
    loaded_text = f"{counted(loaded, 'ticket')} {plural(loaded, 'is', 'are')} loaded"
    box.setText(f"{loaded_text}. Replace {them} with {shown}, or add to {them}?")
    replace = box.addButton("Replace", QMessageBox.ButtonRole.DestructiveRole)
    add = box.addButton("Add", QMessageBox.ButtonRole.AcceptRole)
    box.addButton(QMessageBox.StandardButton.Cancel)
    box.setDefaultButton(replace)  # a new file is usually the next batch to label, not more of the same
    box.exec()
    clicked = box.clickedButton()
    if clicked is replace:
        return True
    if clicked is add:
        return False
    return None


def choose_sheet(parent: QWidget, name: str, sheets: list[str], offered: int = 0) -> str | None:
    """Ask which of a workbook's sheets with data holds the tickets (``offered`` preselected); None: cancel."""
    question = f"{name} has {len(sheets)} sheets with data. Which one holds the tickets?"
    sheet, ok = QInputDialog.getItem(parent, "Open workbook", question, sheets, offered, False)
    return sheet if ok and sheet in sheets else None


class GoldMappingDialog(QDialog):
    """Map the values of a gold column to labels (or ignore them), when they are not label names."""

    def __init__(self, parent: QWidget, table, column: str, matched: int, total: int) -> None:
        from ..session.gold import IGNORE, normal, value_counts

        super().__init__(parent)
        self.setWindowTitle(f"Gold column {column}")
        labels = list(table.labels)
        by_name = {normal(n): n for n in labels}
        grid = QGridLayout(self)
        grid.addWidget(
            QLabel(
                f"{matched} of {total} values in <b>{column}</b> are label names. Map the others to a label, "
                "or ignore them (not counted in accuracy)."
            ),
            0,
            0,
            1,
            3,
        )
        self.boxes: dict[str, QComboBox] = {}
        self.ignore = IGNORE
        for row, (value, count) in enumerate(value_counts(table, column, limit=60), start=1):
            grid.addWidget(QLabel(value), row, 0)
            grid.addWidget(QLabel(f"{count}×"), row, 1)
            box = QComboBox()
            box.addItem("(ignore)", IGNORE)
            for name in labels:
                box.addItem(name, name)
            box.setCurrentIndex(max(0, box.findData(by_name.get(normal(value), IGNORE))))
            grid.addWidget(box, row, 2)
            self.boxes[normal(value)] = box
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        grid.addWidget(buttons, len(self.boxes) + 1, 0, 1, 3)

    def mapping(self) -> dict[str, str]:
        return {value: str(box.currentData()) for value, box in self.boxes.items()}


def gold_mapping(parent: QWidget, table, column: str, matched: int, total: int) -> dict[str, str] | None:
    dialog = GoldMappingDialog(parent, table, column, matched, total)
    return dialog.mapping() if dialog.exec() else None


def ask_conflict(parent: QWidget, exc: PromptConflict) -> str | None:
    """ "mine", "theirs" or None (cancel): whose prompt to keep when both windows changed it."""
    box = QMessageBox(QMessageBox.Icon.Question, "Prompt changed outside this window", str(exc), parent=parent)
    box.setInformativeText(
        f"Its instruction now begins “{exc.theirs.instruction[:80]}”. Keep your prompt (the taught tickets "
        "of both are kept), or load the other window's and drop your edits?"
    )
    mine = box.addButton("Keep mine", QMessageBox.ButtonRole.AcceptRole)
    theirs = box.addButton("Load theirs", QMessageBox.ButtonRole.DestructiveRole)
    box.addButton(QMessageBox.StandardButton.Cancel)
    box.exec()
    clicked = box.clickedButton()
    return "mine" if clicked is mine else "theirs" if clicked is theirs else None
