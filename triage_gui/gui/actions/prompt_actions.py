"""The prompt side of the window: the editor shown against the prompt document (open, save, save as,
revert, drafts), the versions list, the diff, and importing or exporting the taught tickets.

It talks to :class:`session.prompt_document.PromptDocument` (which owns every write of the prompt file)
and gets narrow inputs, never the window: the session, the editor, the results area, a parent widget
for dialogs and two ways to tell the user (a status-bar note, a warning).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtWidgets import QDialog, QFileDialog, QMessageBox, QWidget

from ...engine.prompt import Field, Label, Measure, Problem, ProfileError, PromptProfile, VersionRecord, default_profile
from ...engine.tickets import read_taught, write_taught
from ...paths import lead_folder
from ...session import field_versions
from ...session.evaluation import Evaluation, Score
from ...session.prompt_document import DocumentStatus, PromptConflict, PromptDocument
from ...session.session import Session
from ...session.status import PromptStatus
from ...words import counted, plural
from ..dialogs import ask_conflict
from ..prompt.prompt_editor import PromptEditor, auto_name
from ..results.results_area import ResultsArea
from ..results.version_compare import Side, compare_dialog, version_rows

Notify = Callable[[str, int], None]
Warn = Callable[[str, str], None]


class PromptActions:
    """See the module docstring."""

    def __init__(
        self,
        document: PromptDocument,
        evaluation: Evaluation,
        session: Session,
        editor: PromptEditor,
        results: ResultsArea,
        parent: QWidget,
        notify: Notify,
        warn: Warn,
    ) -> None:
        self.document, self.evaluation, self.session = document, evaluation, session
        self.editor, self.results, self.parent = editor, results, parent
        self.notify, self.warn = notify, warn
        self.diff_dialog: QDialog | None = None
        self._left: dict[str, str] = {}  # after New prompt: the taught set the labels in use learned from
        self._restored = False  # the start put the prompt file's unsaved draft back in the editor
        document.changed.connect(self._show_state)
        document.failed.connect(lambda why: notify(why, 10000))
        document.merged.connect(self._merged)
        document.forgotten.connect(self._forgotten)
        document.fields_moved.connect(self._fields_moved)
        evaluation.scored.connect(self._scored)
        evaluation.field_scored.connect(self._field_scored)
        results.accuracy_field_chosen.connect(lambda field: self.refresh_versions())  # the field's versions
        evaluation.numbering = document.number
        # kept with the prompt file, each with what it was made under
        session.number_checks(document.number, self._labels_of, document.field_history)
        session.checks_changed.connect(lambda _: document.keep_checks(session.check_records()))
        session.field_checks_changed.connect(
            lambda *_: document.keep_field_checks(session.field_check_records(), session.field_names)
        )

    def start(self) -> None:
        """The saved prompt (with its taught tickets), else the default; an unsaved draft comes back on top."""
        saved, draft, note = self.document.start()
        if note:
            self.notify(note, 15000)
        self.editor.set_profile(saved)
        self._count_saved_fields(saved)
        if draft is not None:
            self.editor.set_profile(draft)
            self.document.draft = self.editor.profile()
            self._restored = True
            self.notify("Restored your unsaved prompt draft.", 10000)
        waiting = self.document.draft_taught  # taught where the file could not take them: offered back
        self.session.restore_kept([*((e.text, e.label) for e in saved.taught), *waiting], self.document.checks)
        if waiting:
            self.notify(f"Restored {counted(len(waiting), 'taught ticket')} kept in the draft.", 10000)
            self.keep_taught()
        self.session.set_prompt(saved)
        self._show_state(self.document.status)

    def _count_saved_fields(self, saved: PromptProfile) -> None:
        """The editor counts each field's taught tickets by its saved name from the start: a restored draft with
        a field added first said the first saved field's count under it until the model was ready (W20)."""
        self.editor.set_field_taught([len(f.taught) for f in saved.more_fields], [f.name for f in saved.fields])

    def add_field(self) -> None:
        """Edit > Add a field…: the editor asks its name and shows it (Ctrl+Z takes it back)."""
        self.editor.ask_add_field()

    def move_field(self, delta: int) -> None:
        """Edit > Move field left / right: the field shown in the editor (Ctrl+Z puts it back)."""
        self.editor.move_field(delta)

    def can_move_field(self, delta: int) -> bool:
        return self.editor.can_move_field(delta)

    def _fields_moved(self, order: list[int | None]) -> None:
        """A Save put the fields in another order (``order``: each field's place before it): the session's taught
        set, checks and undo steps follow each field; the editor counts each field's taught tickets anew."""
        saved, names = self.document.saved, [f.name for f in self.document.saved.fields]
        self.session.fields_moved([(e.text, e.label) for e in saved.taught], saved.checks, names, order)
        self.editor.set_field_taught([len(f.taught) for f in saved.more_fields], names)

    def focus_editor(self) -> None:
        """Ctrl+1: the keyboard's way into the editor, its instruction first."""
        self.editor.focus_instruction()

    def edited(self) -> None:
        self.document.edit(self.editor.profile())

    def _show_state(self, status: DocumentStatus) -> None:
        # The state first: at 1024 px the file name's end is what gives way ("Unsaved: new-prompt.j…").
        state = "Unsaved" if status.dirty else "New, not saved yet" if status.new else "Saved"
        why = status.not_written  # a read-only file: the taught tickets are in the draft, not the file
        kept = f"not written to {status.name}: {why}; kept in the draft meanwhile" if why else "kept with this prompt"
        self.editor.show_state(f"{state}: {status.name}", new=status.new, kept=kept)

    # ------------------------------------------------------------- saving

    def save(self, path: Path | None = None) -> bool:
        """Validate, write the profile atomically with the taught tickets, then rebuild in the background.
        An unchanged prompt is written (the taught tickets may have changed) but relabels nothing."""
        self.editor.flush_snapshot()
        profile, new = self.editor.profile(), self.document.status.new
        renamed: dict[int, dict[str, str]] = {}
        try:
            profile.validate()  # before a renamed label's taught tickets take its new name (W14)
            # each field's taught tickets of a renamed label take its new name (written as they change: save_taught)
            renamed = {} if new else self.session.follow_renames(self.editor.label_renames(), profile)
            taught = [(t, label) for t, label in self.session.taught_items() if not new or self._left.get(t) != label]
            note = self.document.save(profile, taught, path)  # a new prompt: only what was taught since New
        except ProfileError as exc:
            self.editor.show_problems(exc.problems)
            self.notify("Prompt not saved: " + exc.problems[0].message, 10000)
            return False
        except PromptConflict as exc:
            self.session.take_back_renames(renamed)  # the lead chooses first: Load theirs, Cancel keep the names
            return self._conflict(exc, profile, path)
        except OSError as exc:
            self.session.take_back_renames(renamed)  # the names of the prompt in use, as before the Save (W18)
            self._not_saved(path or self.document.path, exc)
            return False
        self.editor.clear_problems()
        self.editor.label_renames(saved=True)  # (a Save that wrote nothing keeps them for the next)
        self.evaluation.follow_renames(renamed, self.session.field_names)  # the gold rows of a renamed label count
        if new:  # the new prompt comes into use with its own taught tickets and checks
            saved = self.document.saved
            self.session.restore_kept([(e.text, e.label) for e in saved.taught], saved.checks)
        if not self.session.set_prompt(self.document.saved):
            self.notify(note or "Nothing the model reads changed: nothing to re-label.", 15000 if note else 6000)
        elif note:
            self.notify(note, 15000)
        return True

    def _not_saved(self, path: Path, exc: Exception) -> None:
        """A Save that wrote nothing (a read-only file, a full disk, another window's conflict): one sentence."""
        self.warn("Prompt not saved", f"Cannot write {path}: {getattr(exc, 'strerror', None) or exc}")

    def confirm_quit(self, title: str = "Quit", doing: str = "quitting") -> bool:
        """Unsaved prompt edits: Save (and go on only if it saved), Discard (the draft goes too, so it does
        not come back at the next start) or Cancel. True: go on (quit, or start a new prompt)."""
        if not self.document.dirty:
            return True
        buttons = QMessageBox.StandardButton
        answer = QMessageBox.question(
            self.parent,
            title,
            f"The prompt {self.document.status.name} has unsaved changes. Save them before {doing}?",
            buttons.Save | buttons.Discard | buttons.Cancel,
            buttons.Save,
        )
        if answer == buttons.Save:
            return self.save()
        if answer == buttons.Discard:
            self.document.draft = None  # not dirty: closing removes the autosaved draft
            return True
        return False

    def _conflict(self, exc: PromptConflict, profile: PromptProfile, path: Path | None) -> bool:
        """Another window saved another prompt into the file since this one read it: the lead chooses."""
        answer = ask_conflict(self.parent, exc)
        if answer == "theirs":
            self.keep_taught()
            self.document.flush()  # this window's taught tickets go into the file before it is read again
            return self.open(str(exc.path), ask=False)
        if answer != "mine":
            self.notify("Prompt not saved.", 6000)
            return False
        renamed = self.session.follow_renames(self.editor.label_renames(), profile)
        try:
            note = self.document.save(profile, self.session.taught_items(), path, force=True)
        except (OSError, PromptConflict) as err:
            self.session.take_back_renames(renamed)
            self._not_saved(exc.path, err)
            return False
        if note:
            self.notify(note, 15000)
        self.editor.clear_problems()
        self.editor.label_renames(saved=True)
        self.evaluation.follow_renames(renamed, self.session.field_names)
        self.session.set_prompt(self.document.saved)
        return True

    def _merged(self, theirs: list[tuple[str, str]], prompt_changed: bool) -> None:
        """A write found another window's work in the file: take in its taught tickets, and its prompt
        when the editor holds no unsaved edits (else Save asks which to keep)."""
        name = self.document.path.name
        if taken := prompt_changed and not self.document.dirty:  # the fields first: their sets are then written to
            self.editor.set_profile(self.document.saved, clear_undo=False)  # the file's fields of the same names
            self.session.set_prompt(self.document.saved)  # (the queue's went into 'extra0', added there: W18)
        if theirs:
            self.session.add_taught(theirs)
        if taken:
            self.notify(f"{name} was changed outside this window: its prompt is in the editor now.", 15000)
        elif prompt_changed:
            self.notify(f"{name} was changed outside this window; Save will ask which prompt to keep.", 15000)
        elif theirs:
            were = plural(len(theirs), "was", "were")
            self.notify(f"{counted(len(theirs), 'ticket')} taught outside this window {were} added from {name}.", 10000)

    def _forgotten(self, held: list[tuple[str, str]]) -> None:
        """A write found tickets forgotten outside this window: forgotten here too unless taught again here since
        (Ctrl+Z teaches them again)."""
        now = dict(self.session.taught_items())
        if forgot := self.session.add_taught([(text, None) for text, label in held if now.get(text) == label]):
            self.notify(f"{counted(forgot, 'ticket')} forgotten outside this window: forgotten here too.", 10000)

    def new_prompt(self) -> bool:
        """File › New prompt: unsaved edits first (Save, Discard or Cancel, as at Quit), then a blank
        prompt (the default's instruction, one empty label row ready to type) with no taught tickets,
        versions or random checks, to be saved as an unused ``new-prompt.json`` beside the current file
        (Save as… names it otherwise). The loaded tickets stay, labelled by the prompt in use until the
        new one is saved."""
        if not self.confirm_quit("New prompt", "starting a new prompt"):
            return False
        folder = self.document.path.parent
        names = ("new-prompt.json", *(f"new-prompt-{i}.json" for i in range(2, 10_000)))
        path = next(p for p in (folder / n for n in names) if not p.exists() and p != self.document.path)
        blank = PromptProfile(default_profile().instruction, [Label("", "")], name="Untitled prompt")
        self.document.new(path, blank)
        self.editor.clear_problems()
        self.editor.set_profile(blank)
        # The labels shown stay the saved prompt's until the first Save, and so do the taught tickets they learned
        # from (their ✓ had gone while the run line said whose labels they are); the new prompt starts with none.
        self._left = dict(self.session.taught_items())
        self.editor.edit_first_label()
        self.notify(f"New prompt: name its labels, then Save (it is kept as {path.name}).", 10000)
        return True

    def save_as_dialog(self) -> None:
        start = lead_folder(self.document.path) / self.document.path.name  # a new lead's: not the settings folder
        if path := QFileDialog.getSaveFileName(self.parent, "Save prompt as", str(start), "*.json")[0]:
            self.save(Path(path))

    def open_dialog(self) -> None:
        folder = str(lead_folder(self.document.path))  # where the lead keeps prompts (it was the working folder: W)
        path, _ = QFileDialog.getOpenFileName(self.parent, "Open prompt", folder, "Prompts (*.json)")
        if path:
            self.open(path)

    def open(self, path: str, ask: bool = True) -> bool:
        """Read and validate first: a refused file changes nothing (the file in use, the draft, the
        taught set). An unsaved draft is replaced only once the user agrees."""
        try:
            profile = self.document.read(path)
        except ValueError as exc:
            self.warn("Prompt not opened", str(exc))
            return False
        restored, self._restored = self._restored, False
        if restored and Path(path).resolve() == self.document.path.resolve():  # started on it: the draft stays
            self.notify(f"{Path(path).name} is open, your unsaved draft of it restored in the editor.", 10000)
            return True  # (it asked "Save them before opening prompt.json?" of the file it had open, W20)
        if ask and not self.confirm_quit("Open prompt", f"opening {Path(path).name}"):  # Save, as New prompt offers
            return False
        stranded = self.document.stranded or []  # taught where no file could take them yet: they come along
        self.document.adopt(path, profile)
        self.editor.clear_problems()
        self.editor.set_profile(profile)
        self._count_saved_fields(self.document.saved)
        self.session.restore_kept([*((e.text, e.label) for e in profile.taught), *stranded], profile.checks)
        if stranded:
            self.keep_taught()
        self.session.set_prompt(self.document.saved)
        return True

    def keep_taught(self) -> None:
        """The taught set changed: the document writes it with the saved prompt, off the GUI thread."""
        self.document.keep_taught(self.session.taught_items())
        self.document.keep_field_taught(self.session.field_taught(), self.session.field_names)  # the others'

    # ----------------------------------------------------------- versions

    def applied(self) -> None:
        version = self.session.prompt_status.version
        if (profile := self.session.prompt_in_use) is not None:
            self.document.applied(version, profile)
            self.document.keep_field_history(field_versions.applied(profile, self._further_histories()))
        self.evaluation.version_applied(version)
        self.session.refresh_checks()  # the estimate says whether a newer version is in use than it checked
        self.refresh_versions()

    def version_said(self, version: int) -> str:
        """The session's ``version`` as the status bar says it: "v3"; several fields, each field's own."""
        return field_versions.versions_said(
            self.document.number(version), self.session.prompt_in_use, self._further_histories()
        )

    def failed(self, status: PromptStatus) -> None:
        """The model could not build the saved prompt: it is in the file (a field the Save added before others
        aside, left out of it), only not in use; "Not saved:" over it sent the lead looking for a lost edit (W20)."""
        heading = "Not saved:" if status.left_out else "Saved, not in use:"
        self.editor.show_problems([Problem(status.field or "instruction", status.message)], heading)
        self.notify(f"Prompt not updated: {status.message}", 15000)
        if status.left_out:
            self._leave_out(status.left_out)

    def _leave_out(self, name: str) -> None:
        """A field the Save added before others, which the model cannot build (:mod:`session.failed_build`): the
        prompt saved again without it, through the Save's own path (each field back to its place, the session's
        taught sets, checks and undo steps with it); the editor keeps it, unsaved, for the next Save."""
        saved = self.document.saved
        profile = PromptProfile.of_fields([f for f in saved.fields if f.name != name], saved.name, saved.extra)
        try:
            self.document.save(profile, self.session.taught_items())
        except (OSError, PromptConflict) as exc:
            self._not_saved(self.document.path, exc)
            return
        self.document.edit(self.editor.profile())  # unsaved now: autosaved as a draft
        self.session.set_prompt(self.document.saved)

    def _scored(self, score: Score) -> None:
        self.document.scored(score.version, score.measure)
        self.refresh_versions()

    def _further_histories(self) -> list[list[VersionRecord]]:
        """The versions of every field after the first, as the prompt file keeps them."""
        return [self.document.field_history(i) for i in range(1, len(self.document.saved.fields))]

    def _field_scored(self, field: int, part: PromptProfile, measure: Measure) -> None:
        """A further field's version got its accuracy against that field's gold column: kept in its entry."""
        histories = field_versions.scored(self._further_histories(), field, part, measure)
        self.document.keep_field_history(histories)
        self.refresh_versions()

    def _field(self) -> tuple[int, str]:
        """The field whose versions the Versions tab shows (its index, and its name, "" for the first)."""
        field, names = self.results.accuracy_field(), self.session.field_names
        return (field, names[field]) if 0 < field < len(names) else (0, "")

    def refresh_versions(self) -> None:
        """The prompt file's versions of the field chosen (the first's for a one-field prompt), newest first:
        kept with the prompt, so listed after a restart."""
        field, name = self._field()
        history = self.document.field_history(field)
        self.results.show_versions(version_rows(history, [self._version(r.number, field) for r in history]), name)

    def _version(self, shown: int, field: int = 0) -> PromptProfile | None:
        try:
            return self.document.version_profile(shown, field)
        except ValueError:  # an entry edited by hand into something that is no prompt
            return None

    def _labels_of(self, number: int) -> list[str] | None:
        """The label names of the file's version ``number`` (None: not in the history)."""
        record = next((r for r in self.document.history if r.number == number), None)
        labels = record.prompt.get("labels") if record is not None else None
        return [str(x.get("name", "")) for x in labels if isinstance(x, dict)] if isinstance(labels, list) else None

    def revert(self, shown: int) -> None:
        """Go back to version ``shown`` of the field chosen: a prompt with several fields keeps its other fields
        as the editor has them (the version is that field's part alone; the whole editor once became it, and the
        Save after it dropped every other field)."""
        field, name = self._field()
        profile = self._version(shown, field)
        if profile is None:
            return
        current = self.editor.profile()
        if len(current.fields) > 1:
            fields = current.fields
            at = next((i for i, f in enumerate(fields) if f.name == name), None) if field else 0
            if at is None:
                self.notify(f"The prompt in the editor has no field {name} to go back in.", 8000)
                return
            was = fields[at]
            fields[at] = Field(was.name, profile.instruction, profile.labels, profile.examples, was.ordered)
            # a name made up from the first field's labels follows them, as a one-field prompt's does (W17: it
            # still named the labels of the version left); a name the lead typed is kept
            made_up = at == 0 and current.name == auto_name(was.label_names)
            profile = PromptProfile.of_fields(fields, auto_name(profile.label_names) if made_up else current.name)
        self.editor.set_profile(profile, clear_undo=False)
        self.save()

    def show_diff(self, a: int, b: int) -> None:
        """Versions' *Compare*: the two side by side, what changed and each one's accuracy."""
        field, name = self._field()
        old, new = self._version(a, field), self._version(b, field)
        if old is None or new is None:
            return
        records = {r.number: r for r in self.document.field_history(field)}
        sides = (Side(a, old, records.get(a)), Side(b, new, records.get(b)))
        self.diff_dialog = compare_dialog(self.parent, *sides, name)

    # ------------------------------------------------------ taught tickets

    def import_taught(self) -> None:
        from ...engine.tickets import FILE_FILTER

        path, _ = QFileDialog.getOpenFileName(self.parent, "Import taught tickets", "", FILE_FILTER)
        if not path:
            return
        try:
            items = read_taught(path, self.session.labels or self.document.saved.label_names)
        except ValueError as exc:
            self.warn("Taught tickets not imported", str(exc))
            return
        added = self.session.add_taught(items.items)
        note = f" ({counted(items.skipped, 'row')} skipped: {items.reason})" if items.skipped else ""
        self.notify(f"Imported {counted(added, 'taught ticket')} from {Path(path).name}{note}.", 10000)

    def export_taught(self) -> None:
        items = self.session.taught_items()
        if not items:
            self.notify("Nothing taught yet.", 5000)
            return
        current = self.document.path
        suggestion = lead_folder(current) / f"{current.stem}-taught.csv"
        path, _ = QFileDialog.getSaveFileName(
            self.parent, "Export taught tickets", str(suggestion), "CSV files (*.csv)"
        )
        if path:
            try:
                write_taught(path, items)
            except OSError as exc:
                self.warn("Export failed", f"Cannot write {path}: {exc.strerror or exc}")
                return
            self.notify(f"Exported {counted(len(items), 'taught ticket')} to {path}.", 10000)
