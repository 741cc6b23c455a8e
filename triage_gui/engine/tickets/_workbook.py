"""Excel workbooks (.xlsx) in: the sheets that hold data, the one to read, a sheet's rows as text.

Reading streams with bounded memory and time (``sheet_xml``: every part under a counted size limit,
expat over the XML as it unpacks), so a 100,000-row sheet comes into the table batch by batch like a
CSV. Which sheets hold data is found by a byte scan of each sheet up to its first value: milliseconds,
so the window can ask it on the GUI thread before its Replace/Add question. Chart sheets are no
worksheets and are left out; a hidden sheet is read only where no visible one holds data, and said.
Writing is ``xlsx_writer``'s.
"""

from __future__ import annotations

import datetime
import math
import os
import posixpath
import re
import zipfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from xml.etree import ElementTree
from xml.parsers import expat

from ._sheet_xml import Limited, SheetRows, damaged, date_styles, holds_value, shared_strings, whole
from ._sniff import TicketFileError, file_name

OLD_EXCEL = ".xls"
OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"  # the old binary .xls (and a password-protected .xlsx)
ZIP_MAGIC = b"PK\x03\x04"
_RELS = "/officeDocument/2006/relationships/"  # a relationship's type ends in this plus its kind
_REL_ID = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}id"
_INTEGER = re.compile(r"-?\d+")
_FAILURES = (
    OSError,
    EOFError,
    zipfile.BadZipFile,
    zlib.error,
    KeyError,
    ElementTree.ParseError,
    expat.ExpatError,
    RuntimeError,
    ValueError,
    IndexError,
)


def refuse_old_excel(path: Path, raw: bytes) -> None:
    """An old-format (.xls) or password-protected workbook (its first bytes ``raw``) is refused in one
    sentence, with what to do instead; a zip under the name .xls is a workbook and read as one."""
    if raw.startswith(OLE_MAGIC) or (path.suffix.lower() == OLD_EXCEL and not raw.startswith(ZIP_MAGIC)):
        raise TicketFileError(
            f"{file_name(path)} is an old-format (.xls) or password-protected Excel workbook, which cannot be "
            "read; save it as .xlsx (without a password) or as CSV and open that."
        )


def _damaged(name: str, exc: BaseException) -> TicketFileError:
    return TicketFileError(f"{name} is not a readable Excel workbook ({_reason(exc)}); save it again as .xlsx or CSV.")


@dataclass
class Book:
    """What workbook.xml and its relationships say: the worksheets in tab order and where their parts are."""

    names: list[str] = field(default_factory=list)
    members: dict[str, str] = field(default_factory=dict)  # sheet name -> its part in the zip
    states: dict[str, str] = field(default_factory=dict)  # sheet name -> "hidden" or "veryHidden"
    strings: str | None = None  # the shared-string table's part
    styles: str | None = None
    date1904: bool = False
    with_data: list[str] = field(default_factory=list)


def _target(target: str) -> str:
    return target.lstrip("/") if target.startswith("/") else posixpath.normpath(f"xl/{target}")


def _read_book(archive: zipfile.ZipFile, name: str) -> Book:
    folded = [n.casefold() for n in archive.namelist()]  # a package's part names are case-insensitive
    if len(set(folded)) < len(folded):
        twice = next(n for i, n in enumerate(archive.namelist()) if n.casefold() in folded[:i])
        raise damaged(name, f"it holds two parts named {twice} (the zip has a duplicate entry)")
    book = Book()
    parts: dict[str | None, tuple[str, str]] = {}
    with Limited(archive, "xl/_rels/workbook.xml.rels", name, "relationship list") as rels:
        for _, rel in ElementTree.iterparse(rels):
            kind = rel.get("Type", "").rsplit(_RELS, 1)[-1]
            parts[rel.get("Id")] = (kind, _target(rel.get("Target", "")))
    book.strings = next((t for k, t in parts.values() if k == "sharedStrings"), None)
    book.styles = next((t for k, t in parts.values() if k == "styles"), None)
    with Limited(archive, "xl/workbook.xml", name, "workbook.xml") as source:
        for _, element in ElementTree.iterparse(source):
            tag = element.tag.rsplit("}", 1)[-1]
            if tag == "workbookPr":
                book.date1904 = element.get("date1904", "").lower() in ("1", "true")
            elif tag == "sheet" and parts.get(element.get(_REL_ID), ("",))[0] == "worksheet":
                sheet = element.get("name", "")
                book.names.append(sheet)
                book.members[sheet] = parts[element.get(_REL_ID)][1]
                if element.get("state", "visible") != "visible":
                    book.states[sheet] = element.get("state", "hidden")
            element.clear()
    return book


