"""Read ticket files as helpdesks export them: CSV/TSV in any common encoding and delimiter, TXT, JSONL.

Files are read incrementally (``TicketSource.batches``) so a file of hundreds of thousands of rows
streams into the table with bounded memory. Every record comes out, in file order, so results line up
with the input: one that cannot be scored (blank text, a bad JSON line) carries a ``problem`` instead of
being dropped. Anything odd is reported in ``notes`` rather than guessed at silently; anything unreadable
raises ``TicketFileError`` with a one-line reason. The guessing itself (encoding, delimiter, header,
text column) lives in ``sniff.py``.
"""

from __future__ import annotations

import csv
import io
import json
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from .sniff import (
    SAMPLE_BYTES,
    choose_text_column,
    csv_rows,
    decode_errors,
    decode_sample,
    detect_encoding,
    has_content,
    has_header,
    is_tab_table,
    looks_binary,
    looks_jsonl,
    sniff_delimiter,
    text_sample,
)

__all__ = [
    "SAMPLE_BYTES",
    "SUPPORTED",
    "Ticket",
    "TicketFileError",
    "TicketSource",
    "choose_text_column",
    "detect_encoding",
    "gold_column",
    "open_tickets",
    "tickets_from_text",
]

SUPPORTED = (".csv", ".tsv", ".txt", ".jsonl", ".ndjson", ".tab")
BLANK = "blank ticket text"


class TicketFileError(ValueError):
    """A ticket file that cannot be read; the message says why in one line."""


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
    kind: str  # "csv", "txt" or "jsonl"
    encoding: str
    columns: list[str]
    text_column: int
    delimiter: str = ","
    has_header: bool = True
    notes: list[str] = field(default_factory=list)
    empty_lines: int = 0
    blank_text: int = 0
    bad_lines: list[int] = field(default_factory=list)
    ragged_rows: int = 0
    rows_read: int = 0

    @property
    def text_column_name(self) -> str:
        return self.columns[self.text_column]

    def batches(self, size: int = 256, text_column: int | None = None) -> Iterator[list[Ticket]]:
        """Yield every record in file order, ``size`` at a time; unscorable ones carry a ``problem``."""
        column = self.text_column if text_column is None else text_column
        self.empty_lines = self.blank_text = self.ragged_rows = self.rows_read = 0
        self.bad_lines = []
        batch: list[Ticket] = []
        for number, values, problem in self._records():
            self.rows_read += 1
            text = values[column].strip() if column < len(values) and problem is None else ""
            if problem is None and not text:
                problem = BLANK
                self.blank_text += 1
            batch.append(Ticket(number, values, text, problem))
            if len(batch) >= size:
                yield batch
                batch = []
        if batch:
            yield batch

    def read_all(self, text_column: int | None = None) -> list[Ticket]:
        return [t for batch in self.batches(4096, text_column) for t in batch]

    def summary(self) -> str:
        parts = [f"{_count(self.rows_read, 'row')} read ({self.encoding}"]
        if self.kind == "csv":
            parts[0] += f", {_delimiter_name(self.delimiter)}-separated"
        parts[0] += ")"
        if self.blank_text:
            parts.append(f"{self.blank_text} with blank text (kept, unlabelled)")
        if self.bad_lines:
            shown = ", ".join(str(n) for n in self.bad_lines[:10])
            more = "…" if len(self.bad_lines) > 10 else ""
            parts.append(f"bad JSON on line {shown}{more} (kept, unlabelled)")
        if self.ragged_rows:
            parts.append(f"{self.ragged_rows} ragged rows padded")
        if self.empty_lines:
            parts.append(f"{_count(self.empty_lines, 'empty line')} skipped")
        return "; ".join(parts + self.notes)

    # ----------------------------------------------------------------- readers

    def _text_stream(self) -> io.TextIOBase:
        return open(self.path, encoding=self.encoding, errors="replace", newline="")

    def _records(self) -> Iterator[tuple[int, list[str], str | None]]:
        """(line number, values padded to the columns, problem) for every record; empty lines are skipped."""
        width = len(self.columns)
        if self.kind == "txt":
            with self._text_stream() as handle:
                for number, line in enumerate(handle, start=1):
                    line = line.rstrip("\r\n")
                    if not line:
                        self.empty_lines += 1
                        continue
                    yield number, [_clean(line)], None
        elif self.kind == "jsonl":
            with self._text_stream() as handle:
                for number, line in enumerate(handle, start=1):
                    line = line.rstrip("\r\n")
                    if not line:
                        self.empty_lines += 1
                        continue
                    if not line.strip():
                        yield number, [""] * width, None  # blank, like a blank CSV row
                        continue
                    record, problem = _json_record(line)
                    if record is None:
                        self.bad_lines.append(number)
                        yield number, [""] * width, f"line {number} {problem}"
                        continue
                    yield number, [_clean(_stringify(record.get(c, ""))) for c in self.columns], None
        else:
            yield from self._csv_records(width)

    def _csv_records(self, width: int) -> Iterator[tuple[int, list[str], str | None]]:
        with self._text_stream() as handle:
            reader = csv.reader(handle, delimiter=self.delimiter)
            header_pending = self.has_header
            try:
                for values in reader:
                    if not values or (header_pending and not has_content(values)):
                        self.empty_lines += 1  # blank lines above the header are no records either
                        continue
                    if header_pending:
                        header_pending = False  # sniffing took the first row with content as the header
                        continue
                    if len(values) != width:
                        if has_content(values):
                            self.ragged_rows += 1
                        values = (values + [""] * width)[:width]
                    yield reader.line_num, [_clean(v) for v in values], None
            except csv.Error as exc:
                raise TicketFileError(f"{_name(self.path)}: cannot read line {reader.line_num} ({exc}).") from None


