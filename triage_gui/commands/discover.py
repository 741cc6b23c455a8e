"""``discover``: labels from the tickets themselves, headless.

Every input row is embedded with the bundled sentence encoder (the first pass the window runs), the tickets
are grouped (:mod:`engine.grouping`), and every input row comes back, in input order, with a ``group``
column: its group's drafted name, empty for a ticket that fits no group (and for a row with no text).
``--prompt-out`` writes a prompt file the window opens: a label per group with its description, two
representative tickets of each as examples.
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import time

from ..words import counted
from ._steps import first_pass, load_encoder_for, read_input

GROUP_COLUMN = "group"


def run_discover(args: argparse.Namespace) -> int:
    from ..engine.files import atomic_open, shown
    from ..engine.grouping import as_profile, group_table
    from ..engine.prompt import ProfileError
    from ..engine.tickets import check_output

    inputs = {"input file": args.file}
    out = check_output(args.out, inputs)
    if out is None:
        raise ValueError("--out needs a file name: discover writes a CSV file.")
    if out.lower().endswith((".xlsx", ".xls", ".xlsm", ".xlsb")):
        raise ValueError(f"{shown(args.out)}: discover writes CSV; give a name ending in .csv.")
    prompt_out = None
    if args.prompt_out:
        prompt_out = check_output(args.prompt_out, {**inputs, "--out file": out}, "--prompt-out")
        if prompt_out is None:
            raise ValueError("--prompt-out needs a file name.")
        if os.path.realpath(prompt_out) == os.path.realpath(out):  # a new name: samefile cannot see it
            raise ValueError(f"--prompt-out {shown(args.prompt_out)} is the --out file; give the prompt another name.")
    if getattr(args, "encoder", "bundled") == "none":
        raise ValueError("discover groups the tickets by their sentence-encoder embeddings: it needs the encoder")
    table, column, summary = read_input(args.file, args.column, getattr(args, "sheet", None))
    print(f"{counted(table.count_scorable(), 'ticket')} from column {column!r}: {summary}", file=sys.stderr)
    encoder = load_encoder_for(args, table)
    first_pass(encoder, table)
    started = time.perf_counter()
    grouping = group_table(table, args.groups, args.seed)
    seconds = time.perf_counter() - started
    names = grouping.names_by_row()
    profile = None
    if prompt_out is not None:  # drafted before anything is written: a prompt that cannot be made leaves no --out
        if len(grouping.groups) < 2:
            raise ValueError(
                f"the tickets formed {counted(len(grouping.groups), 'group')}; a prompt file needs at least two "
                "labels, so nothing was written (leave --prompt-out out, or give more varied tickets)"
            )
        try:
            profile = as_profile(grouping, table.texts)
        except ProfileError as exc:  # "150 labels defined" said of labels the user never defined
            why = str(exc).rstrip(".")
            raise ValueError(
                f"the {counted(len(grouping.groups), 'group')} cannot make a prompt file ({why}); nothing was "
                "written (ask for fewer --groups, or leave --prompt-out out)"
            ) from None
    try:
        with atomic_open(out, "w", encoding="utf-8", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow([*table.columns, group_column(table.columns)])
            for row in range(len(table)):
                writer.writerow([*table.row_values(row), names.get(row, "")])
    except OSError as exc:
        raise ValueError(f"Cannot write {shown(args.out)}: {exc.strerror or exc}") from None
    if profile is not None and prompt_out is not None:
        profile.save(prompt_out)
    report(grouping, len(table), seconds)
    return 0


def group_column(columns: list[str]) -> str:
    """``group``, or ``group_found`` (then ``group_found_``...) where the input already has a column of that name:
    an input's own ``group`` column (a queue, say) and ours were two columns of one name."""
    name = GROUP_COLUMN
    while name in columns:
        name = f"{name}_found" if not name.endswith("_found") else name + "_"
    return name


def report(grouping, rows: int, seconds: float) -> None:
    """The groups on stderr, largest first, each small or loose one marked so (engine/grouping's module
    docstring says how they are told), and how many tickets fit none."""
    print(f"{counted(len(grouping.groups), 'group')} in {seconds:.1f} s:", file=sys.stderr)
    for group in grouping.groups:
        flags = f" [{', '.join(group.flags)}]" if group.flags else ""
        print(f"  {group.size:>6,}  {group.name}{flags}: {', '.join(group.terms[:5])}", file=sys.stderr)
    unplaced = rows - len(grouping.rows)
    print(f"{counted(grouping.none_count, 'ticket')} fit no group well", file=sys.stderr)
    for flag, why in (("loose", "their tickets less alike than most groups'"), ("small", "too few tickets")):
        if marked := grouping.flagged(flag):
            print(f"{counted(len(marked), f'{flag} group')} ({why}): read them before naming", file=sys.stderr)
    if unplaced:
        print(f"{counted(unplaced, 'row')} without ticket text kept with an empty group", file=sys.stderr)
