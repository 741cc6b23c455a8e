"""The prompt file as a Qt-free document: where it lives, what was last saved there, the unsaved draft,
the versions applied with what each scored (kept in the file, :mod:`engine.prompt`), and the taught set
kept with it.

The window shows it and sends it intents; it owns every write of the prompt file and the draft, so
"where does Save live" has one answer. Opening or saving under another name validates *before* anything
switches: a refused file changes nothing (the path, the saved profile, the draft and the taught set
stay) and the caller is told why. The taught set changes on every teaching key press; its writes are
coalesced (at most one per ``delay``, the newest set) and made on a writer thread, never on the GUI
thread. What the thread writes from (what was last read or written, and ours) is captured on the loop's
thread before it is handed over; a Save or closing comes after the write in flight, never beside it, and
takes what it wrote as its base (:mod:`session.prompt_write`). A lock another program holds ends a write
after a bounded wait (:mod:`engine.prompt`), in one sentence, with nothing lost.

Two windows can share the file: every write re-reads it and merges what the other side wrote
(:mod:`engine.prompt`); the prompt itself is taken from the other side only when this side has
no unsaved edits, and a Save over edits made in both raises ``PromptConflict`` for the window to ask.
A file that cannot be read (or is read-only) is never written over: the taught set goes to the draft
(``stranded``), which the next start offers back, and a Save first moves an unreadable file aside.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from ..engine.files import atomic_write_text, refuse_read_only
from ..engine.prompt import (
    PROMPT_KEYS,
    SCHEMA_VERSION,
    CheckRecord,
    Example,
    Field,
    Measure,
    Merged,
    ProfileError,
    PromptConflict,
    PromptProfile,
    VersionRecord,
    known_taught,
    locked,
    merge,
    merge_history,
    move_aside,
    read_current,
)
from .events import Event
from .field_order import by_name, carried, field_order, in_order_of, put_back, regrouped, reordered
from .field_versions import kept_with, with_version
from .prompt_start import UNEDITED, read_start, read_valid, same_prompt, taught_pairs
from .prompt_write import AS_SAVED, PromptWrite
from .tasks import LatestTask
from .workers import WorkerThread

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class DocumentStatus:
    """A snapshot for the view: which file, and whether the editor holds changes not saved there."""

    path: Path
    dirty: bool
    new: bool = False  # File › New prompt, never saved: the tickets keep the last saved prompt's labels till Save
    # Why the taught set is not in the file, kept in the draft ("" when it is): a read-only file's taught tickets
    # were counted "(kept with this prompt)" under the editor, the one line saying so gone from the status bar.
    not_written: str = ""

    @property
    def name(self) -> str:
        return self.path.name


class PromptDocument:
    """See the module docstring. Create and use it on the event loop's thread only."""

    def __init__(
        self, path: Path, draft_path: Path, fallback: Path | None = None, delay: float = 0.25, draft_delay: float = 0.8
    ) -> None:
        self.path, self.fallback = path, fallback  # fallback: the default prompt's file, where a missing one leads
        self.draft_path = draft_path
        self.delay, self.draft_delay = delay, draft_delay
        self._closed = False  # closed: no writer thread any more; what changes is written on the loop's thread
        self.saved = PromptProfile("", [])  # as last written to (or read from) ``path``, taught set included
        self.draft: PromptProfile | None = None  # the editor's content (no taught set); None: as saved
        self.history: list[VersionRecord] = []  # the file's versions, oldest first, this session's included
        self._numbers: dict[int, int] = {}  # the session's prompt version -> its number in the history
        self.checks: list[CheckRecord] = []  # the random checks, written with the file as the versions are
        self.changed: Event[[DocumentStatus]] = Event()
        self.failed: Event[[str]] = Event()  # a background write failed: why, for the status bar
        # A write found the other side's work in the file: their taught tickets ours lacks (the window
        # must take them in: they are what this side now knows the file holds), and whether the prompt in
        # the file is now theirs (taken as saved when there were no unsaved edits here).
        self.merged: Event[[list[tuple[str, str]], bool]] = Event()
        # ... and the tickets of ours the other side forgot, as this side held them: this window forgets them too (a
        # ticket forgotten in one window stayed taught, marked and learned from, in the other, the file without it).
        self.forgotten: Event[[list[tuple[str, str]]]] = Event()
        # A Save put a field at another place (moved in the editor, or one before it removed): the taught set,
        # versions and checks of the first field are another field's now (``saved``'s), for the window to use.
        self.fields_moved: Event[[list[int | None]]] = Event()  # each field's place before the Save (None: new)
        self.unreadable = ""  # why the file in use cannot be read ("" when it can): it is never written
        self.stranded: list[tuple[str, str]] | None = None  # a taught set the file could not take: in the draft
        self._why = ""  # why the file could not take it (the status's ``not_written``)
        self.draft_taught: list[tuple[str, str]] = []  # the taught set the draft held at start
        self.writer = WorkerThread("prompt-file", transient=True)
        self._taught: list[tuple[str, str]] | None = None  # a taught set waiting to be written
        self._fields: list[Field] | None = None  # the further fields with their taught sets, waiting likewise
        self._removed: dict[str, Field] = {}  # fields a Save removed, by name, with what they kept: for an undo
        self._writing = LatestTask("write taught tickets")
        self._drafting = LatestTask("write prompt draft")
        self.writes = 0  # prompt-file writes made (tests count the coalescing)
        self._job: PromptWrite | None = None  # the background write handed to the writer thread, not settled
        self._blank: PromptProfile | None = None  # File › New prompt's blank, until the first Save or Open
        self._saving = False  # a Save telling the window what it took in: its further fields' sets are stale

    # ------------------------------------------------------------ reading

    def start(self) -> tuple[PromptProfile, PromptProfile | None, str]:
        """The saved prompt (else the default), an unsaved draft that differs from it, and a note about a saved
        prompt gone or that could not be read (:mod:`prompt_start`): that file is kept as it is, never written."""
        begun = read_start(self.path, self.draft_path, self.fallback)
        self.path, self.saved, self.unreadable, self.draft = begun.path, begun.saved, begun.unreadable, begun.draft
        self.history, self.checks = list(self.saved.history), begun.checks
        self.draft_taught = begun.draft_taught
        self.stranded = list(self.draft_taught) or None  # (a set the file holds as it is: nothing to offer back)
        self._announce()
        return self.saved, begun.draft, begun.note

    @staticmethod
    def read(path: str | Path) -> PromptProfile:
        """A valid profile from ``path``; raises ValueError saying why not. Changes nothing here."""
        return read_valid(path)

    # ------------------------------------------------------------ editing

    @property
    def dirty(self) -> bool:
        """Edits not saved: an untouched *New prompt* (as :meth:`new` started it) has none to lose."""
        draft = self.draft
        if draft is None or (self._blank is not None and same_prompt(draft, self._blank)):
            return False
        return not same_prompt(draft, self.saved)

    @property
    def status(self) -> DocumentStatus:
        why = self._why if self.stranded is not None else ""
        return DocumentStatus(self.path, self.dirty, not self.saved.labels, why)

    def edit(self, profile: PromptProfile) -> None:
        """The editor's content changed: remember it, say whether it is dirty, autosave it soon."""
        self.draft = profile
        self._announce()
        self._drafting.start(self._write_draft_soon())

    async def _write_draft_soon(self) -> None:
        await asyncio.sleep(self.draft_delay)
        try:
            await self.writer.run(self._draft_job())
        except OSError as exc:  # a full disk: the error went unread in the task, the lead told nothing (W18)
            self.failed.emit(f"Could not autosave the prompt draft: {exc}")

    def _draft_job(self):
        """What the writer thread does for the draft, decided here on the loop's thread: the editor's
        unsaved content (else the saved prompt, marked unedited) with the taught set the file could not
        take; nothing of either: no draft."""
        path = self.draft_path
        dirty = self.draft is not None and self.dirty
        if not dirty and not self.stranded:
            return lambda: path.unlink(missing_ok=True)
        prompt = self.draft if dirty and self.draft is not None else self.saved
        taught = [Example(t, label) for t, label in self.stranded or []]
        checks = list(self.checks) if self.stranded else prompt.checks  # the verdicts the file could not take either
        extra = {} if dirty else {UNEDITED: True}
        text = replace(prompt, taught=taught, checks=checks, history=[], extra=extra).to_json()
        return lambda: atomic_write_text(path, text)

    def write_draft(self) -> None:
        """Autosave the draft now (the window closing); a failure is reported, not raised."""
        self._drafting.cancel()
        try:
            self._draft_job()()
        except OSError as exc:
            self.failed.emit(f"Could not autosave the prompt draft: {exc}")

    # ------------------------------------------------------------- saving

    def save(
        self, profile: PromptProfile, taught: Sequence[tuple[str, str]], path: Path | None = None, force: bool = False
    ) -> str:
        """Validate, then write ``profile`` with the taught set to ``path`` (default: the file in use),
        merged with what another window wrote there, and make it the saved version. Returns a note for
        the lead ("" or where an unreadable file was moved aside). Raises ProfileError (nothing written,
        nothing switched), PromptConflict (the other side changed the prompt too; ``force`` keeps ours)
        or OSError, a read-only file included (nothing switched)."""
        profile.validate()
        target = path or self.path
        same = os.path.realpath(target) == os.path.realpath(self.path)
        pairs = dict(taught)
        pairs.update(self._take_over())  # what the write in flight found from another window, taken in below
        kept = self._kept_fields(pairs)
        order = field_order(profile.fields, kept) if len(profile.fields) > 1 or len(kept) > 1 else []
        removed = {f.name: f for i, f in enumerate(kept) if order and i not in order and f.name}
        base = self.saved
        if regrouped(order):  # a field saved at another place, or a new first one: each keeps its own
            fields = carried(profile, kept, order, self._removed)
            fields[0].history = self._with_version(profile, fields[0].history)  # (checks: each field numbers its own)
            ours = PromptProfile.of_fields(fields, profile.name, self.saved.extra)
            base = reordered(self.saved, field_order(profile.fields, self.saved.fields))
        else:
            order = []
            history = self._with_version(profile, list(self.history))
            ours = replace(  # the prompt from the editor; every other field as this document holds it
                self.saved,
                **{k: getattr(profile, k) for k in ("name", *PROMPT_KEYS)},
                **self._fields_of(profile),
                taught=[Example(t, label) for t, label in pairs.items()],
                history=history,
                checks=self.checks,
            )
        note = ""
        with locked(target):
            refuse_read_only(target)
            theirs, backup = None, None
            if same:
                try:
                    theirs = read_current(target)
                except ValueError:
                    backup = move_aside(target)
                    note = f"The unreadable {target.name} was kept as {backup.name}."
            if order and theirs is not None:  # the file in the order being saved, as the base is
                in_order = in_order_of(profile.fields, self.saved, theirs)
                base, theirs = (self.saved, theirs) if in_order is None else (base, in_order)
            merged = merge(base, ours, theirs, target, force)
            try:
                atomic_write_text(target, merged.profile.to_json())
            except OSError:
                if backup is not None:  # nothing written: the file goes back under its name
                    backup.rename(target)
                raise
        self.writes += 1
        self._taught, self.stranded, self.unreadable = None, None, ""  # this write carried the newest set
        self._fields = None  # and the further fields' (a Save that asked first, or failed, had dropped them: W19)
        self._renumber(merged)
        saved = replace(merged.profile, taught=known_taught(ours, merged), checks=ours.checks)
        self._removed = {
            **{k: f for k, f in self._removed.items() if k not in {f.name for f in profile.fields}},
            **removed,
        }
        if order:
            self._numbers = {}  # the session's versions were another field's: numbered anew as applied
        self._switch(target, saved, merged.profile.history)
        if order:
            self.fields_moved.emit(list(order))
        elif merged.prompt_from_them and regrouped(there := field_order(merged.profile.fields, ours.fields)):
            self._moved_there(merged.profile, there)  # an unedited Save over another window's move (W18)
            return note
        self._saving = True  # the window takes the other's tickets in before it puts this prompt in use (below)
        try:
            if merged.from_them or merged.prompt_from_them:
                self.merged.emit(merged.from_them, merged.prompt_from_them)
            if merged.forgotten:
                self.forgotten.emit(merged.forgotten)
        finally:
            self._saving = False
        return note

    def adopt(self, path: str | Path, profile: PromptProfile) -> None:
        """Switch to a file already read and validated (:meth:`read`), as saved there, its versions too.
        Nothing is written: opening a prompt leaves the file as it is until something changes in it."""
        self.flush()  # the taught set still waiting goes to the file it belongs to; none is in flight after
        self._numbers, self.unreadable, self._removed = {}, "", {}
        self._switch(Path(path), profile, list(profile.history))

    def new(self, path: Path, blank: PromptProfile) -> None:
        """File › New prompt: ``blank`` in the editor, to be saved as ``path`` (not written until Save),
        with no taught set, versions or checks. Nothing is written before the first Save: a taught set
        or check meanwhile waits for it (there is no valid prompt to write it with)."""
        self.adopt(path, PromptProfile("", []))
        self.draft = self._blank = blank
        self._announce()

    def _switch(self, path: Path, saved: PromptProfile, history: list[VersionRecord]) -> None:
        """The file in use is ``path`` as ``saved`` there: no draft over it any more (a Save or an Open)."""
        self.path, self.saved, self.draft, self.history = path, saved, None, list(history)
        self._blank = None
        self.checks = list(saved.checks)
        self._drafting.cancel()
        try:
            self._draft_job()()  # no draft left, unless it holds a taught set no file has taken yet
        except OSError as exc:
            log.info("draft not updated: %s", exc)
        self._announce()

    # ------------------------------------------------------- taught set

    def keep_taught(self, taught: Sequence[tuple[str, str]]) -> None:
        """The taught set changed: write it with the saved prompt, soon and off the GUI thread; a burst
        of changes is one write of the newest set."""
        self._taught = list(taught)
        self._write_soon()

    def _kept_fields(self, taught: dict[str, str]) -> list[Field]:
        """The saved fields, each with what this document keeps for it now: the first field's taught set
        (``taught``, the session's), versions and checks, and the further fields' waiting taught sets."""
        first, *more = self.saved.fields
        first = replace(first, taught=[Example(t, label) for t, label in taught.items()])
        first.history, first.checks = list(self.history), list(self.checks)
        waiting = self._fields or more
        return [first, *(waiting if len(waiting) == len(more) else more)]

    def _fields_of(self, profile: PromptProfile) -> dict:
        """A prompt with several fields (the editor's or the file's): its fields as the editor has them, each
        further one with what the file keeps for it (taught tickets, versions, checks: the field it is, by
        :func:`field_order`: renamed as another was removed, the priority matched none and lost its tickets, W19);
        nothing for a one-field prompt."""
        if len(profile.fields) < 2 and len(self.saved.fields) < 2:
            return {}  # the editor keeps no field's name of a one-field prompt: the file's stays
        kept = self._fields or self.saved.more_fields  # the waiting taught sets go with it (kept till written)
        order = field_order(profile.fields, [self.saved.fields[0], *kept])
        more = []
        for f, o in zip(profile.more_fields, order[1:], strict=True):
            old = kept[o - 1] if o else put_back(f, self._removed)  # else a field a Save removed, put back by an undo
            more.append(f if old is None else replace(f, taught=old.taught, history=old.history, checks=old.checks))
        return {"field_name": profile.field_name, "ordered": profile.ordered, "more_fields": more}

    def keep_field_taught(self, taught: Sequence[Sequence[tuple[str, str]]], names: Sequence[str] = ()) -> None:
        """The taught tickets of every field after the first (a prompt with several fields), written with the
        first field's, each saying its field; nothing when unchanged (or for a one-field prompt). ``names``: all the
        session's fields, matched by name (:func:`by_name`; a Save that added a field and whose build failed left
        the session on fewer fields than the file, and a priority ticket was never written)."""
        if self._saving:  # the session's sets as before the Save: the file's other tickets were forgotten (W19)
            return  # (the Save wrote its sets; the window then takes the file's, those of the prompt it puts in use)
        fields = self._fields or self.saved.more_fields
        doc = replace(self.saved, more_fields=fields)
        taught = by_name(doc, taught, names, lambda f: [(e.text, e.label) for e in f.taught], lambda x: x[1])
        if len(taught) != len(fields) or all(
            [(e.text, e.label) for e in f.taught] == list(t) for f, t in zip(fields, taught, strict=True)
        ):
            return
        self._fields = [
            replace(f, taught=[Example(x, label) for x, label in t]) for f, t in zip(fields, taught, strict=True)
        ]
        self._write_soon()

    def keep_field_checks(self, checks: Sequence[Sequence[CheckRecord]], names: Sequence[str] = ()) -> None:
        """The random checks of every field after the first, written with the file as the first field's are,
        each saying its field; nothing when unchanged (or for a one-field prompt). ``names``: as for the taught."""
        fields = self._fields or self.saved.more_fields
        checks = by_name(replace(self.saved, more_fields=fields), checks, names, lambda f: f.checks, lambda c: c.right)
        if len(checks) != len(fields) or all(f.checks == list(c) for f, c in zip(fields, checks, strict=True)):
            return
        self._fields = [replace(f, checks=list(c)) for f, c in zip(fields, checks, strict=True)]
        self._write_soon()

    def field_history(self, field: int) -> list[VersionRecord]:
        """Field ``field``'s versions as the file keeps them (0: the first field's, :attr:`history`)."""
        if not field:
            return self.history
        fields = self._fields or self.saved.more_fields
        return list(fields[field - 1].history) if field <= len(fields) else []

    def keep_field_history(self, histories: Sequence[Sequence[VersionRecord]]) -> None:
        """The versions of every field after the first (:mod:`field_versions`: a field's new part, a score),
        written with the file as the first field's are; nothing when unchanged (or for a one-field prompt)."""
        if (fields := kept_with(self._fields or self.saved.more_fields, histories)) is not None:
            self._fields = fields
            self._write_soon()

    def keep_checks(self, checks: Sequence[CheckRecord]) -> None:
        """The random checks changed: written with the file, as the taught set (nothing when unchanged; nothing for
        a new prompt never saved: the checks are of the labels in use, the last saved prompt's)."""
        if list(checks) != self.checks and self.saved.labels:
            self.checks = list(checks)
            self._write_soon()

    def _write_soon(self) -> None:
        if not self.saved.labels:  # a new prompt never saved: its first Save writes the set and checks
            self._taught = None
            return
        if self._taught is None:  # the versions or checks changed: write them with the taught set as saved
            self._taught = AS_SAVED  # when the write is taken, not now (see AS_SAVED)
        if self._closed:  # a change landing after the window's close (a fit's checks): written now, not lost
            self.flush()
        elif not self._writing.active:
            self._writing.start(self._write_taught_soon())

    async def _write_taught_soon(self) -> None:
        await asyncio.sleep(self.delay)
        while self._taught is not None:
            job = self._job = self._take_taught()
            await self.writer.run(self._write_file, job)  # a file that could not be read is tried again
            if self._settle(job)[1]:  # the file did not take it: the draft keeps it (a newer set goes there too)
                try:
                    await self.writer.run(self._draft_job())
                except OSError as err:  # a full disk: the task's error went unread, "kept in the draft" said (W18)
                    self.failed.emit(
                        f"The taught tickets were not written to {self.path.name} nor to the draft "
                        f"({err.strerror or err}): they are kept in this window, the next teach or Save writes them."
                    )

    def _take_taught(self) -> PromptWrite:
        """Captured on the loop's thread: the path, what was last read or written there and what to write,
        so the thread reads nothing shared."""
        assert self._taught is not None
        carried = self._taught
        # As saved: the file's set, unless it could not take a newer one (kept in the draft): a checks-only write
        # on a read-only file replaced the draft's taught tickets with the file's, two answered checks' lost.
        held = self.stranded if self.stranded is not None else [(e.text, e.label) for e in self.saved.taught]
        pairs = held if carried is AS_SAVED else carried
        taught = [Example(t, label) for t, label in pairs]
        self._taught = None
        more, self._fields = self._fields or self.saved.more_fields, None
        ours = replace(
            self.saved, taught=taught, history=list(self.history), checks=list(self.checks), more_fields=more
        )
        return PromptWrite(self.path, self.saved, ours, carried)

    def _write_file(self, job: PromptWrite) -> None:
        """On the writer thread (or the loop's, closing): see :meth:`PromptWrite.run`."""
        job.run(atomic_write_text)

    def _take_over(self) -> list[tuple[str, str]]:
        """Before a write on the loop's thread (Save, closing, Open): the background write handed over has
        either landed, and is settled here first (what it wrote is the base of this write: its bookkeeping
        was lost when it was cancelled mid-write, and the next merge took this window's own change for
        another window's, so a ticket taught and forgotten at once came back), or it never writes, and
        what it carried goes with this write. Returns the taught tickets it found from another window."""
        job, self._job = self._job, None
        if job is None or job.settled:
            return []
        job.withdraw()
        return self._settle(job, now=True)[0]

    def _settle(self, job: PromptWrite, now: bool = False) -> tuple[list[tuple[str, str]], bool]:
        """Back on the loop's thread after ``job`` (once, whoever comes first): what the file now holds is
        the base of the next write. Returns the other window's taught tickets it found, and whether the
        file could not take it (kept in the draft: written ``now``, else by the caller)."""
        if job.settled:
            return [], False
        job.settled = True
        if self._job is job:
            self._job = None
        if job.withdrawn:  # it wrote nothing: what it carried is still to write, unless newer is waiting
            if self._taught is None:
                self._taught = job.taught
            return [], False
        if job.merged is None:
            self._strand(job.ours, job.error or OSError("not written"))
            if now:
                try:
                    self._draft_job()()
                except OSError as err:
                    self.failed.emit(f"Could not save the taught tickets: {err.strerror or err}")
            return [], True
        self._landed(job.ours, job.merged)
        return job.merged.from_them, False

    def _landed(self, ours: PromptProfile, merged: Merged) -> None:
        """What the file now holds is the base of the next write (see :meth:`_settle`)."""
        self.writes += 1
        self.unreadable = ""
        written = merged.profile
        take = merged.prompt_from_them and not self.dirty
        if take and regrouped(order := field_order(written.fields, self.saved.fields)):
            self._moved_there(written, order)  # the other window moved the fields: each field's set as written
            return
        self._renumber(merged)
        self.history, _ = merge_history(ours.history, self.history, written.history)
        taught = known_taught(ours, merged)
        # The checks' base is what this side wrote: the other window's checks stay in the file untouched.
        base = replace(self.saved, taught=taught, history=written.history, extra=written.extra, checks=ours.checks)
        base.more_fields = ours.more_fields  # the further fields' taught sets as written (their prompt is ours)
        self.saved = replace(written, taught=taught, checks=ours.checks) if take else base
        if take:
            self.draft = None
        if was_stranded := self.stranded is not None:
            self.stranded = None  # the file took the taught set the draft was keeping
            self._drafting.start(self._write_draft_soon())
        if merged.from_them or merged.prompt_from_them:
            self.merged.emit(merged.from_them, merged.prompt_from_them)
        if merged.forgotten:
            self.forgotten.emit(merged.forgotten)
        if take or was_stranded:
            self._announce()

    def _moved_there(self, written: PromptProfile, order: list[int | None]) -> None:
        """Another window saved the fields in another order (the priority first), and this one has no edits: the
        file's prompt, each field with what the file keeps for it, as a Save of the move here would leave it (the
        first field's taught set had stayed the queue's under the priority's labels, its next write forgetting
        the priority's in the file, W18)."""
        self._numbers, self.draft, self.stranded = {}, None, None
        self._switch(self.path, written, written.history)
        self.fields_moved.emit(list(order))
        self.merged.emit([], True)

    def _strand(self, ours: PromptProfile, exc: Exception) -> None:
        """The file cannot take the taught set: keep it in the draft, and say so once. A set the readable file
        holds as it is loses nothing (opening a read-only prompt file said its 15 tickets were not written)."""
        first = self.stranded is None
        if first and not isinstance(exc, ValueError) and taught_pairs(ours.taught) == taught_pairs(self.saved.taught):
            return
        self.stranded = [(e.text, e.label) for e in ours.taught]
        if isinstance(exc, ValueError) and not self.unreadable:
            self.unreadable = str(exc)
        why = (exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)).rstrip(".")
        if first:
            self.failed.emit(
                f"The taught tickets were not written to {self.path.name}: {why}; they are kept in the draft "
                "and come back at the next start."
            )
        if why != self._why or first:
            self._why = why
            self._announce()

    def _renumber(self, merged: Merged) -> None:
        """Versions of ours that the file had under other numbers were given the next free ones."""
        if merged.renumbered:
            self._numbers = {v: merged.renumbered.get(n, n) for v, n in self._numbers.items()}

    def flush(self) -> None:
        """Write a taught set still waiting, now (the window closing), after the write in flight."""
        self._take_over()
        if self._taught is not None:
            job = self._take_taught()
            self._write_file(job)
            self._settle(job, now=True)

    @property
    def busy(self) -> bool:
        return self._writing.pending or self._drafting.pending

    def close(self) -> None:
        self.flush()
        self._closed = True
        self._writing.cancel()  # nothing in flight after the flush: at most a wait before the next capture
        self._drafting.cancel()
        self.writer.shutdown(wait=True)

    # ------------------------------------------------------------ versions

    @staticmethod
    def _with_version(profile: PromptProfile, history: list[VersionRecord]) -> list[VersionRecord]:
        """``history`` (the first field's) with ``profile``'s first field as its newest entry: a new entry, dated
        now, unless the newest already holds this prompt (a Save that changed only the name or the taught set, or,
        a prompt with several fields, only another field's part: each field's versions are its own, keyed by its
        part's content hash, which is the whole prompt's for a one-field prompt; :mod:`field_versions`)."""
        return with_version(profile.field_profile(0), history)

    def applied(self, version: int, profile: PromptProfile) -> None:
        """The session applied ``profile`` as its ``version``: which history entry it is. Every version
        the window applies was saved first, so its entry is written then; a file from before the history
        (or the bundled default) gets its first entry here, written with the next write of the file:
        opening a prompt writes nothing to it."""
        if version not in self._numbers:
            self.history = self._with_version(profile, self.history)
            self._numbers[version] = self.history[-1].number

    def scored(self, version: int, measure: Measure) -> None:
        """The version's accuracy against gold, kept in its entry: one per file and taught set, the first
        measured (:meth:`VersionRecord.scored`); a later load's under the same conditions changes nothing."""
        number = self._numbers.get(version)
        for i, record in enumerate(self.history):
            if record.number == number:
                if (kept := record.scored(measure)) is not record:
                    self.history[i] = kept
                    self._write_soon()
                return

    def number(self, version: int) -> int:
        """What the lead calls the session's ``version``: its number in the file's history."""
        return self._numbers.get(version, version + 1)

    def version_profile(self, number: int, field: int = 0) -> PromptProfile | None:
        """The prompt of history entry ``number`` (for Revert and the diff); of field ``field``'s versions (0:
        the first field's), the one-field prompt holding that field's part."""
        record = next((r for r in self.field_history(field) if r.number == number), None)
        if record is None:
            return None
        return PromptProfile.from_dict({"schema_version": SCHEMA_VERSION, **record.prompt})

    def _announce(self) -> None:
        self.changed.emit(self.status)


__all__ = ["DocumentStatus", "ProfileError", "PromptConflict", "PromptDocument"]
