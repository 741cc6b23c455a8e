"""``classify``: label every row of a ticket file headless, with the window's engine and rules.

Every input row comes back in the output, in input order; a row that cannot be labelled has an empty
label and a reason. The output location is checked before any scoring. With ``--train`` a labelled
file teaches the classifier first (features of its tickets come from the same forward pass).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from ..engine.table import TicketTable
from ..words import counted
from ._console import end_line, progress_line
from ._steps import first_pass, load_encoder_for, read_input, score_local


def run(args: argparse.Namespace) -> int:
    """Two passes, as in the window: every row embedded and labelled by the classifier's prompt-free heads
    first, then (unless ``--fast``) the language model's scores and the full combination."""
    from ..engine.files import shown
    from ..engine.prompt import load_profile
    from ..engine.tickets import check_fits_excel, output_format, write_csv, write_results

    if args.batch_size < 1:
        raise ValueError("--batch-size must be at least 1")
    fast = getattr(args, "fast", False)
    if fast and (args.no_learning or getattr(args, "encoder", "bundled") == "none"):
        raise ValueError("--fast labels with the learned classifier's first pass: it needs the sentence encoder")
    if fast and args.baseline:
        raise ValueError("--fast runs no language model, so there is no baseline to compare with")
    out = output_path(args)
    if not fast:
        check_ray(args)
    table, column, summary = read_input(args.file, args.column, getattr(args, "sheet", None))
    if out and output_format(out) == "xlsx":
        check_fits_excel(table, args.baseline)  # refused now, not after the scoring
    print(f"{counted(table.count_scorable(), 'ticket')} from column {column!r}: {summary}", file=sys.stderr)
    profile = load_profile(args.prompt)
    if profile.several:
        return run_fields(args, profile, table, out)
    taught = taught_tickets(args, profile)
    scorer = None if fast else load_scorer(args, profile)
    encoder = None if args.no_learning else load_encoder_for(args, table)
    label_table(args, table, profile, taught, scorer, encoder)
    prompt_hash = profile.content_hash()
    if out:
        try:
            write_results(out, table, prompt_hash, args.baseline)
        except OSError as exc:
            raise ValueError(f"Cannot write {shown(args.out)}: {exc.strerror or exc}") from None
    else:
        write_csv(sys.stdout, table, prompt_hash, args.baseline)
    report(table, args.baseline)
    return 0


def run_fields(args: argparse.Namespace, profile, table: TicketTable, out: str | None) -> int:
    """A prompt of several fields: every field labelled as the one-field prompt holding it alone, through
    :func:`label_table`, on its own copy of the rows; the encoder's features computed once for all fields
    (commands/_fields.py says why that is exact); one output row per input row."""
    import copy
    import tempfile

    from ..engine.tickets import check_fields_fit_excel, field_cells, output_format, read_taught
    from ._fields import SharedEncoder, train_columns, write_fields

    if args.train and args.train_label:
        raise ValueError(
            "--train-label names one label column; with a prompt of several fields --train reads the columns "
            f"named after its fields ({', '.join(repr(f.name) for f in profile.fields)})."
        )
    fields = profile.fields
    if out and output_format(out) == "xlsx":
        check_fields_fit_excel(table, [f.name for f in fields])  # refused now, not after the labelling
    fast = getattr(args, "fast", False)
    trains = train_columns(args, [f.name for f in fields])
    for f, column in zip(fields, trains, strict=True):  # each column refused now, not after a field's labels
        if column is not None:
            read_taught(args.train, f.label_names, column, args.column)
    loaded = None if fast else load_model_said(args)
    encoder = None if args.no_learning else load_encoder_for(args, table)
    shared = SharedEncoder(encoder) if encoder is not None else None
    if shared is not None:
        first_pass(shared, table)  # every ticket embedded once, for all fields
    columns: list[list[tuple[str, str, str]]] = []
    with tempfile.TemporaryDirectory(prefix="triage-fields-") as folder:
        for i, f in enumerate(fields):
            print(f"field {f.name!r} ({i + 1} of {len(fields)}): {', '.join(f.label_names)}", file=sys.stderr)
            single = profile.field_profile(i)
            field_args = argparse.Namespace(**vars(args))
            field_args.train = args.train if trains[i] is not None else None
            if getattr(args, "ray", None) and not fast:  # Ray's workers read the prompt from the file
                field_args.prompt = str(Path(folder) / f"field-{i + 1}.json")
                single.save(field_args.prompt)
            taught = taught_tickets(field_args, single, trains[i])
            scorer = None if loaded is None else scorer_for(args, loaded, single)
            mine = copy.deepcopy(table)
            label_table(field_args, mine, single, taught, scorer, shared)
            columns.append(field_cells(mine))
            report(mine, args.baseline)
    write_fields(out, table, [f.name for f in fields], columns, profile.content_hash())
    return 0


