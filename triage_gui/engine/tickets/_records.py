"""CSV records that a stray quote cannot merge: the reader's one place for quote handling.

Help-desk exports are full of quotes that are not CSV quoting: a TSV with no quoting at all whose ticket
opens with ``"Hi, my card…`` would, read by ``csv.reader``, swallow every following line into one field
(300 rows in, 3 out). Two rules keep one ticket per record:

- a file whose sample holds a quote at a field's start but no field quoted the CSV way (its closing
  quote followed by a delimiter or the line's end) is read with no quote processing at all;
- in a quoted file, a record the quotes made suspect is read again one line per record (CSV quoting
  where it closes on the line, else a plain split), the line that opened it named in a note: a record
  over several lines whose quote never closes the CSV way, or leaves an odd number of quotes, or whose
  lines each read as a whole row (three or more, or the quoted reading has the wrong width or quotes
  that RFC 4180 would not write); and a
  one-line record of the wrong width whose quotes do not close there or whose plain split fits.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Iterator
from typing import Literal

# A quote at a field's start; a quoted field: that, anything with quotes doubled, a quote at the field's end.
_OPENING_QUOTE = re.compile(r'(?:^|(?<=[,;\t|\r\n]))"')
_QUOTED_FIELD = re.compile(r'(?:^|(?<=[,;\t|\r\n]))"(?:[^"]|"")*"(?=[,;\t|\r\n]|\Z)')
# A quoted field spanning more lines than this is taken as a runaway quote even if it closes later.
MAX_RECORD_LINES = 2000
# A lone UTF-16 surrogate: a JSON escape such as "\ud800" or an Excel ``_xD800_`` reads as one, and no
# UTF-8 file, tokenizer or window can hold it (the tokenizer refused the whole batch with a TypeError).
_SURROGATE = re.compile("[\ud800-\udfff]")


def json_integer(digits: str) -> int | str:
    """A JSON integer as ``json.loads``'s ``parse_int``: past Python's 4,300-digit limit for turning text
    into an int, its digits as they are (the whole line was "not valid JSON" and its ticket lost)."""
    return int(digits) if len(digits) < 4300 else digits


def without_surrogates(values: list[str]) -> tuple[list[str], int]:
    """``values`` as they are, but each lone surrogate as U+FFFD; and how many there were. Every other
    character (controls, NULs, ``\r``) is kept: the ticket comes back as it was."""
    found = sum(len(_SURROGATE.findall(v)) for v in values if not v.isascii())
    return ([_SURROGATE.sub("\ufffd", v) for v in values], found) if found else (values, 0)


class _Runaway(Exception):
    """Raised from the line feed when one record has taken more than ``MAX_RECORD_LINES`` lines."""


def uses_quoting(sample: str) -> bool:
    """Whether the sample holds a field quoted as CSV quotes fields, or no quote at a field's start at all
    (then either reading gives the same rows, and quoting is the safer guess for the rest of the file)."""
    return _QUOTED_FIELD.search(sample) is not None or _OPENING_QUOTE.search(sample) is None


def read_records(
    lines: Iterable[str], delimiter: str, quoted: bool, width: int = 0
) -> Iterator[tuple[int, list[str], int | None]]:
    """(first line number, fields, line of a runaway quote or None) for every record, empty ones included.

    ``lines`` are the file's lines with their terminators (a file opened with ``newline=""``). ``width``
    is the table's number of columns where known (0 while sniffing): with it, a multi-line record whose
    lines all read as whole rows of that width is split too.
    """
    source = iter(lines)
    consumed = 0
    pending: list[str] = []

    def feed() -> Iterator[str]:
        nonlocal consumed
        for line in source:
            consumed += 1
            pending.append(line)
            if len(pending) > MAX_RECORD_LINES:
                raise _Runaway
            yield line

    quoting: Literal[0, 3] = csv.QUOTE_MINIMAL if quoted else csv.QUOTE_NONE
    while True:
        reader = csv.reader(feed(), delimiter=delimiter, quoting=quoting)
        try:
            for fields in reader:
                record, first = pending[:], consumed - len(pending) + 1
                pending.clear()
                if quoted and _suspect(record, fields, delimiter, width):
                    yield from _line_by_line(record, first, delimiter, width)
                else:
                    yield first, fields, None
            if pending:  # a runaway quote that reached the end of the file without closing
                record, first = pending[:], consumed - len(pending) + 1
                pending.clear()
                yield from _line_by_line(record, first, delimiter, width)
            return
        except _Runaway:
            record, first = pending[:], consumed - len(pending) + 1
            pending.clear()
            yield from _line_by_line(record, first, delimiter, width)


def _strict(text: str, delimiter: str, escape: str | None = None) -> list[list[str]] | None:
    """The records of ``text`` if every quote in it is CSV quoting (closes before a delimiter or line end)."""
    try:
        reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True, escapechar=escape)
        return list(reader)
    except csv.Error:
        return None


def _suspect(record: list[str], fields: list[str], delimiter: str, width: int) -> bool:
    """Whether a record read with quoting is a stray quote's work, to be read again line by line."""
    if len(record) > 1:
        return _ran_away(record, fields, delimiter, width)
    if fields and fields[-1].endswith(("\n", "\r")):
        return True  # a quote still open at the end of the file took the line's end into the field
    return 2 <= width != len(fields) and _broken_line(record[0], delimiter, width)


