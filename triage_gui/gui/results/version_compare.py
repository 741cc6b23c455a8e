"""Versions' *Compare*: two prompt versions side by side, what changed only (instruction, labels and
their descriptions, examples), each with its accuracy and the taught tickets it was measured with.

It replaced a unified diff of the prompts as text (``@@ -6,7 +6,7 @@``), which a lead could not read,
shown without either version's accuracy."""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QTextBrowser, QVBoxLayout, QWidget

from ...engine.prompt import PromptProfile, VersionRecord


@dataclass(frozen=True)
class Side:
    number: int
    profile: PromptProfile
    record: VersionRecord | None

    def heading(self) -> str:
        record = self.record
        saved = f", saved {record.saved_at}" if record and record.saved_at else ""
        if record is None or record.accuracy is None:
            score = "no accuracy against gold yet"
        else:
            taught = f" with {record.taught} taught" if record.taught is not None else ""
            score = f"accuracy {100 * record.accuracy:.1f}%{taught}"
        return f"<b>Version {self.number}</b>{escape(saved)}<br>{escape(score)}"


def changes(old: PromptProfile, new: PromptProfile) -> list[tuple[str, str, str]]:
    """(what, before, after) for each thing that differs, in the editor's order; empty: the same prompt."""
    out: list[tuple[str, str, str]] = []
    if old.name != new.name:
        out.append(("Name", old.name, new.name))
    if old.instruction != new.instruction:
        out.append(("Instruction", old.instruction, new.instruction))
    before = {label.name: label.description for label in old.labels}
    after = {label.name: label.description for label in new.labels}
    for name in [*before, *(n for n in after if n not in before)]:
        if name not in after:
            out.append((f"Label {name}", f"{name}: {before[name]}", "(removed)"))
        elif name not in before:
            out.append((f"Label {name}", "(not there)", f"{name}: {after[name]}"))
        elif before[name] != after[name]:
            out.append((f"Description of {name}", before[name] or "(none)", after[name] or "(none)"))
    if list(before) != list(after) and set(before) == set(after):
        out.append(("Label order", ", ".join(before), ", ".join(after)))
    was = {(e.text, e.label) for e in old.examples}
    now = {(e.text, e.label) for e in new.examples}
    for text, label in [(e.text, e.label) for e in old.examples if (e.text, e.label) not in now]:
        out.append(("Example removed", f"[{label}] {text}", ""))
    for text, label in [(e.text, e.label) for e in new.examples if (e.text, e.label) not in was]:
        out.append(("Example added", "", f"[{label}] {text}"))
    return out


def what_changed(profiles: list[PromptProfile | None], numbers: list[int]) -> list[str]:
    """For each version (oldest first), the start of its line in Versions: what it changed since the one before
    ("Changed: instruction, description of billing · "), or "Same as version 1 · " where it is an earlier version
    again (a Go back); "" for the first. Four versions of six read "5 labels: cards, top-up and cash, fees …"
    alike, one like the next (W17)."""
    out: list[str] = []
    for i, profile in enumerate(profiles):
        before = profiles[i - 1] if i else None
        if profile is None or before is None:
            out.append("")
            continue
        same = next((n for n, p in zip(numbers[:i], profiles[:i]) if p is not None and not _differ(p, profile)), None)
        if same is not None:
            out.append(f"Same as version {same} · ")
            continue
        whats = list(dict.fromkeys(w for w, _, _ in changes(before, profile) if w != "Name"))
        if sum(w.startswith("Label ") for w in whats) > 2:  # suggested labels: "labels", not each one named
            whats = list(dict.fromkeys("Labels" if w.startswith("Label ") else w for w in whats))
        out.append(f"Changed: {', '.join(w[:1].lower() + w[1:] for w in whats)} · " if whats else "")
    return out


def version_rows(
    history: list[VersionRecord], profiles: list[PromptProfile | None]
) -> list[tuple[int, str, float | None, str, int | None]]:
    """Versions' rows, newest first: (number, saved at, accuracy, what it changed and what it holds, taught
    tickets the accuracy was measured with); ``profiles``: each record's prompt, oldest first as ``history``."""
    rows = []
    said = what_changed(profiles, [r.number for r in history])
    for record, change in zip(reversed(history), reversed(said)):
        names = [str(x.get("name", "")) for x in record.prompt.get("labels", []) if isinstance(x, dict)]
        instruction = str(record.prompt.get("instruction", ""))
        summary = f"{len(names)} labels: {', '.join(names)[:80]} — {instruction[:60]}"
        rows.append((record.number, record.saved_at, record.accuracy, change + summary, record.taught))
    return rows


def _differ(a: PromptProfile, b: PromptProfile) -> bool:
    return any(what != "Name" for what, _, _ in changes(a, b))


def compare_html(old: Side, new: Side) -> str:
    rows = changes(old.profile, new.profile)
    cell = "padding:4px 8px; vertical-align:top; border-bottom:1px solid #999;"
    html = [f"<table width='100%' cellspacing='0'><tr><th></th><th style='{cell}' align='left'>{old.heading()}</th>"
            f"<th style='{cell}' align='left'>{new.heading()}</th></tr>"]  # fmt: skip
    for what, before, after in rows:
        html.append(
            f"<tr><td style='{cell}'><b>{escape(what)}</b></td><td style='{cell}'>{_text(before)}</td>"
            f"<td style='{cell}'>{_text(after)}</td></tr>"
        )
    html.append("</table>")
    if not rows:
        html.append("<p>No difference in what the model reads.</p>")
    else:
        html.append("<p>Everything else is the same.</p>")
    return "".join(html)


def _text(text: str) -> str:
    return escape(text).replace("\n", "<br>")


def compare_dialog(parent: QWidget, old: Side, new: Side, field: str = "") -> QDialog:
    """The comparison, opened (not modal: the window stays usable); ``field``: a further field's name (two of its
    versions: its part of the prompt, its accuracy against its own gold column)."""
    dialog = QDialog(parent)
    whose = f"{field}: version" if field else "Prompt version"
    dialog.setWindowTitle(f"{whose} {old.number} and version {new.number}")
    text = QTextBrowser()
    text.setAccessibleName("What changed between the two versions")
    text.setHtml(compare_html(old, new))
    buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
    buttons.rejected.connect(dialog.reject)
    box = QVBoxLayout(dialog)
    box.addWidget(text)
    box.addWidget(buttons)
    dialog.resize(760, 460)
    dialog.open()
    return dialog
