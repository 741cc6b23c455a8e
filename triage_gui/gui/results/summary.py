"""The summary under the tickets and the accuracy against gold, from one source each: the labelled
count is the session's run status (the run bar reads the same snapshot, so the two never disagree, as
"31/60" in the bar beside "15 of 60" in the summary once did), the rest from the table and the
evaluation as they are now. Redrawn at most every 200 ms (the window's tick) and only when marked dirty.
A version's score is not taken here: :class:`session.evaluation.VersionScoring` takes it once the labels are
final (on this tick, it was once taken mid-run)."""

from __future__ import annotations

from dataclasses import replace

from ...engine.prompt import PromptProfile
from ...engine.scoring import latency_summary
from ...engine.table import TicketTable, language_summary
from ...session.checks import CheckStatus
from ...session.evaluation import Evaluation, VersionScoring
from ...session.field_scoring import FieldVersions
from ...session.gold import GoldColumn, gold_report, not_counted, row_mask, two_steps
from ...session.refinement import refinement_changes
from ...session.session import Session
from ...words import counted
from ..tickets.ticket_area import TicketArea
from .results_area import NO_GOLD_TEXT, ResultsArea

TAUGHT_NOTE = "Taught tickets count with the label the classifier gives them when not trained on them."


def stage_note(table) -> str:
    """Which stage the labels measured are at, while the language model has not read every ticket: the
    accuracy then mixes first-pass labels with refined ones, and says so. Not while the language model's
    reading is not used for labels (``table.refined`` False): every label is then the first pass's, and "the
    language model has read 255" beside "1,745 … first pass" read as 255 labels of its own (a walkthrough)."""
    scored, total = table.count_scored(), table.count_scorable()
    first = table.count_current() - scored
    if first <= 0 or scored >= total or not table.refined:
        return ""
    return f"{first:,} of these labels are the classifier's first pass; the language model has read {scored:,}."


def fields_timing(session: Session) -> str:
    """A prompt with several fields: the language model's time a ticket for each field (its own prefix), and
    in total (the fields read the same tickets in the same micro-batches, so the total's mean is the sum of
    the fields' means); with the baseline on, each further field's agreement with its full re-encode (the
    first field's is the summary's own). "" for one field or before the language model has read a ticket."""
    names = session.field_names
    if not names:
        return ""
    first = latency_summary(session.table.latencies())
    if first is None:
        return ""
    parts, total = [f"{names[0]} median {first.median_ms:.0f} ms"], first.mean_ms
    for index, name in enumerate(names[1:], start=1):
        latencies, (same, both) = session.field_reading(index)
        mine = latency_summary(latencies)
        if mine is None:
            return ""
        said = f"{name} median {mine.median_ms:.0f} ms"
        if both:
            said += f", agreement with its full re-encode {same}/{both}"
        parts.append(said)
        total += mine.mean_ms
    return f"Language model a ticket, per field: {'; '.join(parts)}; all {len(names)} fields {total:.0f} ms (mean)."


def counting_notes(table: TicketTable, gold: GoldColumn) -> list[str]:
    """Which rows an accuracy against gold counts, for any field: why rows are left out (1,999/2,000 once said
    nothing) and how taught tickets count."""
    notes = [left_out] if (left_out := not_counted(table, gold)) else []
    return notes + ([TAUGHT_NOTE] if len(table.taught_rows()) else [])


