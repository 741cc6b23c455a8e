"""Write labelled tickets as CSV or Excel: every input row, in input order, with ours after the input columns.

Ours: ``label``, ``confidence``, ``label_source`` (prompt, learned or taught), ``latency_ms`` (for a
batch, its wall time divided by its size), ``truncated``, ``prompt_hash`` and ``reason`` (why a row
has no label: blank text, a bad JSON line, not labelled yet); with the baseline also
``baseline_label``, ``baseline_latency_ms`` and ``agree``; last, ``language`` (the ticket's detected
language code, "de", empty where unknown: :func:`exported_row`). Files are written atomically.

The input columns are the table's: those of the file loaded since the last Clear or Replace, in its
order, and, where files were added to it, each later file's new columns after them (first seen first).

CSV cells are the text exactly, also one that starts with ``=``, ``+``, ``-`` or ``@``: CSV is data, and
prefixing a quote would change a ticket for every program that reads it as data. A spreadsheet that
opens such a CSV may run it as a formula (the README says so); the .xlsx export writes every text cell
as a string, so a spreadsheet shows it as text and never runs it.
"""

from __future__ import annotations

import csv
import errno
import os
import stat
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import IO

from ..files import atomic_open, atomic_path, check_links, shown, special_kind
from ..table import TicketTable, decide
from ._xlsx_writer import excel_problem, write_workbook

RESULT_COLUMNS = ["label", "confidence", "label_source", "latency_ms", "truncated", "prompt_hash", "reason"]
BASELINE_COLUMNS = ["baseline_label", "baseline_latency_ms", "agree"]
LANGUAGE_COLUMN = "language"  # after every other column of ours: an export read by position keeps its columns
NOT_LABELLED = "not labelled yet"


def result_header(input_columns: list[str], baseline: bool) -> list[str]:
    """Input columns first, then ours; ours get a suffix where the input already uses the name."""
    return output_header(input_columns, [*RESULT_COLUMNS, *(BASELINE_COLUMNS if baseline else []), LANGUAGE_COLUMN])


def output_header(input_columns: list[str], names: list[str]) -> list[str]:
    """The input's columns, then ``names``, each renamed ``<name>_predicted`` where the input already uses
    it (so a re-labelled export keeps its old labels): one rule for a one-field and a several-field output."""
    taken = set(input_columns)
    ours = []
    for name in names:
        final = name
        while final in taken:
            final = f"{final}_predicted" if not final.endswith("_predicted") else final + "_"
        taken.add(final)
        ours.append(final)
    return [*input_columns, *ours]


def result_row(table: TicketTable, row: int, prompt_hash: str, baseline: bool) -> list[str]:
    """One output row: the input values, then our columns (empty where the row has no label)."""
    values = table.row_values(row)
    problem = table.problems.get(row)
    decision = decide(table, row)
    label = decision.written
    if label is None:
        values += ["", "", "", "", "", prompt_hash, problem or NOT_LABELLED]
    else:
        confidence = decision.confidence
        latency = table.latency(row)
        values += [
            label,
            "" if confidence is None else f"{confidence:.4f}",
            decision.source.shown,
            "" if latency is None else f"{latency:.1f}",
            "yes" if table.truncated(row) else "",
            prompt_hash,
            "",
        ]
    if baseline:
        score = table.baseline.get(row)
        agree = table.agree(row)
        if score is None or agree is None:
            values += ["", "", ""]
        else:
            values += [table.baseline_label(row) or "", f"{score.latency_ms:.1f}", "yes" if agree else "no"]
    return values


def exported_row(table: TicketTable, row: int, prompt_hash: str, baseline: bool) -> list[str]:
    """The row as written: :func:`result_row`, then the ticket's language code ("" unknown)."""
    return [*result_row(table, row, prompt_hash, baseline), table.language(row)]


@dataclass(frozen=True)
class ExportCounts:
    """What an export of the table writes, counted as :func:`result_row` decides (the export's question
    said "393 of 400 tickets are not labelled yet" mid re-label, and the export wrote all 400 labelled)."""

    tickets: int  # rows that can carry a label (a row with a problem never does)
    unlabelled: int  # of those, written with an empty label and "not labelled yet"
    ahead: int  # written with the learned classifier's label: the prompt version in use has not scored them


