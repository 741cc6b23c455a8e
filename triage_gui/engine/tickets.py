"""Read ticket files as helpdesks export them: CSV/TSV in any common encoding and delimiter, TXT, JSONL.

Files are read incrementally (``TicketSource.batches``) so a file of hundreds of thousands of rows
streams into the table with bounded memory. Anything odd is reported in ``notes`` rather than guessed
at silently; anything unreadable raises ``TicketFileError`` with a one-line reason.
"""

from __future__ import annotations

import codecs
import csv
import io
import json
import os
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

SAMPLE_BYTES = 256 * 1024
TEXT_COLUMN_NAMES = ("text", "ticket", "message", "body", "description", "content", "query", "question", "subject")
SUPPORTED = (".csv", ".tsv", ".txt", ".jsonl", ".ndjson", ".tab")

csv.field_size_limit(min(sys.maxsize, 2**31 - 1))


class TicketFileError(ValueError):
    """A ticket file that cannot be read; the message says why in one line."""


@dataclass
class Ticket:
    row: int  # 1-based line/record number in the file, for messages
    values: list[str]  # every input column, in ``columns`` order
    text: str


@dataclass
class TicketSource:
    """A ticket file opened for streaming, with what sniffing decided about it."""

    path: Path
    kind: str  # "csv", "txt" or "jsonl"
    encoding: str
    columns: list[str]
    text_column: int
    delimiter: str = ","
    has_header: bool = True
    notes: list[str] = field(default_factory=list)
    skipped_blank: int = 0
    bad_lines: list[int] = field(default_factory=list)
    ragged_rows: int = 0
    rows_read: int = 0

    @property
    def text_column_name(self) -> str:
        return self.columns[self.text_column]

    def batches(self, size: int = 256, text_column: int | None = None) -> Iterator[list[Ticket]]:
        """Yield tickets in file order, ``size`` at a time; blank tickets are skipped and counted."""
        column = self.text_column if text_column is None else text_column
        batch: list[Ticket] = []
        for number, values in self._records():
            self.rows_read += 1
            text = values[column] if column < len(values) else ""
            if not text.strip():
                self.skipped_blank += 1
                continue
            batch.append(Ticket(number, values, text.strip()))
            if len(batch) >= size:
                yield batch
                batch = []
        if batch:
            yield batch

    def read_all(self, text_column: int | None = None) -> list[Ticket]:
        return [t for batch in self.batches(4096, text_column) for t in batch]

    def summary(self) -> str:
        parts = [f"{self.rows_read} rows read ({self.encoding}"]
        if self.kind == "csv":
            parts[0] += f", {_delimiter_name(self.delimiter)}-separated"
        parts[0] += ")"
        if self.skipped_blank:
            parts.append(f"{self.skipped_blank} blank skipped")
        if self.ragged_rows:
            parts.append(f"{self.ragged_rows} ragged rows padded")
        if self.bad_lines:
            shown = ", ".join(str(n) for n in self.bad_lines[:10])
            more = "…" if len(self.bad_lines) > 10 else ""
            parts.append(f"bad JSON on line {shown}{more}")
        return "; ".join(parts + self.notes)

    # ----------------------------------------------------------------- readers

    def _text_stream(self) -> io.TextIOBase:
        return open(self.path, encoding=self.encoding, errors="replace", newline="")

    def _records(self) -> Iterator[tuple[int, list[str]]]:
        width = len(self.columns)
        if self.kind == "txt":
            with self._text_stream() as handle:
                for number, line in enumerate(handle, start=1):
                    yield number, [_clean(line.rstrip("\r\n"))]
        elif self.kind == "jsonl":
            with self._text_stream() as handle:
                for number, line in enumerate(handle, start=1):
                    if not line.strip():
                        continue
                    record = _json_record(line)
                    if record is None:
                        self.bad_lines.append(number)
                        continue
                    yield number, [_clean(_stringify(record.get(c, ""))) for c in self.columns]
        else:
            with self._text_stream() as handle:
                reader = csv.reader(handle, delimiter=self.delimiter)
                if self.has_header:
                    next(reader, None)
                for values in reader:
                    if not values or (len(values) == 1 and not values[0].strip() and width > 1):
                        self.skipped_blank += 1
                        continue
                    if len(values) != width:
                        self.ragged_rows += 1
                        values = (values + [""] * width)[:width]
                    yield reader.line_num, [_clean(v) for v in values]


