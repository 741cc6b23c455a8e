"""Read ticket files as helpdesks export them: CSV/TSV in any common encoding and delimiter, TXT, JSONL, .xlsx.

Files are read incrementally (``TicketSource.batches``) so a file of hundreds of thousands of rows
streams into the table with bounded memory. Every record comes out, in file order, so results line up
with the input: one that cannot be scored (blank text, a bad JSON line) carries a ``problem`` instead of
being dropped. Anything odd is reported in ``notes`` rather than guessed at silently; anything unreadable
raises ``TicketFileError`` with a one-line reason. The guessing itself (encoding, delimiter, header,
text column) lives in ``sniff.py``, the workbook's XML in ``workbook.py``; a sheet's rows go through the
same header and text-column rules as a CSV's.
"""

from __future__ import annotations

import csv
import io
import json
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...defaults import LABEL_CHARS
from ...words import counted
from ..table import BLANK
from ._records import fold_extra, json_integer, read_records, unique_names, uses_quoting, without_surrogates
from ._sniff import (
    SAMPLE_BYTES,
    NoTickets,
    TicketFileError,
    choose_text_column,
    csv_rows,
    has_content,
    has_header,
    looks_jsonl,
    looks_like_lines,
    reading,
    sniff_delimiter,
    text_sample,
)
from ._sniff import file_name as _name
from ._workbook import choose_sheet, sheet_sample

Record = tuple[int, list[str], str | None]  # (line number, values padded to the columns, problem)


# The problem of a workbook row whose ticket cell is a formula Excel never saved a value for.
FORMULA = "formula without a saved value (open and save the workbook in Excel to store its text)"


def is_blank(text: str) -> bool:
    """No text to label: whitespace only, or zero-width and other format characters (Unicode category Cf,
    such as U+200B) only, which show as nothing; a ticket of them alone was labelled as if it said something."""
    return all(char.isspace() or unicodedata.category(char) == "Cf" for char in text)


@dataclass
class Ticket:
    row: int  # 1-based line/record number in the file, for messages
    values: list[str]  # every input column, in ``columns`` order
    text: str  # "" when ``problem`` is set
    # Why this record cannot be scored ("blank ticket text", "line 7 is not valid JSON"); it is still
    # yielded so that output rows line up with input records, and is left unlabelled.
    problem: str | None = None