def _broken_line(line: str, delimiter: str, width: int) -> bool:
    """A one-line record of the wrong width whose quotes are not CSV quoting, or whose plain split fits."""
    return len(_plain(line, delimiter)) == width or _strict(line, delimiter) is None


def _ran_away(record: list[str], fields: list[str], delimiter: str, width: int) -> bool:
    """Whether a multi-line record is a quote that ran past its line rather than a quoted line break."""
    text = "".join(record)
    parsed = _strict(text, delimiter)
    if parsed is None or len(parsed) != 1 or text.count('"') % 2:
        return True  # CSV quoting pairs every quote: an odd one is a stray that another field's quote closed
    if width >= 2 and (len(record) >= 3 or len(fields) != width or not _rfc(text, delimiter)):
        return all(len(split) == width for _, split, _ in _line_by_line(record, 1, delimiter, width))
    return False


def _rfc(text: str, delimiter: str) -> bool:
    """Whether a record is quoted as RFC 4180 quotes: no quote but those that open, close or double."""
    d = re.escape(delimiter)
    field = f'(?:"(?:[^"]|"")*"|[^"{d}\r\n]*)'
    return re.fullmatch(f"{field}(?:{d}{field})*(?:\r\n|\r|\n)?", text) is not None


def _line_by_line(
    record: list[str], first: int, delimiter: str, width: int = 0
) -> Iterator[tuple[int, list[str], int | None]]:
    """The lines of a runaway record, one record each (:func:`_parse_line`)."""
    for offset, line in enumerate(record):
        body = line.rstrip("\r\n")
        fields = _parse_line(body, delimiter, width) if body else []
        yield first + offset, fields, first if offset == 0 else None


def _parse_line(line: str, delimiter: str, width: int) -> list[str]:
    """One line read alone: CSV quoting where it closes on the line and gives the table's width (where
    known); else with one quote at a field's start taken as written (the stray), if that gives the width;
    else split plainly, quotes kept as written."""
    parsed = _strict(line, delimiter)
    if parsed is not None and len(parsed) == 1 and (not width or len(parsed[0]) == width):
        return parsed[0]
    plain = _plain(line, delimiter)
    if width and len(plain) != width and "\x00" not in line:
        for match in _OPENING_QUOTE.finditer(line):  # an escape char before it makes the quote literal
            at = match.start()
            tried = _strict(line[:at] + "\x00" + line[at:], delimiter, escape="\x00")
            if tried is not None and len(tried) == 1 and len(tried[0]) == width:
                return tried[0]
    return parsed[0] if parsed and len(parsed) == 1 and len(plain) != width else plain


def _plain(line: str, delimiter: str) -> list[str]:
    """The line split at every delimiter, quotes kept as written."""
    return line.rstrip("\r\n").split(delimiter)


def rows_of(text: str, delimiter: str, quoted: bool | None = None) -> list[list[str]]:
    """Rows of ``text`` as the reader reads a file: CR, LF and CRLF all end a line; quotes as above."""
    use = uses_quoting(text) if quoted is None else quoted
    return [fields for _, fields, _ in read_records(io.StringIO(text, newline=""), delimiter, use)]


def fold_extra(values: list[str], width: int, column: int, delimiter: str) -> list[str]:
    """A row with more fields than the header: the extra delimiters were in the ticket text (an unquoted
    comma), so the text column takes the extra fields back, joined as written; nothing is dropped."""
    extra = len(values) - width
    column = min(column, width - 1)
    return [*values[:column], delimiter.join(values[column : column + extra + 1]), *values[column + extra + 1 :]]


def unique_names(names: list[str]) -> list[str]:
    """The names, a repeated one numbered "name (2)", "name (3)"… past any name a later column has."""
    later = set(names)
    seen: set[str] = set()
    out: list[str] = []
    for name in names:
        final, n = name, 1
        while final in seen or (final != name and final in later):
            n += 1
            final = f"{name} ({n})"
        seen.add(final)
        out.append(final)
    return out