def open_tickets(path: str | os.PathLike[str]) -> TicketSource:
    """Sniff a ticket file: encoding, format, delimiter, header and the ticket text column."""
    path = Path(path)
    _check_regular_file(path)
    try:
        with open(path, "rb") as handle:
            raw = handle.read(SAMPLE_BYTES)
    except OSError as exc:
        raise TicketFileError(f"{_name(path)} cannot be read: {exc.strerror or exc}.") from None
    if not raw.strip():
        raise TicketFileError(f"{_name(path)} is empty.")
    encoding, note = detect_encoding(raw, path.name)
    sample = decode_sample(raw, encoding)
    if looks_binary(sample, decode_errors(raw, encoding, sample), encoding):
        raise TicketFileError(f"{_name(path)} is not a text file (it looks binary); export the tickets as CSV.")
    notes = [note] if note else []
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".ndjson") or (suffix not in (".csv", ".tsv", ".tab", ".txt") and looks_jsonl(sample)):
        return _open_jsonl(path, encoding, text_sample(path, encoding)[0], notes)
    text, complete = text_sample(path, encoding)
    if suffix == ".txt":
        if not is_tab_table(text, complete):
            return TicketSource(path, "txt", encoding, ["text"], 0, has_header=False, notes=notes)
        suffix = ".tsv"  # Excel's "Unicode text" export: a tab-separated table saved as .txt
    return _open_csv(path, encoding, text, complete, notes, suffix)


def _check_regular_file(path: Path) -> None:
    """Refuse anything but a regular file before opening it: opening a FIFO for reading blocks."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise TicketFileError(f"{_name(path)}: no such file.") from None
    except OSError as exc:
        raise TicketFileError(f"{_name(path)} cannot be read: {exc.strerror or exc}.") from None
    if stat.S_ISDIR(mode):
        raise TicketFileError(f"{_name(path)} is a directory, not a ticket file.")
    if not stat.S_ISREG(mode):
        kind = "a named pipe" if stat.S_ISFIFO(mode) else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else ""
        raise TicketFileError(f"{_name(path)} is not a regular file{f' (it is {kind})' if kind else ''}.")


def _json_record(line: str) -> tuple[dict | None, str]:
    """The line's object (a bare string counts as its text), or None and what is wrong with the line."""
    try:
        value = json.loads(line)
    except (ValueError, RecursionError):
        return None, "is not valid JSON"
    if isinstance(value, str):
        return {"text": value}, ""
    return (value, "") if isinstance(value, dict) else (None, "is not a JSON object")


