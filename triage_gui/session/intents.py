"""The session as the window's one door: what the window may ask of it and read from it.

The session keeps its parts (the teaching, the random checks, the worker threads) to itself: the window
says what the lead meant ("teach these rows", "draw a sample", "restore what the prompt file keeps") and
reads what it shows through the methods and read-only properties here, plus the session's own state
(statuses, ``text_column``, ``running``) and ``table``, the read model its views draw and never write;
``tests/test_architecture.py`` lists every name the window reads (``WINDOW_READS``). So a part can
change shape (the taught set, the checks' queue) without the window noticing, and a test of the window
reads like what a user does. :class:`session.Session` inherits this.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

from .checks import same_content
from .field_versions import number_in
from .gold import GoldColumn, gold_teaching
from .label_renames import renamed_labels

if TYPE_CHECKING:
    from ..engine.grouping import Grouping
    from ..engine.learning import RefinementVerdict
    from ..engine.prompt import CheckRecord, PromptProfile, VersionRecord
    from ..engine.table import Decision, TicketTable
    from .checks import CheckStatus, RandomChecks
    from .events import Event
    from .fields import FieldLabels
    from .languages import LanguageDetection
    from .status import HeadStatus, PromptStatus
    from .teaching import Teaching
    from .undo import TaughtHistory
    from .workers import WorkerThread

P = ParamSpec("P")
T = TypeVar("T")


class Intents:
    """See the module docstring. The attributes below are the session's (set in its ``__init__``)."""

    table: TicketTable
    teaching: Teaching
    fields: FieldLabels
    checks: RandomChecks
    file_thread: WorkerThread
    languages: LanguageDetection
    engine_thread: WorkerThread
    prompt_status: PromptStatus
    profile: PromptProfile | None
    model: Any
    encoder: Any
    baseline: bool
    encoder_spec: str

    # ------------------------------------------------------------- reading

    def offers_multilingual(self) -> str:
        """What the offer of the multilingual encoder says ("": none): the encoder in use is not the multilingual
        one and enough tickets of a known language are not English (:func:`engine.table.not_english`), by the
        table's language column as far as it is detected (the window asks again on ``languages_known``).
        Nothing is detected here: the detector's first load takes 1-9 s, too long for the loop's thread."""
        from ..engine.model import MULTILINGUAL, canonical_encoder
        from ..engine.table import not_english

        if canonical_encoder(self.encoder_spec) == MULTILINGUAL:
            return ""
        return not_english(self.table.language_counts())

    @property
    def ticket_count(self) -> int:
        """The tickets loaded."""
        return len(self.table)

    @property
    def prompt_in_use(self) -> PromptProfile | None:
        """The prompt the labels in the table are made with (None before the first is built): the window
        records it as a version, stamps its hash on exports and words its hints from it, never edits it."""
        return self.profile

    @property
    def has_model(self) -> bool:
        """Whether a language model is loaded (a failed first load leaves none)."""
        return self.model is not None

    @property
    def compares_baseline(self) -> bool:
        """Whether the naive full re-encode runs beside the cached path (the exports then carry it)."""
        return self.baseline

    @property
    def labels(self) -> list[str]:
        """The label names of the prompt version in use ([] before the first is built)."""
        return self.table.labels

    @property
    def columns(self) -> list[str]:
        """The loaded tickets' columns, in file order."""
        return self.table.columns

    @property
    def taught(self) -> Mapping[str, str]:
        """The taught set (ticket text -> label), to read: teaching goes through the methods below."""
        return self.teaching.taught

    def taught_items(self) -> list[tuple[str, str]]:
        """The taught set as the prompt file keeps it."""
        return self.teaching.items()

    @property
    def head_status(self) -> HeadStatus:
        return self.teaching.status

    @property
    def history(self) -> TaughtHistory:
        """Undo and redo of teaching (the Edit menu shows and triggers it)."""
        return self.teaching.history

    @property
    def head_changed(self) -> Event[[HeadStatus]]:
        return self.teaching.changed

    @property
    def suggested(self) -> Event[[list[int]]]:
        """The rows to teach next changed (best first)."""
        return self.teaching.suggested

    @property
    def check_status(self) -> CheckStatus:
        return self.checks.status

    @property
    def checks_changed(self) -> Event[[CheckStatus]]:
        return self.checks.changed

    def field_check_status(self, field: int) -> CheckStatus:
        """Field ``field``'s random-check estimate (0: the first field's, :attr:`check_status`); each reads only
        its own field's checks and names its field when the prompt has several."""
        checks = self.fields.checks.of(field) if field else None
        return self.checks.status if checks is None else checks.status

    @property
    def field_checks_changed(self) -> Event[[int, CheckStatus]]:
        """A further field's checks changed: its index (1: the second field) and its estimate."""
        return self.fields.checks.changed

    def field_check_records(self) -> list[list[CheckRecord]]:
        """Every further field's verdicts, in field order, as the prompt file keeps them (with their field)."""
        return self.fields.checks.records()

    @property
    def field_names(self) -> list[str]:
        """Every field's name, the first's first, for a prompt with several (:mod:`fields`); [] for one field."""
        return [self.fields.first, *self.fields.names] if self.fields.names else []

    def field_table(self, index: int) -> TicketTable | None:
        """Field ``index``'s labels (0: the first field's, ``table``; after it, that field's own table of the
        same rows, which may cover only the rows embedded when it was fitted; None: not labelled yet)."""
        return self.table if index == 0 else self.fields.table_of(index)

    def field_decision(self, field: int, row: int, low: float) -> Decision | None:
        """A further field's (1: the second) label and marks for the row, its teaching shown at once
        (:meth:`FieldLabels.decision`); the first field's rows are decided from :attr:`table`."""
        return self.fields.decision(field, row, low)

    def field_reading(self, index: int) -> tuple[list[float], tuple[int, int]]:
        """A further field's (1: the second) language-model time of each ticket read (ms, in read order) and its
        agreement with its full re-encode (same label, of tickets with both)."""
        return self.fields.latencies(index), self.fields.agreement(index)

    # ------------------------------------------------------------ teaching

    def teach(self, rows: Sequence[int], label: str | None) -> list[int]:
        """Teach these rows ``label`` (None: forget). Rows of the random sample count as checked first,
        against the label they showed; returns those rows."""
        checked = self.checks.record(rows, label) if label is not None else []
        with self.history.answering(len(checked)):
            self.teaching.teach(rows, label)
        return checked

    def teach_field(self, field: int, rows: Sequence[int], label: str | None) -> list[int]:
        """Teach these rows ``label`` (None: forget) in field ``field`` (0: the first field, :meth:`teach`), one
        undo step that names the field; every other field's labels stay as they are. Rows of that field's
        random sample count as checked first; returns those rows."""
        if not field:
            return self.teach(rows, label)
        checks = self.fields.checks.of(field)
        checked = checks.record(rows, label) if checks is not None and label is not None else []
        table = self.table
        texts = [table.texts[r] for r in rows if 0 <= r < len(table) and r not in table.problems]
        with self.history.answering(len(checked)):
            self._teach_texts(field, texts, label)
        return checked

    def _teach_texts(self, field: int, texts: Sequence[str], label: str | None) -> None:
        """Field ``field``'s (after the first) taught label of these texts (None: forget), one undo step naming it."""
        self.history.record("teach", self.fields.teach(field, texts, label), field, self.fields.names[field - 1])

    def accept_field(self, field: int, rows: Sequence[int]) -> tuple[dict[str, int], list[int]]:
        """Enter in field ``field``'s column: teach each row the label that field shows, one undo step.
        Returns label -> rows accepted with it, and the rows of that field's random sample this checked."""
        if not field:
            return self.accept(rows)
        checks = self.fields.checks.of(field)
        checked = checks.record(rows, None) if checks is not None else []
        table, counts = self.table, Counter[str]()
        shown: dict[str, str] = {}
        for row in rows:  # the label the cell shows: a teach before its refit landed is accepted, not undone
            d = self.fields.decision(field, row) if row >= 0 else None
            if d is not None and d.label is not None and row not in table.problems:
                shown[table.texts[row]] = d.label
                counts[d.label] += 1
        with self.history.answering(len(checked)):
            self.history.record("accept", self.fields.teach_each(field, shown), field, self.fields.names[field - 1])
        return dict(counts), checked

    def field_labels(self, field: int) -> list[str]:
        """Field ``field``'s labels (0: the first field's, :attr:`labels`)."""
        return self.fields.specs[field - 1].labels if 0 < field <= len(self.fields.specs) else self.labels

    def field_taught(self) -> list[list[tuple[str, str]]]:
        """Every further field's taught tickets, in field order (what the prompt file keeps for them)."""
        return [self.fields.items(i) for i in range(1, len(self.fields.specs) + 1)]

    def field_learned(self) -> list[int]:
        """Each further field's taught tickets with a label it has: those its fit learns from (the status bar
        counts them; a label the field no longer has is left out, as the first field's are)."""
        return [
            sum(label in spec.labels for _, label in self.fields.items(i))
            for i, spec in enumerate(self.fields.specs, start=1)
        ]

    def accept(self, rows: Sequence[int]) -> tuple[dict[str, int], list[int]]:
        """Enter: teach each row the label it shows. Returns label -> rows accepted with it, and the rows
        of the random sample this checked (counted right)."""
        checked = self.checks.record(rows, None)
        with self.history.answering(len(checked)):
            return self.teaching.accept(rows), checked

    def add_taught(self, items: Sequence[tuple[str, str | None]]) -> int:
        """Teach tickets that need not be loaded (an import, another window's; None: forget, as another window
        did); returns how many changed."""
        return self.teaching.add_items(items)

    def learn_from(self, gold: GoldColumn, field: int = 0) -> int:
        """Teach the whole gold column (one undo step), in field ``field`` (a further field: its own gold column
        and taught set; *Learn from the gold column* in the priority's column taught the queue); returns the
        tickets taught."""
        if not field:
            return self.teaching.learn_from(gold)
        found, _, _ = gold_teaching(self.table, gold, self.taught_in(field), self.field_labels(field))
        changes = self.fields.teach_each(field, {self.table.texts[row]: label for row, label in found.items()})
        self.history.record("gold", changes, field, self.fields.names[field - 1])
        return len(found)

    def taught_in(self, field: int) -> dict[str, str]:
        """Field ``field``'s taught set now (ticket text -> label; 0: the first field's)."""
        return dict(self.taught) if not field else self.fields.taught_of(field)

    def forget_all(self, field: int = 0) -> None:
        """Teach › Forget everything taught in field ``field`` (0: the first field); one undo step (a further
        field's names the field, as its teach does)."""
        if not field:
            self.teaching.forget_all()
            return
        self._teach_texts(field, [text for text, _ in self.fields.items(field)], None)

    def field_suggestions(self, field: int) -> tuple[int, ...]:
        """Field ``field``'s rows to teach next, best first, none taught for it yet (0: the first field's; a further
        field's are the least sure of its own labels): the *Teach next* list of its column."""
        if field:
            return tuple(self.fields.suggested(field))
        table = self.table
        return tuple(r for r in self.teaching.suggestions if r < len(table) and table.taught_label(r) is None)

    def follow_renames(self, renames: Sequence[tuple[str, str]], profile: PromptProfile) -> dict[int, dict[str, str]]:
        """Before ``profile`` (the editor's, valid) is saved: each field's taught tickets whose label was renamed in
        the editor (``renames``, as typed) take the new name (:mod:`label_renames`); returns field -> old -> new."""
        names, renamed = self.field_names or [profile.fields[0].name], {}
        for i, name in enumerate(names):
            at = next((j for j, f in enumerate(profile.fields) if f.name == name), None)
            at = i if at is None and len(profile.fields) == len(names) else at
            after = [] if at is None else profile.fields[at].label_names  # (a field no longer there: no rename)
            if mapping := renamed_labels(renames, self.field_labels(i), after):
                renamed[i] = mapping  # (its gold column follows too: Evaluation.follow_renames)
                self._relabel(i, mapping)
        return renamed

    def _relabel(self, field: int, mapping: dict[str, str]) -> None:
        """Field ``field``'s taught tickets, undo steps and random checks take the labels' new names (old -> new)."""
        self.fields.relabel(field, mapping) if field else self.teaching.relabel(mapping)
        self.teaching.history.renamed(field, mapping)
        if (checks := self.fields.checks.of(field) if field else self.checks) is not None:
            checks.renamed(mapping)

    def restore_kept(self, taught: Sequence[tuple[str, str]], checks: Sequence[CheckRecord]) -> None:
        """What a prompt file keeps, now in use: its taught set (replacing this one) and its checks."""
        self.teaching.restore(taught)
        self.checks.restore(checks)

    def fields_moved(
        self,
        taught: Sequence[tuple[str, str]],
        checks: Sequence[CheckRecord],
        order: Sequence[str],
        places: Sequence[int | None],
    ) -> None:
        """A Save put the fields in another order (``order``: their names, the new first field first; ``places``:
        each one's place before the Save, None for a field added; its taught set and checks are the session's own
        now, :meth:`restore_kept`): each field's rows still to check, and its undo steps, go with it. The first
        field's sample stayed with the first place, so the field moved there showed another field's rows and,
        once they were dropped, "Sample checked" with 16 of 20 unanswered (walkthrough W4); the one field a
        removal left lost its undo steps, and kept them only until a field was put back before it (W8)."""
        names = self.field_names or [""]  # before this Save (the session takes the new prompt after it); one: ""
        was = [names[p] if p is not None and p < len(names) else n for n, p in zip(order, places, strict=True)]
        waiting = self.fields.checks.waiting()
        waiting[names[0]] = list(self.checks.queue)
        waiting = {new: waiting[old] for new, old in zip(order, was, strict=True) if old in waiting}
        history = self.teaching.history
        steps = (list(history.done), list(history.undone))
        self.restore_kept(taught, checks)
        history.moved(steps, {i: was.index(n) for i, n in enumerate(names) if n in was})
        first = order[0] if order else ""
        self.checks.queue = waiting.pop(first, [])
        self.checks.refresh()
        self.fields.checks.carry(waiting)

    # -------------------------------------------------------------- checks

    def draw_checks(self, field: int = 0) -> list[int]:
        """Draw a random sample to check (of field ``field``'s labels: a prompt with several fields); returns
        the rows still to check, in the order drawn."""
        checks = self.fields.checks.of(field) if field else self.checks
        if checks is None:
            return []
        checks.draw()
        return list(checks.queue)

    def next_to_check(self, field: int = 0) -> int | None:
        checks = self.fields.checks.of(field) if field else self.checks
        return None if checks is None else checks.next_row()

    def check_records(self) -> list[CheckRecord]:
        """The verdicts, oldest first, as the prompt file keeps them."""
        return self.checks.records()

    def refresh_checks(self) -> None:
        """Recount the estimates (each says whether a newer version is in use than it checked): every field's,
        a Save that changed only the priority's part being the priority's new version alone."""
        self.checks.refresh()
        self.fields.checks.refresh()

    def number_checks(
        self,
        number: Callable[[int], int],
        labels_of: Callable[[int], Sequence[str] | None] | None = None,
        field_history: Callable[[int], Sequence[VersionRecord]] | None = None,
    ) -> None:
        """A check records the prompt version by the prompt file's numbering (``number`` of the table's
        version) and the tickets taught when it was made; ``labels_of`` a numbered version's label names
        (the estimate counts only checks made on the labels in use). ``field_history(i)``: a prompt with several
        fields, field i's own versions (1: the second field); its checks record its version in use there
        (:func:`field_versions.number_in`): numbered as the first field's, a Save that changed only the priority
        left them "on v1", nothing said changed."""
        self.checks.context = lambda: (number(self.prompt_status.version), len(self.teaching.taught))
        if field_history is not None:
            self.fields.checks.number = lambda i: number_in(field_history(i), self.profile, i)
            self.fields.checks.history = field_history
            self.checks.same = lambda a, b: same_content(field_history(0), a, b)
        if labels_of is not None:
            self.checks.labels_of = labels_of

    # ------------------------------------------------------ suggest labels

    async def suggest_groups(self, groups: int | None = None, poorly_fitted: bool = False) -> Grouping:
        """The loaded tickets grouped by meaning, on the engine thread (:mod:`session.suggestions`); with
        ``poorly_fitted`` those the labels in use fit badly (low confidence, or far from every label's
        examples and taught tickets)."""
        from .suggestions import anchors_of, suggest_groups

        anchors = None
        if poorly_fitted:
            examples = [e.text for e in self.profile.examples] if self.profile is not None else []
            texts = [*examples, *(text for text, _ in self.teaching.items())]
            anchors = await anchors_of(self.table, self.engine_thread, texts, self.encoder)
        return await suggest_groups(self.table, self.engine_thread, groups, poorly_fitted, anchors)

    async def edit_groups(self, edit: Callable[..., Grouping], *args: object) -> Grouping:
        """One edit of a grouping (a split, more or fewer groups) on the engine thread."""
        from .suggestions import edit_groups

        return await edit_groups(self.engine_thread, edit, *args)

    # --------------------------------------------------------------- files

    def in_background(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> asyncio.Future[T]:
        """Run ``fn`` on the file thread (a workbook export); its future lands on the loop's thread."""
        return self.file_thread.submit(fn, *args, **kwargs)

    # --------------------------------------------------------------- close

    def _tasks(self) -> list[asyncio.Task]:
        raise NotImplementedError  # the session's: its work still in flight

    def _threads(self) -> list[WorkerThread]:
        raise NotImplementedError  # the session's worker threads

    @property
    def busy(self) -> bool:
        """Anything still to do for what is loaded: a load, a rebuild, reading, labelling or learning."""
        return bool(self._tasks())

    def refinement(self) -> RefinementVerdict:
        """Whether the language model's reading decides labels now, and why not where it does not
        (:func:`session.refinement.refinement_verdict`)."""
        from .refinement import refinement_verdict

        head = self.teaching.head
        weights = None if head is None else head.weights
        return refinement_verdict(weights, self.table.head_active, self.teaching.verdict)

    async def settled(self) -> None:
        """Return once nothing is left to do for what is loaded (what :attr:`busy` says, awaited rather than
        polled): the labels shown are then final until the lead acts."""
        while tasks := [t for t in self._tasks() if t is not asyncio.current_task()]:
            await asyncio.wait(tasks)

    async def close(self) -> None:
        """Cancel everything, let the cancellations land, and stop the worker threads."""
        live = [*self._tasks(), *self.languages.tasks()]
        for task in live:
            task.cancel()
        await asyncio.gather(*live, return_exceptions=True)
        for worker in self._threads():
            worker.shutdown(wait=False)

    def shutdown(self) -> None:
        """Cancel every task and join the worker threads, from synchronous code (the window closing): each
        finishes its job (at most one micro-batch, ~1.5 s) and drops the rest."""
        for task in [*self._tasks(), *self.languages.tasks()]:
            task.cancel()
        self.join_threads()

    def join_threads(self) -> None:
        """Wait for the worker threads to finish their last job (at exit, so none outlives the app)."""
        for worker in self._threads():
            worker.shutdown(wait=True)
