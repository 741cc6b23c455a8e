"""The ticket formats: one table (``FORMATS``) of what each is called, its name endings, its magic bytes,
how it is opened and how its records are read. Choosing a file's format (:func:`check_file`,
:func:`open_tickets`), the Open and Import dialogs' filter, what a drop accepts and every help text that
lists the formats (:data:`FORMAT_NAMES`: the window's empty table, its guide and summary, the command
line's help) read it, so a format is added in one row.

A file is its format by its first bytes where a format has magic bytes (a workbook under any name), else by
its name's ending; a file under another name is sniffed (a JSON array, JSON Lines, else a CSV).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from ...words import counted
from ._reader import (
    Record,
    TicketSource,
    _open_csv,
    _open_json,
    _open_jsonl,
    _open_xlsx,
)
from ._sniff import (
    MIXED_UTF8,
    SAMPLE_BYTES,
    TicketFileError,
    is_tab_table,
    looks_jsonl,
    looks_like_lines,
    read_head,
    scan_whole_file,
    text_encoding,
    text_sample,
)
from ._sniff import file_name as _name
from ._workbook import ZIP_MAGIC, choose_sheet, refuse_old_excel


@dataclass
class Opening:
    """What is known of a file when its format's opener runs: a text file's encoding, notes so far and
    decoded first bytes (none of them for a workbook), and the sheet asked for (a workbook's)."""

    path: Path
    sheet: str | None = None
    encoding: str = ""
    notes: list[str] | None = None
    sample: str = ""


@dataclass(frozen=True)
class Format:
    name: str  # what users see, in help texts and the dialogs' filter
    endings: tuple[str, ...]  # lower case, with the dot
    kind: str  # ``TicketSource.kind``: the reader a source of this format is read with
    opener: Callable[[Opening], TicketSource]
    reader: Callable[[TicketSource, int], Iterator[Record]]
    magic: tuple[bytes, ...] = ()  # first bytes that make a file this format whatever its name
    looks: Callable[[str], bool] | None = None  # a file under another name is this format if its text looks so


def _csv(opening: Opening) -> TicketSource:
    text, complete = text_sample(opening.path, opening.encoding)
    suffix = opening.path.suffix.lower()
    return _open_csv(opening.path, opening.encoding, text, complete, opening.notes or [], suffix)


def _txt(opening: Opening) -> TicketSource:
    """One ticket a line; a .txt that is a table is Excel's "Unicode text" export, read as tab-separated."""
    text, complete = text_sample(opening.path, opening.encoding)
    if is_tab_table(text, complete):
        return _open_csv(opening.path, opening.encoding, text, complete, opening.notes or [], ".tsv")
    return TicketSource(opening.path, "txt", opening.encoding, ["text"], 0, has_header=False, notes=opening.notes or [])


def _json(opening: Opening) -> TicketSource:
    return _open_json(opening.path, opening.encoding, opening.notes or [], opening.sample)


def _jsonl(opening: Opening) -> TicketSource:
    sample = text_sample(opening.path, opening.encoding)[0]
    return _open_jsonl(opening.path, opening.encoding, sample, opening.notes or [])


def _xlsx(opening: Opening) -> TicketSource:
    return _open_xlsx(opening.path, opening.sheet)


def _json_array(text: str) -> bool:
    return text.lstrip("\ufeff \t\r\n").startswith("[")


CSV = Format("CSV", (".csv",), "csv", _csv, TicketSource._csv_records)
EXCEL = Format("Excel (.xlsx)", (".xlsx", ".xlsm"), "xlsx", _xlsx, TicketSource._sheet_records, magic=(ZIP_MAGIC,))
# The order is the order users read them in, and the sniffing order for a file under another name.
FORMATS = (
    CSV,
    Format("TSV", (".tsv", ".tab"), "csv", _csv, TicketSource._csv_records),
    Format("TXT (one ticket a line)", (".txt",), "txt", _txt, TicketSource._txt_records, looks=looks_like_lines),
    Format("JSON (an array of tickets)", (".json",), "json", _json, TicketSource._json_records, looks=_json_array),
    Format("JSONL", (".jsonl", ".ndjson"), "jsonl", _jsonl, TicketSource._jsonl_records, looks=looks_jsonl),
    EXCEL,
)
SUPPORTED = tuple(ending for f in FORMATS for ending in f.endings)
XLSX = EXCEL.endings
FILE_FILTER = f"Ticket files ({' '.join(f'*{ext}' for ext in SUPPORTED)});;All files (*)"  # a Qt dialog's
# "CSV, TSV, TXT (one ticket a line), JSON (an array of tickets), JSONL or Excel (.xlsx)"
FORMAT_NAMES = f"{', '.join(f.name for f in FORMATS[:-1])} or {FORMATS[-1].name}"


def by_name_or_magic(path: Path, raw: bytes) -> Format | None:
    """The format a file's first bytes ``raw`` or else its name's ending say; None: sniff its text."""
    refuse_old_excel(path, raw)
    suffix = path.suffix.lower()
    return next((f for f in FORMATS if any(raw.startswith(m) for m in f.magic)), None) or next(
        (f for f in FORMATS if suffix in f.endings), None
    )


def check_file(path: str | os.PathLike[str]) -> list[str]:
    """What the window checks before it asks whether a file replaces the loaded tickets: that the file
    is there, readable and in a format we read (the cheap part of :func:`open_tickets`; the whole-file
    checks run when it is read). Returns a workbook's sheets that hold data ([] for a text file)."""
    path = Path(path)
    raw = read_head(path)
    if by_name_or_magic(path, raw) is EXCEL:
        return choose_sheet(path, None)[1]
    text_encoding(path, raw)
    return []


def open_tickets(path: str | os.PathLike[str], sheet: str | None = None) -> TicketSource:
    """Sniff a ticket file: encoding, format, delimiter, header and the ticket text column; for a
    workbook, ``sheet`` (default: the first that holds data)."""
    path = Path(path)
    raw = read_head(path)
    chosen = by_name_or_magic(path, raw)
    if chosen is EXCEL:
        return _read_with(EXCEL.opener(Opening(path, sheet)))
    encoding, note, sample = text_encoding(path, raw)
    notes = [note] if note else []
    errors = "replace"
    if len(raw) >= SAMPLE_BYTES:  # the rest of the file is held to what the sample decided
        nul_line, bad_line, bad = scan_whole_file(path, encoding)
        if nul_line is not None:
            raise TicketFileError(
                f"{_name(path)} is not a text file (line {nul_line} holds a NUL byte); export the tickets as CSV."
            )
        if bad_line is not None:
            errors = MIXED_UTF8
            notes.append(f"{counted(bad, 'byte')} not UTF-8 (the first on line {bad_line}): read as cp1252")
    if chosen is None:
        chosen = next((f for f in FORMATS if f.looks is not None and f.looks(sample)), CSV)
    source = _read_with(chosen.opener(Opening(path, sheet, encoding, notes, sample)))
    source.errors = errors
    return source


def _read_with(source: TicketSource) -> TicketSource:
    """The reader of the format the opener made (a .json of JSON Lines is read as JSONL)."""
    source.reader = next(f.reader for f in FORMATS if f.kind == source.kind)
    return source