def _stringify(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def _open_jsonl(path: Path, encoding: str, sample: str, notes: list[str]) -> TicketSource:
    columns: list[str] = []
    rows: list[dict] = []
    for line in io.StringIO(sample, newline=""):  # the reader's line breaks, not str.splitlines()'s
        record = _json_record(line)[0] if line.strip() else None
        if record is not None:
            rows.append(record)
            columns.extend(key for key in record if key not in columns)
        if len(rows) >= 500:
            break
    if not columns:
        raise TicketFileError(f"{_name(path)}: no JSON objects found (expected one object per line).")
    values = [[_stringify(record.get(c, "")) for c in columns] for record in rows]
    return TicketSource(path, "jsonl", encoding, columns, choose_text_column(columns, values), notes=notes)


def _open_csv(path: Path, encoding: str, sample: str, complete: bool, notes: list[str], suffix: str) -> TicketSource:
    delimiter = sniff_delimiter(sample, suffix, complete)
    records = [r for r in csv_rows(sample, delimiter) if r]
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
            raise TicketFileError(f"{_name(path)} has a header but no tickets.")
    else:
        header = ["text"] if width == 1 else [f"column {i + 1}" for i in range(width)]
        body = rows
    header = _unique(header)
    return TicketSource(
        path, "csv", encoding, header, choose_text_column(header, body), delimiter, header_row, notes=notes
    )


def gold_column(columns: list[str], rows: list[list[str]], labels: list[str], exclude: int) -> int | None:
    """A column whose values are (nearly all) label names, offered as the gold labels."""
    wanted = {label.strip().casefold() for label in labels}
    best, best_share = None, 0.0
    for i in range(len(columns)):
        if i == exclude:
            continue
        values = [r[i].strip().casefold() for r in rows[:1000] if i < len(r) and r[i].strip()]
        if not values:
            continue
        share = sum(v in wanted for v in values) / len(values)
        if share >= 0.9 and share > best_share:
            best, best_share = i, share
    return best


def tickets_from_text(text: str) -> tuple[list[str], list[Ticket], int]:
    """Pasted text: CSV with a header is read as CSV, otherwise one ticket per line.

    Returns (columns, tickets, text column index). Blank lines are left out: pasted text has no file
    whose rows the output must line up with.
    """
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = [line for line in text.split("\n") if line.strip()]
    if len(lines) >= 2:
        delimiter = sniff_delimiter(text, "")
        rows = [r for r in csv_rows(text, delimiter) if has_content(r)]
        widths = {len(r) for r in rows}
        if len(widths) == 1 and widths.pop() > 1 and has_header(rows):
            columns = _unique([c.strip() or f"column {i + 1}" for i, c in enumerate(rows[0])])
            col = choose_text_column(columns, rows[1:])
            tickets = [Ticket(n, [_clean(v) for v in r], _clean(r[col]).strip()) for n, r in enumerate(rows[1:], 2)]
            return columns, [t for t in tickets if t.text], col
    tickets = [Ticket(n, [_clean(line)], _clean(line).strip()) for n, line in enumerate(text.split("\n"), 1)]
    return ["text"], [t for t in tickets if t.text], 0


def _clean(value: str) -> str:
    """Drop NULs and other C0 controls that break display; keep text, tabs and newlines."""
    if not value:
        return value
    return value.translate(_CONTROL_TABLE)


_CONTROL_TABLE = {c: None for c in range(32) if chr(c) not in "\t\n\r"}


def _unique(names: list[str]) -> list[str]:
    seen: dict[str, int] = {}
    out = []
    for name in names:
        if name in seen:
            seen[name] += 1
            out.append(f"{name} ({seen[name]})")
        else:
            seen[name] = 1
            out.append(name)
    return out


def _name(path: Path) -> str:
    return path.name or str(path)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _delimiter_name(delimiter: str) -> str:
    return {",": "comma", ";": "semicolon", "\t": "tab", "|": "pipe"}.get(delimiter, repr(delimiter))