def label_table(args: argparse.Namespace, table: TicketTable, profile, taught, scorer, encoder) -> None:
    """One prompt's labels for every row: the first pass (the encoder's features, unless the table has
    them), the language model's scores (unless ``--fast``; here or on Ray) and the taught classifier's.
    A prompt with several fields runs each field through this, as the one-field prompt holding it."""
    if scorer is not None:
        table.start_version(0, scorer.labels, scorer.bias.tolist())
    else:
        table.start_version(0, profile.label_names, [])
    if encoder is not None:
        first_pass(encoder, table)
    if scorer is not None and getattr(args, "ray", None):
        from ..ray.driver import Console, score_on_ray

        score_on_ray(args, table, Console(progress_line, end_line))
    elif scorer is not None:
        score_local(scorer, table, args.batch_size, args.baseline)
    elif getattr(args, "ray", None):
        print("--fast: the first pass ran here (it needs no cluster)", file=sys.stderr)
    if not args.no_learning:
        learn(scorer, table, taught, profile, encoder)


def load_scorer(args: argparse.Namespace, profile):
    """The language model and the prompt's prefix, their load said on stderr."""
    return scorer_for(args, load_model_said(args), profile)


def load_model_said(args: argparse.Namespace):
    """The language model, its load said on stderr (a prompt of several fields loads it once for all)."""
    from ..engine.model import load_model

    def progress(fraction: float, message: str) -> None:
        print(message, file=sys.stderr)

    loaded = load_model(args.model, args.device, progress, args.threads, args.dtype)
    if loaded.repaired:
        print(loaded.repaired, file=sys.stderr)
    return loaded


def scorer_for(args: argparse.Namespace, loaded, profile):
    """The prompt's scorer over a loaded model (one model serves every field of a prompt)."""
    from ..engine.scoring import Scorer

    scorer = Scorer(loaded, profile, calibrate=not args.no_calibration)
    if scorer.prefix_problem:
        print(scorer.prefix_problem, file=sys.stderr)
    return scorer


def check_ray(args: argparse.Namespace) -> None:
    """A cluster address where nothing listens is refused in seconds, before the model loads."""
    if getattr(args, "ray", None):
        from ..ray.driver import probe_address

        probe_address(args.ray)


def output_path(args: argparse.Namespace) -> str | None:
    """The checked output file (a symlink's target), or None for standard output; refuses, before any
    scoring, an output that is any file the run reads (input, prompt, --train), a device, a FIFO…"""
    from ..engine.tickets import check_output

    if args.out is None:
        if sys.stdout is None or sys.stdout.closed:  # started with stdout closed (``>&-``): print had no file
            raise ValueError("Standard output is closed, so the labels have nowhere to go; give --out FILE.")
        return None
    return check_output(args.out, {"input file": args.file, "prompt file": args.prompt, "--train file": args.train})


def taught_tickets(args: argparse.Namespace, profile, column: str | None = None) -> list[tuple[str, str]]:
    """The taught set as the window has it: the tickets the lead taught, saved with the prompt (unless
    ``--no-taught``), then ``--train``'s; a later label for the same text replaces an earlier one. So the
    same taught tickets give the same labels whether they come from ``--prompt P`` or ``--train``."""
    from ..engine.tickets import usable_taught

    saved, notes = usable_taught([] if getattr(args, "no_taught", False) else profile.taught, profile.label_names)
    merged = dict(saved)
    for note in notes:
        print(note, file=sys.stderr)
    if saved:
        print(f"teaching from {counted(len(merged), 'taught ticket')} saved with the prompt", file=sys.stderr)
    if args.train:
        for text, label in read_train(args, profile.label_names, column):
            merged[text.strip()] = label
    return list(merged.items())


