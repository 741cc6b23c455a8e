"""Undo for teaching: every change of the taught set (a teach, a forget, forget-all, an import, learning
from the gold column) is one step that holds, per ticket text it changed, the label before and after
(None: not taught). Undo puts the "before" labels back and redo the "after" ones, through the
teaching's own path, so the relabel follows as after any teach; a ticket re-taught from A to B goes
back to A, not to untaught.

A step keeps only the texts that changed, not a copy of the taught set, so a long history of single
teaches in a large taught set stays small. Qt-free like the rest of the session: the window only shows
and triggers it (:mod:`gui.undo_actions`); prompt edits have their own stack in the prompt editor.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Concatenate, ParamSpec, Protocol, TypeVar

from .events import Event

Changes = dict[str, tuple[str | None, str | None]]  # ticket text -> (label before, label after)
LIMIT = 200  # steps kept: older ones fall off


@dataclass(frozen=True)
class Step:
    """One undoable change; ``what`` is how the Edit menu names it ("teach 3 tickets 'billing'")."""

    what: str
    changes: Changes
    field: int = 0  # whose taught set: 0 the first field's (the teaching's), else a further field's (:mod:`fields`)


def diff(before: Mapping[str, str], after: Mapping[str, str]) -> Changes:
    """The texts whose taught label differs between two taught sets."""
    changes: Changes = {text: (label, after.get(text)) for text, label in before.items() if after.get(text) != label}
    changes.update((text, (None, label)) for text, label in after.items() if text not in before)
    return changes


def tickets(n: int) -> str:
    return f"{n} ticket{'s' if n != 1 else ''}"


def describe(kind: str, changes: Changes) -> str:
    """What the step did, in the words the menu shows after "Undo" / "Redo"."""
    n = len(changes)
    labels = {after for _, after in changes.values()}
    one = next(iter(labels)) if len(labels) == 1 else None
    if kind == "teach" and labels == {None}:
        return f"forget {tickets(n)}"
    if kind == "teach":
        return f"teach {tickets(n)} '{one}'" if one is not None else f"teach {tickets(n)}"
    if kind == "accept":
        return f"accept '{one}' for {tickets(n)}" if one is not None else f"accept {tickets(n)}"
    if kind == "gold":
        return f"learn {tickets(n)} from the gold column"
    if kind == "import" and labels == {None}:  # another window forgot them (the prompt file's merge)
        return f"forget {tickets(n)} forgotten outside this window"
    if kind == "forget_all":
        return f"forget all {tickets(n)}"
    return f"import {tickets(n)}"


class TaughtHistory:
    """The undo and redo stacks of taught-set changes. ``apply`` sets text -> label (None: forget) the
    way a teach does; ``changed`` fires whenever what can be undone or redone changes."""

    def __init__(self, apply: Callable[[dict[str, str | None]], None]) -> None:
        self.apply = apply
        # A prompt with several fields: the further fields' undo and redo (field, text -> label), and the first
        # field's name, which its steps then carry ("teach 2 tickets 'billing' (queue)"); "" for one field.
        self.apply_field: Callable[[int, dict[str, str | None]], None] | None = None
        self.field_name = ""
        self.done: list[Step] = []
        self.undone: list[Step] = []
        self.changed: Event[[]] = Event()
        self.stepped: Event[[Step, bool]] = Event()  # a step undone (True) or redone (False), once applied
        self.recorded: Event[[Step]] = Event()  # a new step: every route of teaching ends here (the status bar)
        self.recording = False  # inside an undoable operation: the nested ones are part of its step
        self._checks = 0  # random checks the step being recorded answers (:meth:`answering`)

    @property
    def undo_text(self) -> str:
        return self.done[-1].what if self.done else ""

    @property
    def redo_text(self) -> str:
        return self.undone[-1].what if self.undone else ""

    def record(self, kind: str, changes: Changes, field: int = 0, name: str = "") -> None:
        """One step; ``field`` and its ``name`` for a further field's (the first field's name is ``field_name``)."""
        if not changes:
            return  # nothing changed (accepting a label already taught): nothing to undo
        named = name if field else self.field_name
        what = describe(kind, changes) + (f" ({named})" if named else "")
        if self._checks:  # an undo takes the verdicts back too: the menu says so
            what += " with its random check" if self._checks == 1 else f" with {self._checks} random checks"
        step = Step(what, changes, field)
        self.done.append(step)
        del self.done[:-LIMIT]
        self.undone.clear()
        self.changed.emit()
        self.recorded.emit(step)

    @contextmanager
    def answering(self, checks: int) -> Iterator[None]:
        """The teach recorded inside answers ``checks`` random checks, which its undo takes back: its name says so
        ("Undo teach 1 ticket 'technical' with its random check"; W9: the undo named the teach, and the estimate
        went from 5 checks to 4)."""
        self._checks = checks
        try:
            yield
        finally:
            self._checks = 0

    def undo(self) -> Step | None:
        if not self.done:
            return None
        step = self.done.pop()
        self.undone.append(step)
        self._apply(step, {text: before for text, (before, _) in step.changes.items()})
        self.stepped.emit(step, True)  # each field's random checks follow their own field's steps
        self.changed.emit()
        return step

    def redo(self) -> Step | None:
        if not self.undone:
            return None
        step = self.undone.pop()
        self.done.append(step)
        self._apply(step, {text: after for text, (_, after) in step.changes.items()})
        self.stepped.emit(step, False)
        self.changed.emit()
        return step

    def _apply(self, step: Step, labels: dict[str, str | None]) -> None:
        if step.field and self.apply_field is not None:
            self.apply_field(step.field, labels)
        elif not step.field:
            self.apply(labels)

    def moved(self, steps: tuple[list[Step], list[Step]], where: Mapping[int, int]) -> None:
        """A Save put the fields in another order: these steps (the undo and redo stacks as they were before
        the new first field's taught set replaced the old one) come back, each with its field at its new
        place (``where``: old place -> new; a step of a field not there is dropped). Moving a field used to
        clear the whole history, so a teach made a minute before could no longer be undone (walkthrough W4)."""
        done, undone = steps
        self.done = [replace(s, field=where[s.field]) for s in done if s.field in where]
        self.undone = [replace(s, field=where[s.field]) for s in undone if s.field in where]
        self.changed.emit()

    def renamed(self, field: int, mapping: Mapping[str, str]) -> None:
        """Labels of ``field`` renamed on a Save (old name -> new, :mod:`label_renames`): its steps undo and redo
        to the new names. A Redo of a teach made before the rename taught the old name, which the prompt no
        longer had, so the ticket was set aside."""

        def name(label: str | None) -> str | None:
            return mapping.get(label, label) if label is not None else None

        def follow(step: Step) -> Step:
            if step.field != field:
                return step
            changes: Changes = {t: (name(before), name(after)) for t, (before, after) in step.changes.items()}
            what = step.what
            for old, new in mapping.items():
                what = what.replace(f"'{old}'", f"'{new}'")
            return replace(step, what=what, changes=changes)

        self.done, self.undone = [follow(s) for s in self.done], [follow(s) for s in self.undone]
        self.changed.emit()

    def fields_left(self, count: int) -> None:
        """A Save left ``count`` fields, those after them removed (a field removed before another is a move,
        :meth:`moved`): a removed field's steps are dropped. Undone, one raised (its field gone) and emptied
        the menu."""
        done, undone = [s for s in self.done if s.field < count], [s for s in self.undone if s.field < count]
        if len(done) != len(self.done) or len(undone) != len(self.undone):
            self.done, self.undone = done, undone
            self.changed.emit()

    def clear(self) -> None:
        """A taught set replaced as a whole (another prompt opened): the old steps no longer apply."""
        if self.done or self.undone:
            self.done.clear()
            self.undone.clear()
            self.changed.emit()


class Undoable(Protocol):
    taught: dict[str, str]
    history: TaughtHistory


T = TypeVar("T", bound=Undoable)
P = ParamSpec("P")
R = TypeVar("R")


def undoable(kind: str) -> Callable[[Callable[Concatenate[T, P], R]], Callable[Concatenate[T, P], R]]:
    """Record what a method of the teaching changes in the taught set as one step (a multi-row teach,
    or an accept that teaches several labels, is one step: the calls it makes are part of it)."""

    def wrap(method: Callable[Concatenate[T, P], R]) -> Callable[Concatenate[T, P], R]:
        @functools.wraps(method)
        def run(self: T, *args: P.args, **kwargs: P.kwargs) -> R:
            history = self.history
            if history.recording:
                return method(self, *args, **kwargs)
            before = dict(self.taught)
            history.recording = True
            try:
                return method(self, *args, **kwargs)
            finally:
                history.recording = False
                history.record(kind, diff(before, self.taught))

        return run

    return wrap