def export_counts(table: TicketTable) -> ExportCounts:
    written = (table.label_ids() >= 0) & (table.current_mask() | table.taught_mask())
    ahead = written & ~table.scored_mask() & ~table.taught_mask()
    tickets = table.count_scorable()
    return ExportCounts(tickets, max(0, tickets - int(written.sum())), int(ahead.sum()))


def write_csv(handle: IO[str], table: TicketTable, prompt_hash: str, baseline: bool) -> int:
    """Every row of the table; returns how many rows carry a label."""
    writer = csv.writer(handle)
    writer.writerow(result_header(table.columns, baseline))
    labelled = 0
    for row in range(len(table)):
        out = exported_row(table, row, prompt_hash, baseline)
        labelled += bool(out[len(table.columns)])
        writer.writerow(out)
    return labelled


def write_results(
    path: str | os.PathLike[str],
    table: TicketTable,
    prompt_hash: str,
    baseline: bool,
    writer: Callable[[IO[str], TicketTable, str, bool], int] = write_csv,
) -> int:
    """The CSV of :func:`write_csv` (a workbook of :func:`write_xlsx` where the name ends in .xlsx), written
    atomically: an interrupted export leaves the old file intact."""
    if output_format(path) == "xlsx":
        return write_xlsx(path, table, prompt_hash, baseline)
    with atomic_open(path, "w", encoding="utf-8", newline="") as handle:
        return writer(handle, table, prompt_hash, baseline)


def write_xlsx(path: str | os.PathLike[str], table: TicketTable, prompt_hash: str, baseline: bool) -> int:
    """The rows of :func:`write_csv` as one sheet, streamed from the table (see :class:`ExcelExport`)."""
    return ExcelExport(table, prompt_hash, baseline).write(path)


def output_format(path: str | os.PathLike[str]) -> str:
    """The format a name asks for: "xlsx" where it ends in .xlsx (any case), else "csv"; one that promises another Excel
    format (.xls, .xlsm, .xlsb) is refused: a CSV under it would not open as one, and we write no macros."""
    name = os.fspath(path)
    suffix = os.path.splitext(name)[1].lower()
    if suffix in (".xls", ".xlsm", ".xlsb"):
        raise ValueError(
            f"Cannot write {shown(name)}: results are written as Excel only under a name ending in .xlsx, and as "
            "CSV under any other; name the file .xlsx or .csv."
        )
    return "xlsx" if suffix == ".xlsx" else "csv"


def check_fits_excel(table: TicketTable, baseline: bool) -> None:
    """Refuse, in one sentence, a table an Excel sheet cannot hold (rows, columns, a cell's length)."""
    header = result_header(table.columns, baseline)
    problem = excel_problem(header, len(table), table.values)
    if problem:
        raise ValueError(f"Cannot write an Excel workbook: {problem}; write the results as CSV instead.")


SHEET = "labelled tickets"  # the sheet's name when the tickets did not come from a workbook


class ExcelExport:
    """A table as one sheet: text cells as strings (never formulas), our confidence and latencies as
    numbers. A table past Excel's limits is refused in one sentence (:func:`check_fits_excel`).

    Writing a workbook costs 25-100 µs a row (``xlsx_writer``; 2.3 s for 100,000 short tickets, 10.6 s
    for 440-character ones): the window takes a :meth:`snapshot` of the rows (the table has one owner)
    and writes it on a worker thread; the command line streams the rows straight from the table.
    """

    def __init__(self, table: TicketTable, prompt_hash: str, baseline: bool, sheet: str | None = None) -> None:
        check_fits_excel(table, baseline)
        self.sheet = sheet or SHEET  # the input workbook's sheet name where there was one (the window passes it)
        self.header = result_header(table.columns, baseline)
        self.width = len(table.columns)
        ours = RESULT_COLUMNS + (BASELINE_COLUMNS if baseline else [])
        numeric = ("confidence", "latency_ms", "baseline_latency_ms")
        self.numeric = {self.width + ours.index(name) for name in numeric if name in ours}
        self.rows: Iterable[list[str]] = (exported_row(table, r, prompt_hash, baseline) for r in range(len(table)))
        self.labelled = 0

    def snapshot(self) -> ExcelExport:
        """Take every row now, so that :meth:`write` can run on another thread than the table's owner."""
        self.rows = list(self.rows)
        return self

    def write(self, path: str | os.PathLike[str]) -> int:
        """Write the workbook atomically; returns how many rows carry a label."""
        self.labelled = 0

        def counted() -> Iterator[list[str]]:
            for out in self.rows:
                self.labelled += bool(out[self.width])
                yield out

        with atomic_path(path, ".xlsx") as tmp:
            write_workbook(tmp, self.sheet, self.header, counted(), self.numeric)
        return self.labelled


