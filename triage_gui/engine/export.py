"""Write classification results as CSV, atomically, with the prompt's hash on every row."""

from __future__ import annotations

import csv
import os
from collections.abc import Sequence
from typing import IO

from .atomic import atomic_open
from .results import TicketScore

RESULT_COLUMNS = ["label", "confidence", "latency_ms", "truncated", "prompt_hash"]
BASELINE_COLUMNS = ["baseline_label", "baseline_latency_ms", "agree"]


def result_header(input_columns: Sequence[str], baseline: bool) -> list[str]:
    """Input columns first, then ours; ours get a suffix where the input already uses the name."""
    taken = set(input_columns)
    ours = []
    for name in RESULT_COLUMNS + (BASELINE_COLUMNS if baseline else []):
        final = name
        while final in taken:
            final = f"{final}_predicted" if not final.endswith("_predicted") else final + "_"
        taken.add(final)
        ours.append(final)
    return [*input_columns, *ours]


def result_row(
    values: Sequence[str],
    cached: TicketScore | None,
    baseline: TicketScore | None,
    prompt_hash: str,
    with_baseline: bool,
) -> list[str]:
    row = list(values)
    if cached is None:
        row += ["", "", "", "", prompt_hash]
    else:
        row += [
            cached.label,
            f"{cached.confidence:.4f}",
            f"{cached.latency_ms:.1f}",
            "yes" if cached.truncated else "",
            prompt_hash,
        ]
    if with_baseline:
        if baseline is None or cached is None:
            row += ["", "", ""]
        else:
            row += [baseline.label, f"{baseline.latency_ms:.1f}", "yes" if baseline.label == cached.label else "no"]
    return row


def write_csv(
    handle: IO[str],
    input_columns: Sequence[str],
    rows: Sequence[tuple[Sequence[str], TicketScore | None, TicketScore | None]],
    prompt_hash: str,
    baseline: bool,
) -> None:
    """rows: (input values, cached score or None if not scored yet, baseline score or None)."""
    writer = csv.writer(handle)
    writer.writerow(result_header(input_columns, baseline))
    for values, cached, base in rows:
        writer.writerow(result_row(values, cached, base, prompt_hash, baseline))


def write_results(
    path: str | os.PathLike[str],
    input_columns: Sequence[str],
    rows: Sequence[tuple[Sequence[str], TicketScore | None, TicketScore | None]],
    prompt_hash: str,
    baseline: bool,
) -> None:
    """The CSV of ``write_csv``, written atomically: an interrupted export leaves the old file intact."""
    with atomic_open(path, "w", encoding="utf-8", newline="") as handle:
        write_csv(handle, input_columns, rows, prompt_hash, baseline)