def open_tickets(path: str | os.PathLike[str]) -> TicketSource:
    """Sniff a ticket file: encoding, format, delimiter, header and the ticket text column."""
    path = Path(path)
    if not path.is_file():
        raise TicketFileError(f"{path.name}: no such file.")
    with open(path, "rb") as handle:
        raw = handle.read(SAMPLE_BYTES)
    if not raw.strip():
        raise TicketFileError(f"{path.name} is empty.")
    encoding, note = detect_encoding(raw, path.name)
    sample = _decode_sample(raw, encoding)
    if _looks_binary(sample, _decode_errors(raw, encoding, sample)):
        raise TicketFileError(f"{path.name} is not a text file (it looks binary); export the tickets as CSV.")
    notes = [note] if note else []
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".ndjson") or (suffix not in (".csv", ".tsv", ".tab", ".txt") and _looks_jsonl(sample)):
        return _open_jsonl(path, encoding, sample, notes)
    if suffix == ".txt":
        return TicketSource(path, "txt", encoding, ["text"], 0, has_header=False, notes=notes)
    return _open_csv(path, encoding, sample, notes, suffix)


def detect_encoding(raw: bytes, name: str = "file") -> tuple[str, str | None]:
    """Pick the encoding; the note says so when it is a guess the user should know about."""
    if raw.startswith(codecs.BOM_UTF8):
        return "utf-8-sig", None
    if raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16", None
    if len(raw) >= 4 and raw[1::2][:64].count(0) > 24 and raw[0::2][:64].count(0) == 0:
        return "utf-16-le", "read as UTF-16 (no byte-order mark)"
    try:
        # A multi-byte character may be cut at the end of the sample.
        raw.decode("utf-8") if len(raw) < SAMPLE_BYTES else codecs.getincrementaldecoder("utf-8")().decode(raw)
        return "utf-8", None
    except UnicodeDecodeError:
        pass
    if b"\x00" in raw:
        return "utf-8", None  # binary; refused by the caller
    try:
        raw.decode("cp1252")  # Western Excel's default; every byte but five is defined
        return "cp1252", "not UTF-8: read as cp1252"
    except UnicodeDecodeError:
        pass
    try:
        from charset_normalizer import from_bytes

        best = from_bytes(raw, cp_isolation=["cp1252", "latin_1", "cp1250", "iso8859_15", "mac_roman"]).best()
        guess = best.encoding if best is not None else "cp1252"
    except ImportError:
        guess = "cp1252"
    if guess in ("latin_1", "iso8859_1"):
        guess = "cp1252"  # a superset for the printable range; Excel writes cp1252
    return guess, f"not UTF-8: read as {guess.replace('_', '-')}"


def _decode_sample(raw: bytes, encoding: str) -> str:
    return codecs.getincrementaldecoder(encoding)(errors="replace").decode(raw)


def _decode_errors(raw: bytes, encoding: str, sample: str) -> int:
    """Bytes the decoder had to replace: U+FFFD that the file itself holds as text does not count."""
    kept = codecs.getincrementaldecoder(encoding)(errors="ignore").decode(raw)
    return sample.count("\ufffd") - kept.count("\ufffd")


def _looks_binary(sample: str, decode_errors: int) -> bool:
    if not sample:
        return False
    head = sample[:8192]
    controls = sum(1 for c in head if ord(c) < 32 and c not in "\r\n\t\f")
    return "\x00" in head or controls / len(head) > 0.05 or decode_errors / len(sample) > 0.05


def _looks_jsonl(sample: str) -> bool:
    lines = [line for line in sample.splitlines()[:5] if line.strip()]
    return bool(lines) and all(line.lstrip().startswith("{") for line in lines)


def _json_record(line: str) -> dict | None:
    try:
        value = json.loads(line)
    except json.JSONDecodeError:
        return None
    if isinstance(value, str):
        return {"text": value}
    return value if isinstance(value, dict) else None