@dataclass
class TicketSource:
    """A ticket file opened for streaming, with what sniffing decided about it.

    The counters describe the last pass of ``batches``: ``rows_read`` records yielded (problem records
    included), ``blank_text`` of them with blank ticket text, ``bad_lines`` the JSONL line numbers that
    were not JSON objects (also yielded), ``empty_lines`` completely empty lines, which are not records.
    """

    path: Path
    kind: str  # "csv", "txt", "jsonl", "json" or "xlsx"
    encoding: str
    columns: list[str]
    text_column: int
    delimiter: str = ","
    has_header: bool = True
    notes: list[str] = field(default_factory=list)
    empty_lines: int = 0
    blank_text: int = 0
    long_text: int = 0  # tickets longer than LABEL_CHARS: labelled from their beginning, kept whole
    bad_lines: list[int] = field(default_factory=list)
    ragged_rows: int = 0  # short rows, padded
    long_rows: int = 0  # rows with more fields than the header, the extra ones kept in the text
    quote_lines: list[int] = field(default_factory=list)  # lines whose quote ran away (read line by line)
    rows_read: int = 0
    quoted: bool = True  # CSV quote processing; off for an export that quotes nothing
    records: list[object] | None = None  # a .json file's array, read whole
    errors: str = "replace"  # the decoding error handler the whole file is read with
    sheet: str = ""  # the workbook's sheet read (kind "xlsx")
    first_row: int = 0  # the sheet's row its header is on where title rows are above it (0: none)
    surrogates: int = 0  # lone surrogates (JSON "\ud800", Excel "_xD800_") read as U+FFFD, the one change
    # Its format's reader (``_formats.FORMATS``, by ``kind``), set where the file is opened.
    reader: Callable[[TicketSource, int], Iterator[Record]] | None = field(default=None, repr=False, compare=False)

    @property
    def text_column_name(self) -> str:
        return self.columns[self.text_column]

    def batches(self, size: int = 256, text_column: int | None = None) -> Iterator[list[Ticket]]:
        """Yield every record in file order, ``size`` at a time; unscorable ones carry a ``problem``."""
        column = self.text_column if text_column is None else text_column
        self.empty_lines = self.blank_text = self.long_text = self.ragged_rows = self.long_rows = self.rows_read = (
            self.surrogates
        ) = 0
        self.bad_lines, self.quote_lines = [], []
        batch: list[Ticket] = []
        for number, values, problem in self._records(column):
            self.rows_read += 1
            text = values[column].strip() if column < len(values) and problem is None else ""
            if problem is None and is_blank(text):
                text = ""
                problem = BLANK
                self.blank_text += 1
            self.long_text += len(text) > LABEL_CHARS
            batch.append(Ticket(number, values, text, problem))
            if len(batch) >= size:
                yield batch
                batch = []
        if batch:
            yield batch

    def read_all(self, text_column: int | None = None) -> list[Ticket]:
        return [t for batch in self.batches(4096, text_column) for t in batch]

    def summary(self) -> str:
        parts = [f"{counted(self.rows_read, 'row')} read ({f'sheet {self.sheet!r}' if self.sheet else self.encoding}"]
        if self.kind == "csv":
            parts[0] += f", {_delimiter_name(self.delimiter)}-separated"
        parts[0] += ")"
        if self.blank_text:
            parts.append(f"{self.blank_text} with blank text (kept, unlabelled)")
        if self.long_text:
            parts.append(
                f"{counted(self.long_text, 'ticket')} cut to {LABEL_CHARS:,} characters for labelling (kept whole)"
            )
        if self.bad_lines:
            shown = ", ".join(str(n) for n in self.bad_lines[:10])
            more = "…" if len(self.bad_lines) > 10 else ""
            parts.append(f"bad JSON on line {shown}{more} (kept, unlabelled)")
        if self.ragged_rows:
            parts.append(f"{counted(self.ragged_rows, 'short row')} padded")
        if self.long_rows:
            parts.append(
                f"{counted(self.long_rows, 'row')} with more fields than the header (the extra fields kept in "
                f"column {self.text_column_name!r})"
            )
        if self.quote_lines:
            shown = ", ".join(str(n) for n in self.quote_lines[:10]) + ("…" if len(self.quote_lines) > 10 else "")
            parts.append(f"a quote that never closes on line {shown}: read one ticket per line there")
        if self.empty_lines:
            parts.append(f"{counted(self.empty_lines, 'empty row' if self.sheet else 'empty line')} skipped")
        if self.surrogates:
            parts.append(f"{counted(self.surrogates, 'lone surrogate')} (\\ud800–\\udfff: no text) read as U+FFFD")
        return "; ".join(parts + self.notes)

    # ----------------------------------------------------------------- readers

    def _records(self, column: int) -> Iterator[Record]:
        """Every record, by the reader of the file's format; empty lines are skipped."""
        if self.reader is None:
            raise TypeError("a TicketSource is made by open_tickets, which sets its format's reader")
        return self.reader(self, column)

    def _lines(self) -> Iterator[tuple[int, str]]:
        """(line number, line) for every line that is not empty (those are counted), for the line formats."""
        with reading(self.path, self.encoding, self.errors) as handle:
            for number, line in enumerate(handle, start=1):
                line = line.rstrip("\r\n")
                if not line:
                    self.empty_lines += 1
                    continue
                yield number, line

    def _txt_records(self, column: int) -> Iterator[Record]:
        for number, line in self._lines():
            yield number, [line], None

    def _jsonl_records(self, column: int) -> Iterator[Record]:
        for number, line in self._lines():
            if not line.strip():
                yield number, [""] * len(self.columns), None  # blank, like a blank CSV row
                continue
            yield self._json_values(number, _json_value(line), column)

    def _json_records(self, column: int) -> Iterator[Record]:
        for number, value in enumerate(self.records or [], start=1):
            yield self._json_values(number, value, column)

    def _json_values(self, number: int, value: object, column: int) -> tuple[int, list[str], str | None]:
        """One JSON record's values: keys first seen here become new columns (the union over the whole
        file, in first-seen order); a bare string is the ticket text, in the text column."""
        if isinstance(value, str):
            values = [""] * len(self.columns)
            values[column] = value
            return number, self._kept(values), None
        if not isinstance(value, dict):
            self.bad_lines.append(number)
            problem = "is not valid JSON" if value is _INVALID else "is not a JSON object"
            problem = f"is {DEEP}" if value is _TOO_DEEP else problem
            what = "line" if self.kind == "jsonl" else "record"
            return number, [""] * len(self.columns), f"{what} {number} {problem}"
        self.columns.extend(key for key in value if key not in self.columns)
        return number, self._kept([_stringify(value.get(c, "")) for c in self.columns]), None

    def _kept(self, values: list[str]) -> list[str]:
        values, found = without_surrogates(values)
        self.surrogates += found
        return values

    def _csv_records(self, column: int) -> Iterator[Record]:
        width = len(self.columns)
        with reading(self.path, self.encoding, self.errors) as handle:
            header_pending = self.has_header
            number = 0
            try:
                for number, values, runaway in read_records(handle, self.delimiter, self.quoted, width):
                    if runaway is not None:
                        self.quote_lines.append(runaway)
                    if not values or (header_pending and not has_content(values)):
                        self.empty_lines += 1  # blank lines above the header are no records either
                        continue
                    if header_pending:
                        header_pending = False  # sniffing took the first row with content as the header
                        continue
                    if len(values) > width:
                        values = fold_extra(values, width, column, self.delimiter)
                        self.long_rows += 1
                    elif len(values) < width:
                        if has_content(values):
                            self.ragged_rows += 1
                        values = values + [""] * (width - len(values))
                    yield number, values, None
            except csv.Error as exc:
                raise TicketFileError(f"{_name(self.path)}: cannot read line {number + 1} ({exc}).") from None

    def _sheet_records(self, column: int) -> Iterator[Record]:
        """A sheet's rows, as a CSV's records: rows wider than the columns so far add columns, as JSON
        keys do; the empty rows between records are counted (trailing ones are no rows). A row whose
        ticket cell is a formula without a saved value says so rather than "blank ticket text"."""
        from ._sheet_xml import column_of
        from ._workbook import sheet_rows

        header_pending, last = self.has_header, max(self.first_row - 1, 0)
        formulas: list[str] = []  # filled by the sheet reader as it goes: cells of formulas without a value
        seen, pending = 0, set[tuple[str, int]]()
        for number, values in sheet_rows(self.path, self.sheet, self.notes, self.first_row, formulas):
            self.empty_lines, last = self.empty_lines + number - last - 1, number
            pending.update((ref.lstrip("ABCDEFGHIJKLMNOPQRSTUVWXYZ"), column_of(ref)) for ref in formulas[seen:])
            seen = len(formulas)
            if header_pending:
                header_pending = False  # sniffing took the first row with a value as the header
                continue
            self.columns.extend(f"column {i + 1}" for i in range(len(self.columns), len(values)))
            blank = column < len(values) and is_blank(values[column].strip())
            problem = FORMULA if blank and (str(number), column + 1) in pending else None
            yield number, self._kept(values) + [""] * (len(self.columns) - len(values)), problem