def learned_from(taught: int, profile: PromptProfile | None) -> str:
    """What the classifier learned from, in the lead's terms: the prompt's examples and its label
    descriptions are counted apart (the head's pseudo-tickets are two per description, so a count of
    those said "12 prompt examples" for 4)."""
    parts = [f"{taught} taught ticket{'s' if taught != 1 else ''}"] if taught else []
    if profile is not None:
        examples = sum(1 for e in profile.examples if e.text.strip() and e.label in profile.label_names)
        described = sum(1 for label in profile.labels if label.description.strip())
        if examples:
            parts.append(f"{examples} prompt example{'s' if examples != 1 else ''}")
        if described:
            parts.append(f"{described} label description{'s' if described != 1 else ''}")
    if not parts:
        return "Labels learned from the label names."
    return "Labels learned from " + (", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1 else parts[0]) + "."


def estimate_note(checks: CheckStatus) -> str:
    """The random checks beside the gold figure: what they estimate, or that there is none yet (the
    status bar said "Accuracy: not estimated" beside "Accuracy against gold 48.2%")."""
    if not checks.checked:
        return "Random-check estimate: none yet (Teach › Check a random sample)."
    return f"Random-check estimate: {checks.short()}."


class Summary:
    """Draws the results area's summary, chart and gold accuracy for the session and evaluation."""

    def __init__(self, session: Session, evaluation: Evaluation, results: ResultsArea, tickets: TicketArea) -> None:
        self.session, self.evaluation, self.results, self.tickets = session, evaluation, results, tickets
        self.dirty = True
        self._wrong_of = ""  # the further field *Wrong against gold* judges ("": the first)
        self.scoring = VersionScoring(session, evaluation)  # a version's score: taken in the session layer
        self.field_versions = FieldVersions(session, evaluation)  # the further fields' scores and flips, likewise

    def refresh(self) -> None:
        if not self.dirty:
            return
        self.dirty = False
        table, run = self.session.table, self.session.run_status
        latencies = table.latencies()
        base = [table.baseline[r].latency_ms for r in table.baseline]
        agree = [table.agree(r) for r in table.baseline]
        truncated, fallback = table.flags_count()
        notes = []
        if truncated:
            notes.append(f"{truncated} truncated to fit the context (✂).")
        if fallback:
            notes.append(f"{fallback} used the shorter clean prefix.")
        languages = table.language_counts()
        if said := language_summary(languages, unknown=True):
            notes.append(f"Languages: {said}.")
        if timing := fields_timing(self.session):
            notes.append(timing)
        head = self.session.head_status
        learning = learned_from(head.learned, self.session.prompt_in_use) if head.state == "ready" else ""
        self.results.show_stats(
            run.labelled,
            run.total,
            len(table.problems),
            latency_summary(latencies),
            latency_summary(base),
            (sum(a is True for a in agree), sum(a is not None for a in agree)) if agree else None,
            learning,
            " ".join(notes),
            run.classified,
            first := self.session.field_names[0] if len(self.session.field_names) > 1 else "",
        )
        self.results.show_latencies(latencies[-2000:].tolist(), base[-2000:], first)
        self.tickets.show_refinement(self.refinement(short=True))
        self.refresh_gold()
        self.tickets.refresh_label_filter()
        self.tickets.refresh_language_filter(languages)
        if self.tickets.filters().active and self.session.running:
            self.apply_filters()

    def redraw(self) -> None:
        """Now, not on the next tick (a gold column or the field shown in the Accuracy tab changed)."""
        self.dirty = True
        self.refresh()

    def apply_filters(self) -> None:
        # *Wrong against gold* judges the field the results area shows (the field of the cell in use changed as the
        # lead moved along a row, and with it the rows shown); its check box names it
        filters = replace(self.tickets.filters(), wrong_field=self.results.accuracy_field())
        field = self.field_gold(filters.cell_field)  # a further field's confusion-matrix cell
        wrong = self.field_gold(filters.wrong_field)
        mask = row_mask(self.session.table, filters, self.evaluation.gold, field, wrong)
        names = self.session.field_names
        self._wrong_of = names[filters.wrong_field] if 0 < filters.wrong_field < len(names) else ""
        self.tickets.filter_rows(mask, filters.only, self._wrong_of)
        self.tickets.say_hidden(self.session.ticket_count)

    def refinement(self, short: bool = False) -> str:
        """What the language model's reading changed, in one line (session.refinement)."""
        table = self.session.table
        said = refinement_changes(table, self.session.refinement(), self.evaluation.gold).words(short)
        if said and not short and self.session.run_status.first_pass_left:
            # After a restart the first pass runs again for up to a minute: the tab said "it fixed 0 and broke 1",
            # then "changed none of 6" once the pass ended, with nothing marking the first as provisional (W11)
            said += " So far: the classifier's first pass is still running, and this may change when it ends."
        return said

    def field_gold(self, field: int) -> tuple[TicketTable | None, GoldColumn | None]:
        """A further field's labelled table (None: not yet) and gold column (None: none); (None, None) for the
        first field or one the prompt no longer has."""
        names = self.session.field_names
        if not 0 < field < len(names):
            return None, None
        return self.session.field_table(field), self.evaluation.gold_for(names[field])

    def ordered(self, field: int) -> bool:
        """Whether field ``field``'s labels are in an order (low < medium < high): its two-steps count is shown."""
        profile = self.session.prompt_in_use
        return profile is not None and field < len(profile.fields) and profile.fields[field].ordered

    def refresh_flips(self, field: int) -> None:
        """The Flipped tab: the first field's flips with the last prompt version, or a further field's (its labels
        before its part of the prompt or its taught tickets last changed, against its labels now)."""
        names = self.session.field_names
        if 0 < field < len(names):
            flips, count, compared = self.field_versions.flips(field)
            self.results.show_flips(flips, count, compared, names[field])
            return
        flipped = self.session.table.previous_ids() >= 0
        self.results.show_flips(*self.evaluation.flips(), compared=bool(flipped.any()))

    def refresh_gold(self) -> None:
        self.refresh_flips(field := self.results.accuracy_field())
        names = self.session.field_names
        if self._wrong_of != (names[field] if 0 < field < len(names) else ""):
            self.apply_filters()  # another field shown: *Wrong against gold* judges it, and says so
        if 0 < field < len(names):  # (a field the prompt in use no longer has: the first field's, until refilled)
            self.refresh_field_gold(field)
            return
        table, gold = self.session.table, self.evaluation.gold
        if gold is None or not table.labels:
            said = " ".join(filter(None, [NO_GOLD_TEXT, self.refinement()]))
            self.results.show_gold(None, "", said if len(table) else "")
            return
        report = gold_report(table, gold)
        since = self.evaluation.comparison(report.accuracy, self.session.taught) if report.total else ""
        notes = counting_notes(table, gold)
        if stage := stage_note(table):
            notes.insert(0, stage)
        if not report.total:  # the run has just started: say so, not "pick a gold column" beside "Gold: team"
            notes.insert(0, f"Accuracy against gold ({gold.column}): no ticket with a gold label is labelled yet.")
        if refined := self.refinement():
            notes.append(refined)
        notes.append(estimate_note(self.session.check_status))
        self.results.show_gold(report, since, " ".join(notes), far=two_steps(table, gold) if self.ordered(0) else None)

    def refresh_field_gold(self, field: int) -> None:
        """A further field's accuracy against its own gold column, in the first field's words: taught tickets count
        with the label a model not trained on them gives (the field's first pass judges them out of fold), its
        stage and its own random-check estimate beside it (the tab said neither, W13). No version comparison or
        refinement note: the field's fit keeps no out-of-fold verdict of the language model's reading."""
        table, gold = self.field_gold(field)
        name, rows = self.session.field_names[field], len(self.session.table)
        if gold is None:
            self.results.show_gold(None, "", f"Pick a gold column for {name} (Gold ({name}): above the tickets) to see "
                                   "its accuracy." if rows else "", field)  # fmt: skip
            return
        report = gold_report(table, gold) if table is not None and table.labels else None
        if report is None or not report.total:
            said = f"Accuracy against gold ({gold.column}): no ticket with a gold label is labelled yet."
            self.results.show_gold(None, "", said, field)
            return
        assert table is not None
        notes = counting_notes(table, gold)
        if stage := stage_note(table):  # as the first field's: how many of these labels the language model read
            notes.insert(0, stage)
        if later := rows - len(table):  # the field's table is refitted as rows arrive: the newest are not in it yet
            notes.insert(0, f"{counted(later, 'ticket')} not labelled for {name} yet.")
        notes.append(estimate_note(self.session.field_check_status(field)))  # its own checks, as the first's
        far = two_steps(table, gold) if self.ordered(field) else None
        self.results.show_gold(report, "", " ".join(notes), field, far)