def _stringify(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def _open_jsonl(path: Path, encoding: str, sample: str, notes: list[str]) -> TicketSource:
    columns: list[str] = []
    rows: list[list[str]] = []
    lines = sample.splitlines()[:-1] if len(sample.encode()) >= SAMPLE_BYTES else sample.splitlines()
    for line in lines[:500]:
        record = _json_record(line) if line.strip() else None
        if record is None:
            continue
        for key in record:
            if key not in columns:
                columns.append(key)
    if not columns:
        raise TicketFileError(f"{path.name}: no JSON objects found (expected one object per line).")
    for line in lines[:500]:
        record = _json_record(line) if line.strip() else None
        if record is not None:
            rows.append([_stringify(record.get(c, "")) for c in columns])
    return TicketSource(path, "jsonl", encoding, columns, choose_text_column(columns, rows), notes=notes)


def _open_csv(path: Path, encoding: str, sample: str, notes: list[str], suffix: str) -> TicketSource:
    if len(sample.encode(encoding, errors="replace")) >= SAMPLE_BYTES:
        sample = sample[: sample.rfind("\n") + 1] or sample  # whole lines only
    delimiter = _sniff_delimiter(sample, suffix)
    rows = list(csv.reader(io.StringIO(sample), delimiter=delimiter))
    rows = [r for r in rows if any(c.strip() for c in r)]
    if not rows:
        raise TicketFileError(f"{path.name} has no rows.")
    has_header = _has_header(rows)
    widths = [len(r) for r in rows[1 if has_header else 0 : 200]] or [len(rows[0])]
    width = max(len(rows[0]) if has_header else 1, max(set(widths), key=widths.count))
    if has_header:
        header = [h.strip() or f"column {i + 1}" for i, h in enumerate(rows[0])]
        header += [f"column {i + 1}" for i in range(len(header), width)]
        body = rows[1:]
        if not body:
            raise TicketFileError(f"{path.name} has a header but no tickets.")
    else:
        header = ["text"] if width == 1 else [f"column {i + 1}" for i in range(width)]
        body = rows
    header = _unique(header)
    return TicketSource(
        path, "csv", encoding, header, choose_text_column(header, body), delimiter, has_header, notes=notes
    )


def _sniff_delimiter(sample: str, suffix: str) -> str:
    """The delimiter that splits the sample into the most consistent number (>1) of columns."""
    if suffix in (".tsv", ".tab"):
        return "\t"
    text = sample[:65536]
    text = text[: text.rfind("\n") + 1] if "\n" in text[:-1] else text  # whole lines only
    best, best_score = ",", (0.0, 0)
    for candidate in ",;\t|":
        try:
            widths = [len(r) for r in csv.reader(io.StringIO(text), delimiter=candidate) if r][:200]
        except csv.Error:
            continue
        if not widths:
            continue
        modal = max(set(widths), key=widths.count)
        if modal < 2:
            continue
        score = (widths.count(modal) / len(widths), modal)
        if score > best_score:
            best, best_score = candidate, score
    return best


def _has_header(rows: list[list[str]]) -> bool:
    first = [c.strip() for c in rows[0]]
    if any(c.lower() in TEXT_COLUMN_NAMES for c in first):
        return True
    if not all(first) or len(set(first)) != len(first) or any(len(c) > 40 for c in first):
        return False
    if len(rows) < 2:
        return len(first) > 1
    body = rows[1:50]
    first_len = sum(len(c) for c in first) / len(first)
    body_len = sum(len(c) for r in body for c in r) / max(1, sum(len(r) for r in body))
    return len(first) > 1 or first_len * 1.5 < body_len


def choose_text_column(columns: list[str], rows: list[list[str]]) -> int:
    """The column most likely to hold the ticket text: a telling name, else the longest prose."""
    for preferred in TEXT_COLUMN_NAMES:
        for i, name in enumerate(columns):
            if name.strip().lower() == preferred:
                return i
    best, best_score = 0, -1.0
    for i in range(len(columns)):
        values = [r[i] for r in rows[:500] if i < len(r) and r[i].strip()]
        if not values:
            continue
        prose = sum(1 for v in values if re.search(r"[^\W\d_]{2,}\s+[^\W\d_]", v)) / len(values)
        mean_len = sum(len(v) for v in values) / len(values)
        score = mean_len * (0.1 + prose)
        if score > best_score:
            best, best_score = i, score
    return best


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

    Returns (columns, tickets, text column index).
    """
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = [line for line in text.split("\n") if line.strip()]
    if len(lines) >= 2:
        delimiter = _sniff_delimiter(text, "")
        rows = [r for r in csv.reader(io.StringIO(text), delimiter=delimiter) if any(c.strip() for c in r)]
        widths = {len(r) for r in rows}
        if len(widths) == 1 and widths.pop() > 1 and _has_header(rows):
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


def _delimiter_name(delimiter: str) -> str:
    return {",": "comma", ";": "semicolon", "\t": "tab", "|": "pipe"}.get(delimiter, repr(delimiter))