STDOUT = "-"


def check_output(
    path: str, inputs: Mapping[str, str | os.PathLike[str] | Sequence[os.PathLike[str]] | None], flag: str = "--out"
) -> str | None:
    """Where to write the results, checked before any scoring: the real path (a symlink's target), or
    None for standard output (``-``, or a name that is standard output itself, such as /dev/stdout).

    Refused in one sentence: any file the run reads (``inputs``: what it is -> its path, or a list of paths, any
    of them; compared by real path, so a link or another spelling of it counts), a folder, a device or FIFO
    (replacing one with a regular file would break the system's node), a name too long for the file system, a
    missing or unwritable folder. ``flag`` is the option the sentences name (``discover --prompt-out`` was told
    about "--out"); the window's export gives "The file" and, as inputs, its ticket files and its prompt file.
    """
    if path == STDOUT:
        return None
    if not path:
        raise ValueError(f"{flag} is empty; give a file name, or - for standard output.")
    output_format(path)
    check_links(path)
    name = shown(path)
    try:
        info: os.stat_result | None = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        info = None  # the folder is checked below
    except OSError as exc:
        if exc.errno == errno.ENAMETOOLONG:
            raise ValueError(f"Cannot write {name}: the file name is longer than the file system allows.") from None
        raise ValueError(f"Cannot write {name}: {exc.strerror or exc}.") from None
    if info is not None and _is_stdout(info):
        return None
    if info is not None and not stat.S_ISREG(info.st_mode):
        if stat.S_ISDIR(info.st_mode):
            raise ValueError(f"{flag} {name} is a folder; give a file name.")
        kind = special_kind(info.st_mode)  # the rule every write applies (files.writable_target), said for --out
        raise ValueError(f"{flag} {name} is {kind}, not a regular file; give a file name, or - for standard output.")
    if path.endswith(("/", os.sep)):  # realpath drops the slash: x.csv/ was written as the file x.csv
        raise ValueError(f"{flag} {name} ends in a slash, as a folder's name does; give a file name.")
    target = os.path.realpath(path)
    for what, sources in inputs.items():
        for source in [sources] if sources is None or isinstance(sources, str | os.PathLike) else sources:
            if source and _same_file(source, target, info is not None):
                raise ValueError(f"{flag} {name} is the {what} itself; write the results to another file.")
    folder = os.path.dirname(target) or "."
    if not os.path.isdir(folder):
        raise ValueError(f"Cannot write {name}: the folder {shown(folder)} does not exist.")
    try:
        limit = os.pathconf(folder, "PC_NAME_MAX")
    except (OSError, ValueError, AttributeError):
        limit = 255
    if len(os.fsencode(os.path.basename(target))) > limit:
        raise ValueError(f"Cannot write {name}: the file name is longer than the {limit} bytes this folder allows.")
    if not os.access(folder, os.W_OK) or (info is not None and not os.access(target, os.W_OK)):
        raise ValueError(f"Cannot write {name}: permission denied.")
    return target


def _same_file(source: str | os.PathLike[str], target: str, exists: bool) -> bool:
    """Whether writing ``target`` (a real path; ``exists``: there now) would replace ``source``: the same file, or,
    neither there yet, the same name (the window's prompt file before its first write)."""
    if exists:
        return os.path.exists(source) and os.path.samefile(source, target)
    return os.path.realpath(source) == target


def _is_stdout(info: os.stat_result) -> bool:
    try:
        mine = os.fstat(1)
    except OSError:
        return False
    return (mine.st_dev, mine.st_ino) == (info.st_dev, info.st_ino)