def read_book(path: str | os.PathLike[str]) -> Book:
    """The workbook's sheets, with those that hold a value (each sheet scanned up to its first value)."""
    path = Path(path)
    name = file_name(path)
    try:
        with zipfile.ZipFile(path) as archive:
            book = _read_book(archive, name)
            for sheet in book.names:
                with Limited(archive, book.members[sheet], name, f"sheet {sheet!r}", "sheet") as stream:
                    if holds_value(stream):
                        book.with_data.append(sheet)
                    elif not whole(stream):
                        raise damaged(name, f"sheet {sheet!r} breaks off before its end")
    except TicketFileError:
        raise
    except _FAILURES as exc:
        raise _damaged(name, exc) from None
    if not book.names:
        raise TicketFileError(f"{name} holds no worksheets.")
    return book


def sheets(path: str | os.PathLike[str]) -> tuple[list[str], list[str]]:
    """(every worksheet's name, those that hold at least one value), in the workbook's tab order."""
    book = read_book(path)
    return book.names, book.with_data


def sheet_sizes(path: str | os.PathLike[str]) -> dict[str, int]:
    """Each worksheet's row count as the workbook states it (its ``<dimension ref="A1:D401">``, the first
    element of the sheet's XML, so milliseconds at any size); 0 where it states none. A guess to offer the
    sheet that most likely holds the tickets, never a promise: an unreadable workbook gives {}."""
    sizes: dict[str, int] = {}
    name = file_name(Path(path))
    try:
        with zipfile.ZipFile(path) as archive:
            book = _read_book(archive, name)
            for sheet in book.names:
                sizes[sheet] = 0
                with Limited(archive, book.members[sheet], name, f"sheet {sheet!r}", "sheet") as stream:
                    for _, element in ElementTree.iterparse(stream, events=("start",)):
                        tag = element.tag.rsplit("}", 1)[-1]
                        if tag == "dimension":
                            ref = element.get("ref", "")
                            digits = "".join(ch for ch in ref.rpartition(":")[2] if ch.isdigit())
                            sizes[sheet] = int(digits) if digits else 0
                        if tag in ("dimension", "sheetData"):
                            break
    except TicketFileError:
        return {}
    except _FAILURES:
        return {}
    return sizes


def choose_sheet(path: str | os.PathLike[str], wanted: str | None) -> tuple[str, list[str], list[str]]:
    """(the sheet to read, the sheets that hold data, notes for the summary). The sheet is ``wanted``,
    else the first visible one holding data, else the first hidden one; a hidden sheet read is said."""
    book = read_book(path)
    name = file_name(Path(path))
    if wanted is not None:
        if wanted not in book.names:
            raise TicketFileError(f"{name} has no sheet {wanted!r}; its sheets: {', '.join(book.names)}.")
        chosen = wanted
    elif not book.with_data:
        raise TicketFileError(f"{name} has no rows (every sheet is empty).")
    else:
        chosen = next((s for s in book.with_data if s not in book.states), book.with_data[0])
    notes = []
    if chosen in book.states:
        notes.append(f"sheet {chosen!r} is {'very hidden' if book.states[chosen] == 'veryHidden' else 'hidden'}")
    others = [s for s in book.with_data if s != chosen]
    if others:
        hidden = sum(s in book.states for s in others)
        notes.append(
            f"{len(others)} other sheet{'s' if len(others) > 1 else ''} with data not read"
            + (f" ({hidden} of them hidden)" if hidden else "")
        )
    return chosen, book.with_data, notes


def cell_text(value: object) -> str:
    """A cell's value as the ticket table holds it: text as written, whole numbers without ".0", dates
    as ISO dates (with the time where it is not midnight), nothing for an empty cell."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() and abs(value) < 2**53 else repr(value)
    if isinstance(value, datetime.datetime):
        if value.time() == datetime.time(0) and value.tzinfo is None:
            return value.date().isoformat()
        return value.isoformat(sep=" ", timespec="microseconds" if value.microsecond else "seconds")
    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    return str(value)


def _converter(book: Book, archive: zipfile.ZipFile, name: str) -> Callable[[str, int, str], str]:
    """A typed cell value's text: numbers as :func:`cell_text` writes them, dates where the style says so."""
    from openpyxl.utils.datetime import CALENDAR_MAC_1904, CALENDAR_WINDOWS_1900, from_excel, from_ISO8601

    dates: set[int] = set()
    durations: set[int] = set()
    if book.styles and book.styles in archive.namelist():
        with Limited(archive, book.styles, name, "style sheet") as stream:
            dates, durations = date_styles(stream)
    epoch = CALENDAR_MAC_1904 if book.date1904 else CALENDAR_WINDOWS_1900

    def convert(kind: str, style: int, raw: str) -> str:
        try:
            if kind == "b":
                return "FALSE" if raw in ("0", "false") else "TRUE"
            if kind == "d":
                return cell_text(from_ISO8601(raw))
            number: float = int(raw) if _INTEGER.fullmatch(raw) else float(raw)
            if number != number or number in (math.inf, -math.inf):
                return raw  # "1e999" is text a writer put there, not a number to show as inf
            if style in dates:
                return cell_text(from_excel(number, epoch, timedelta=style in durations))
            return cell_text(number)
        except (ValueError, OverflowError, TypeError):
            return raw

    return convert