_INVALID, _TOO_DEEP = object(), object()  # what _json_value returns for a line that is not JSON, or too deep
# Python's JSON reader stops at its recursion limit: 100,000 brackets deep said "no JSON objects found".
DEEP = "nested too deep to read (JSON more than about 1,000 levels deep); give flat ticket objects or CSV"


def _json_value(line: str) -> object:
    try:
        return json.loads(line, parse_int=json_integer)
    except (ValueError, RecursionError) as exc:
        return _TOO_DEEP if isinstance(exc, RecursionError) else _INVALID


def _stringify(value: object) -> str:
    return "" if value is None else value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _open_jsonl(path: Path, encoding: str, sample: str, notes: list[str]) -> TicketSource:
    values = [_json_value(line) for line in io.StringIO(sample, newline="") if line.strip()]
    return _json_source(path, "jsonl", encoding, values[:500], notes)


def _open_json(path: Path, encoding: str, notes: list[str], sample: str) -> TicketSource:
    """A .json file: an array of ticket objects (or strings), read whole; anything else is refused."""
    try:
        with open(path, encoding=encoding, errors="replace") as handle:
            value = json.load(handle, parse_int=json_integer)
    except (ValueError, RecursionError) as exc:
        if looks_jsonl(sample):  # JSON Lines saved as .json
            return _open_jsonl(path, encoding, text_sample(path, encoding)[0], notes)
        if isinstance(exc, RecursionError):
            raise TicketFileError(f"{_name(path)} is {DEEP}.") from None
        where = f" (line {exc.lineno}: {exc.msg})" if isinstance(exc, json.JSONDecodeError) else ""
        raise TicketFileError(f"{_name(path)} is not valid JSON{where}.") from None
    if not isinstance(value, list):
        raise TicketFileError(
            f"{_name(path)} holds a JSON {type(value).__name__.replace('dict', 'object')}, not a list of tickets; "
            "give a JSON array of objects, JSON Lines or CSV."
        )
    source = _json_source(path, "json", encoding, value[:500], notes)
    source.records = value
    return source