def read_train(args: argparse.Namespace, labels: list[str], column: str | None = None) -> list[tuple[str, str]]:
    """``--train``'s (text, label) pairs from the label column ``--train-label`` names (a field's: ``column``)."""
    from ..engine.tickets import NoTickets, read_taught

    if args.train == "-":
        raise ValueError("--train reads a labelled file; standard input (-) is only for the tickets to label.")
    try:
        taught = read_taught(args.train, labels, column or args.train_label, args.column)
    except NoTickets as exc:  # a header alone: a taught set of none (K = 0), not a reason to stop
        print(f"{exc} It teaches nothing.", file=sys.stderr)
        return []
    note = f"; {counted(taught.skipped, 'row')} skipped ({taught.reason})" if taught.skipped else ""
    print(
        f"teaching from {counted(len(taught.items), 'labelled ticket')} in {Path(args.train).name} "
        f"(text {taught.text_column!r}, label {taught.label_column!r}){note}",
        file=sys.stderr,
    )
    labels_of: dict[str, set[str]] = {}
    for text, label in taught.items:
        labels_of.setdefault(text.strip(), set()).add(label)
    torn = [text for text, found in labels_of.items() if len(found) > 1]
    if torn:  # the last row's label is taught; said, or the lead never learns the file disagrees with itself
        print(
            f"{counted(len(torn), 'ticket text')} in {Path(args.train).name} "
            f"{'has' if len(torn) == 1 else 'have'} rows with different labels (such as {shown_text(torn[0])}); "
            "the last row's label is taught",
            file=sys.stderr,
        )
    return taught.items


def shown_text(text: str, limit: int = 60) -> str:
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")


class TeachingProgress:
    """The scorer as the taught classifier uses it, counting what it scores: a 10,000-row ``--train``
    file takes minutes of forwards (in batches, as tickets do) and they get a progress line too."""

    def __init__(self, scorer, total: int) -> None:
        self.scorer, self.total, self.done = scorer, total, 0
        self.started = time.perf_counter()

    def score_batch(self, texts: list[str]):
        scores = self.scorer.score_batch(texts)
        self.done += len(texts)
        progress_line(self.done, self.total, self.started, " for the taught classifier")
        return scores

    def __getattr__(self, name: str):
        return getattr(self.scorer, name)


def teaching_total(table: TicketTable, taught: list[tuple[str, str]], profile) -> int:
    """Texts the taught classifier must score: the prompt's pseudo-tickets and the taught tickets that
    are not loaded rows (these have their features from labelling already)."""
    from ..engine.learning import prompt_examples

    loaded = {table.texts[r] for r in range(len(table)) if table.scored(r) or table.embedded(r)}
    return len(prompt_examples(profile)) + len({text for text, _ in taught if text not in loaded})


def learn(scorer, table: TicketTable, taught: list[tuple[str, str]], profile, encoder=None) -> None:
    """Fit the taught classifier (taught tickets plus the prompt's own examples) and relabel with it."""
    from ..engine.learning import Teacher

    total = teaching_total(table, taught, profile)
    print(f"teaching: features of {total} taught and prompt tickets", file=sys.stderr)
    counting = TeachingProgress(scorer, total) if scorer is not None else None
    described = Teacher(counting, profile, encoder).fit_table(table, taught)
    if counting is not None and counting.done:
        end_line()
    if described is not None:
        print(f"labels learned from {described}", file=sys.stderr)


def row_counts(table: TicketTable) -> str:
    """Rows read, rows labelled, and why any were not: every input row is in the output, 1:1."""
    labelled = sum(1 for r in range(len(table)) if table.current(r) or table.taught_label(r))
    reasons: dict[str, int] = {}
    for problem in table.problems.values():
        reason = "bad JSON" if "JSON" in problem else problem
        reasons[reason] = reasons.get(reason, 0) + 1
    missing = len(table) - labelled - sum(reasons.values())
    if missing > 0:
        reasons["not labelled"] = missing
    why = ", ".join(f"{n} {reason}" for reason, n in reasons.items())
    rows = counted(len(table), "row")
    return f"{rows} read, {labelled} labelled" + (f", not labelled: {why}" if why else "")


def report(table: TicketTable, baseline: bool) -> None:
    print(row_counts(table), file=sys.stderr)
    notes = []
    if table.problems:
        rows = counted(len(table.problems), "row")
        notes.append(f"{rows} without ticket text kept unlabelled (see the reason column)")
    truncated, fallbacks = table.flags_count()
    if fallbacks:
        notes.append(f"{counted(fallbacks, 'ticket')} used the shorter clean prefix (token boundary)")
    if truncated:
        notes.append(f"{counted(truncated, 'ticket')} truncated to fit the model's context")
    if baseline:
        from ..engine.table import logprob_difference

        agree = sum(bool(table.agree(r)) for r in table.baseline)
        worst = 0.0
        for row, score in table.baseline.items():
            mine = table.logprobs(row)
            if mine is not None:
                diff = logprob_difference(mine.tolist(), score.logprobs)
                worst = diff if diff != diff or diff > worst else worst
        notes.append(f"baseline agreement {agree}/{len(table.baseline)}, max log-prob difference {worst:.2e}")
    for note in notes:
        print(note, file=sys.stderr)