def sheet_rows(
    path: str | os.PathLike[str],
    sheet: str,
    notes: list[str] | None = None,
    first: int = 0,
    formulas: list[str] | None = None,
) -> Iterator[tuple[int, list[str]]]:
    """(row number, cell texts without trailing empty cells) for every row of the sheet that holds a
    value, from row ``first`` on, streamed; the row numbers are the sheet's (the gaps are its empty rows).

    Where the whole sheet was read, ``notes`` gets what the lead should know: formulas without a
    saved value (read as empty), cells whose shared string is missing (read as empty); ``formulas``, where
    given, is the list the reader appends those formulas' cells to as it reads.
    """
    name = file_name(Path(path))
    number = 0
    try:
        with zipfile.ZipFile(path) as archive:
            book = _read_book(archive, name)
            if sheet not in book.members:
                raise TicketFileError(f"{name} has no sheet {sheet!r}; its sheets: {', '.join(book.names)}.")
            strings: list[str] | None = None  # no table: a cell that points into one says the workbook is damaged
            if book.strings and book.strings in archive.namelist():
                with Limited(archive, book.strings, name, "shared-string table", "strings") as stream:
                    strings = shared_strings(stream)
            reader = SheetRows(strings, _converter(book, archive, name))
            if formulas is not None:  # the caller sees each formula without a value as its row comes
                reader.formulas = formulas
            with Limited(archive, book.members[sheet], name, f"sheet {sheet!r}", "sheet") as stream:
                for number, values in reader.read(stream, name, sheet):
                    if number >= first:
                        yield number, values
    except TicketFileError:
        raise
    except _FAILURES as exc:
        where = f" past row {number}" if number else ""
        raise damaged(name, f"sheet {sheet!r} cannot be read{where} ({_reason(exc)})") from None
    if notes is not None:
        for cells, noun, what in (
            (reader.formulas, "formula", "without a saved value"),
            (reader.missing, "cell", "pointing to a shared text the workbook does not have"),
        ):
            if cells:
                shown = ", ".join(cells[:5]) + ("…" if len(cells) > 5 else "")
                note = f"{len(cells)} {noun}{'s' if len(cells) > 1 else ''} {what} read as empty ({shown})"
                if note not in notes:
                    notes.append(note)


def title_rows(rows: list[list[str]]) -> int:
    """How many rows at the top are a title above the header: rows of one value over a table of several
    columns (a report's name, an export date), up to five. 0 where the first row is the table's."""
    widths = [sum(1 for c in r if c.strip()) for r in rows[:200]]
    if len(widths) < 3:
        return 0
    body = widths[1:]
    modal = max(set(body), key=body.count)
    skip = 0
    while skip < min(5, len(widths) - 2) and widths[skip] <= 1 < modal:
        skip += 1
    return skip if widths[skip] > 1 else 0  # the header under them is as wide as a table row


def sheet_sample(path: Path, sheet: str, notes: list[str]) -> tuple[list[list[str]], bool, int]:
    """(the sheet's first 500 rows with a value from its header on, whether that is all, the header's row
    number); title rows above the header are left out and said in ``notes``."""
    sample: list[tuple[int, list[str]]] = []
    for number, values in sheet_rows(path, sheet):
        sample.append((number, values))
        if len(sample) >= 505:
            break
    skip = title_rows([values for _, values in sample])
    if skip:
        header = sample[skip][0]
        above = f"row {sample[0][0]}" if skip == 1 else f"rows {sample[0][0]}–{sample[skip - 1][0]}"
        notes.append(f"{above} above the header (row {header}) read as a title, not as tickets")
    rows = [values for _, values in sample[skip:]]
    return rows[:500], len(sample) < 505, sample[skip][0] if skip else 0


def _reason(exc: BaseException) -> str:
    if isinstance(exc, KeyError):
        return "a part of the workbook is missing"
    reason = str(exc).rstrip(".") or type(exc).__name__
    return reason[:1].lower() + reason[1:]