def _json_source(path: Path, kind: str, encoding: str, sample: list[object], notes: list[str]) -> TicketSource:
    """The columns the sample's objects show (more join while reading) and the text column among them."""
    objects = [v for v in sample if isinstance(v, dict)]
    columns: list[str] = []
    for record in objects:
        columns.extend(key for key in record if key not in columns)
    if not columns:
        if not any(isinstance(v, str) for v in sample):
            none = ": no JSON objects found (expected one object per line)"
            raise TicketFileError(f"{_name(path)}{f' is {DEEP}' if _TOO_DEEP in sample else none}.")
        columns = ["text"]  # bare strings only: they are the text
    values = [[_stringify(record.get(c, "")) for c in columns] for record in objects]
    return TicketSource(path, kind, encoding, columns, choose_text_column(columns, values), notes=notes)


def _open_xlsx(path: Path, sheet: str | None) -> TicketSource:
    """A workbook's sheet, sniffed from its first 500 rows with the CSV rules (header, text column)."""
    name, _, notes = choose_sheet(path, sheet)
    sample, complete, first_row = sheet_sample(path, name, notes)
    source = _table_source(path, "xlsx", "xlsx", sample, complete, notes)
    source.sheet, source.first_row = name, first_row
    return source


def _open_csv(path: Path, encoding: str, sample: str, complete: bool, notes: list[str], suffix: str) -> TicketSource:
    delimiter = sniff_delimiter(sample, suffix, complete)
    quoted = uses_quoting(sample)
    if not quoted and not complete:  # the one quote seen may close past the sample: look further
        quoted = uses_quoting(text_sample(path, encoding, 8 * SAMPLE_BYTES)[0])
    records = [r for r in csv_rows(sample, delimiter, quoted) if r]
    return _table_source(path, "csv", encoding, records, complete, notes, delimiter=delimiter, quoted=quoted)


def _table_source(
    path: Path, kind: str, encoding: str, records: list[list[str]], complete: bool, notes: list[str], **extra: Any
) -> TicketSource:
    """A table's columns and text column from its first records (empty ones left out), a CSV's or a sheet's."""
    rows = [r for r in records if has_content(r)]
    if not rows:
        raise TicketFileError(f"{_name(path)} has no rows.")
    after_first = len(records) - next(i for i, r in enumerate(records) if r is rows[0]) - 1
    if not complete and len(rows) > 2:
        rows.pop()  # the sample may end inside a quoted field
    header_row = has_header(rows)
    widths = [len(r) for r in rows[1 if header_row else 0 : 200]] or [len(rows[0])]
    width = max(len(rows[0]) if header_row else 1, max(set(widths), key=widths.count))
    if header_row:
        header = [h.strip() or f"column {i + 1}" for i, h in enumerate(rows[0])]
        header += [f"column {i + 1}" for i in range(len(header), width)]
        body = rows[1:]
        if not after_first and complete:  # blank records after the header are records (blank text)
            raise NoTickets(f"{_name(path)} has a header but no tickets.")
    else:
        header = ["text"] if width == 1 else [f"column {i + 1}" for i in range(width)]
        body = rows
    unique = unique_names(header)
    renamed = [f"{old!r} as {new!r}" for old, new in zip(header, unique) if old != new]
    if renamed:
        notes = [*notes, f"repeated column names kept apart: {', '.join(renamed)}"]
    column = choose_text_column(unique, body)
    return TicketSource(path, kind, encoding, unique, column, has_header=header_row, notes=notes, **extra)


def tickets_from_text(text: str) -> tuple[list[str], list[Ticket], int]:
    """Pasted text: CSV with a header is read as CSV, otherwise one ticket per line.

    Returns (columns, tickets, text column index). Blank lines are left out: pasted text has no file
    whose rows the output must line up with.
    """
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = [line for line in text.split("\n") if line.strip()]
    if len(lines) >= 2 and not looks_like_lines(text):  # a comma in each pasted line is no table (W12)
        delimiter = sniff_delimiter(text, "")
        rows = [r for r in csv_rows(text, delimiter) if has_content(r)]
        widths = {len(r) for r in rows}
        if len(widths) == 1 and widths.pop() > 1 and has_header(rows):
            columns = unique_names([c.strip() or f"column {i + 1}" for i, c in enumerate(rows[0])])
            col = choose_text_column(columns, rows[1:])
            tickets = [Ticket(n, r, r[col].strip()) for n, r in enumerate(rows[1:], 2)]
            return columns, [t for t in tickets if t.text], col
    tickets = [Ticket(n, [line], line.strip()) for n, line in enumerate(text.split("\n"), 1)]
    return ["text"], [t for t in tickets if t.text], 0


def _delimiter_name(delimiter: str) -> str:
    return {",": "comma", ";": "semicolon", "\t": "tab", "|": "pipe"}.get(delimiter, repr(delimiter))
