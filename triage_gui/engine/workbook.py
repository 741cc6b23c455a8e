"""Excel workbooks (.xlsx) in and out: the sheets that hold data, a sheet's rows as text, a table written.

Reading streams: openpyxl's read-only mode parses the sheet's XML as rows are asked for, so a
100,000-row sheet comes into the table batch by batch like a CSV, with bounded memory. Which sheets
hold data is found without openpyxl (the workbook's own XML, up to each sheet's first value): the
window asks it before its Replace/Add question, on the GUI thread, and openpyxl would first parse the
whole shared-string table (half a second for 100,000 distinct strings).

Writing forces every text cell to be a string: openpyxl turns a string that starts with ``=`` into a
formula and ``#N/A`` into an error, and a spreadsheet would run a ticket that reads ``=HYPERLINK(…)``.
Cells hold text exactly as in the table; only the characters XML cannot hold at all are left out.

openpyxl is imported on first use, so neither the command line nor the window pays for it at start.
"""

from __future__ import annotations

import contextlib
import datetime
import os
import posixpath
import warnings
import zipfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

from .sniff import TicketFileError, file_name

XLSX = (".xlsx", ".xlsm")
OLD_EXCEL = ".xls"
EXCEL_MAX_ROWS = 1_048_576
_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"  # the old binary .xls (and a password-protected .xlsx)
_ZIP_MAGIC = b"PK\x03\x04"
_WORKSHEET = "/officeDocument/2006/relationships/worksheet"  # the end of a worksheet relationship's type
_REL_ID = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}id"

# openpyxl warns about parts it does not read (data validation, conditional formats): not the reader's news.
warnings.filterwarnings("ignore", category=UserWarning, module=r"openpyxl\.")


def is_workbook(path: Path, raw: bytes) -> bool:
    """Whether the file (its first bytes ``raw``) is a workbook: by its name, or a zip under another
    name. An old-format (.xls) or password-protected one is refused here, with what to do instead."""
    suffix = path.suffix.lower()
    if raw.startswith(_OLE_MAGIC) or (suffix == OLD_EXCEL and not raw.startswith(_ZIP_MAGIC)):
        raise TicketFileError(
            f"{file_name(path)} is an old-format (.xls) or password-protected Excel workbook, which cannot be "
            "read; save it as .xlsx (without a password) or as CSV and open that."
        )
    return suffix in XLSX or suffix == OLD_EXCEL or raw.startswith(_ZIP_MAGIC)


def _damaged(name: str, exc: BaseException) -> TicketFileError:
    reason = str(exc).rstrip(".") or type(exc).__name__
    reason = reason[:1].lower() + reason[1:]
    return TicketFileError(f"{name} is not a readable Excel workbook ({reason}); save it again as .xlsx or CSV.")


def sheets(path: str | os.PathLike[str]) -> tuple[list[str], list[str]]:
    """(every worksheet's name, those that hold at least one value), in the workbook's tab order.

    Read from the zip's XML directly, stopping at each sheet's first value: milliseconds whatever the
    workbook's size. Chart sheets are no worksheets and are left out.
    """
    path = Path(path)
    try:
        with zipfile.ZipFile(path) as archive:
            names, with_data = [], []
            for name, member in _worksheets(archive):
                names.append(name)
                if _holds_value(archive, member):
                    with_data.append(name)
    except (OSError, zipfile.BadZipFile, KeyError, ElementTree.ParseError, RuntimeError, ValueError) as exc:
        if isinstance(exc, KeyError):
            exc = ValueError("a part of the workbook is missing")
        raise _damaged(file_name(path), exc) from None
    if not names:
        raise TicketFileError(f"{file_name(path)} holds no worksheets.")
    return names, with_data


def _worksheets(archive: zipfile.ZipFile) -> Iterator[tuple[str, str]]:
    """(name, zip member) of each worksheet, in tab order."""
    book = ElementTree.fromstring(archive.read("xl/workbook.xml"))
    rels = ElementTree.fromstring(archive.read("xl/_rels/workbook.xml.rels"))
    targets = {rel.get("Id"): rel.get("Target", "") for rel in rels if rel.get("Type", "").endswith(_WORKSHEET)}
    for sheet in (e for e in book.iter() if _local(e.tag) == "sheet"):
        target = targets.get(sheet.get(_REL_ID))
        if target is not None:
            member = target.lstrip("/") if target.startswith("/") else posixpath.normpath(f"xl/{target}")
            yield sheet.get("name", ""), member


def sheet_sizes(path: str | os.PathLike[str]) -> dict[str, int]:
    """Each worksheet's row count as the workbook states it (its ``<dimension ref="A1:D401">``, the first
    element of the sheet's XML, so milliseconds at any size); 0 where it states none. A guess to offer the
    sheet that most likely holds the tickets, never a promise: an unreadable workbook gives {}."""
    sizes: dict[str, int] = {}
    try:
        with zipfile.ZipFile(path) as archive:
            for name, member in _worksheets(archive):
                sizes[name] = 0
                with archive.open(member) as handle:
                    for _, element in ElementTree.iterparse(handle, events=("start",)):
                        tag = _local(element.tag)
                        if tag == "dimension":
                            last = element.get("ref", "").rpartition(":")[2] or element.get("ref", "")
                            digits = "".join(ch for ch in last if ch.isdigit())
                            sizes[name] = int(digits) if digits else 0
                        if tag in ("dimension", "sheetData"):
                            break
    except (OSError, zipfile.BadZipFile, KeyError, ElementTree.ParseError, RuntimeError, ValueError):
        return {}
    return sizes


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _holds_value(archive: zipfile.ZipFile, member: str) -> bool:
    """Whether the sheet's XML holds a cell value (``<v>`` or an inline string), read up to the first one."""
    with archive.open(member) as handle:
        for _, element in ElementTree.iterparse(handle, events=("end",)):
            tag = _local(element.tag)
            if tag in ("v", "t") and element.text:
                return True
            if tag in ("c", "row"):
                element.clear()  # keeps memory flat through a sheet of styled empty cells
    return False


def choose_sheet(path: str | os.PathLike[str], wanted: str | None) -> tuple[str, list[str]]:
    """The sheet to read (``wanted``, else the first holding data) and the sheets that hold data."""
    names, with_data = sheets(path)
    name = file_name(Path(path))
    if wanted is not None:
        if wanted not in names:
            raise TicketFileError(f"{name} has no sheet {wanted!r}; its sheets: {', '.join(names)}.")
        return wanted, with_data
    if not with_data:
        raise TicketFileError(f"{name} has no rows (every sheet is empty).")
    return with_data[0], with_data


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


def sheet_rows(path: str | os.PathLike[str], sheet: str) -> Iterator[tuple[int, list[str]]]:
    """(row number, cell texts without trailing empty cells) for every row of the sheet, streamed.

    Empty rows come too (an empty list), so row numbers are the sheet's; the caller decides what an
    empty row is. The sheet's stored size is ignored (some writers get it wrong and would cut rows off).
    """
    import openpyxl

    name = file_name(Path(path))
    try:
        book = openpyxl.load_workbook(path, read_only=True, data_only=True)
    except Exception as exc:  # openpyxl raises anything from zipfile, XML or its own checks
        raise _damaged(name, exc) from None
    number = 0
    try:
        worksheet = book[sheet]
        worksheet.reset_dimensions()
        for number, row in enumerate(worksheet.iter_rows(values_only=True), start=1):
            values = [cell_text(v) for v in row]
            while values and not values[-1]:
                values.pop()
            yield number, values
    except Exception as exc:
        raise TicketFileError(f"{name}: cannot read row {number + 1} of sheet {sheet!r} ({exc}).") from None
    finally:
        book.close()


def write_sheet(
    path: str | os.PathLike[str], title: str, header: list[str], rows: Iterable[list[str]], numeric: set[int]
) -> None:
    """Write one sheet, row by row (openpyxl's write-only mode keeps memory flat), every text as text.

    ``numeric`` holds the indices of columns written as numbers where their value parses as one (our
    confidence and latencies), so a spreadsheet can sort and sum them; every other value is a string
    cell whatever it starts with. The file is flushed to disk before this returns.
    """
    import openpyxl
    from openpyxl.cell import WriteOnlyCell
    from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE

    book = openpyxl.Workbook(write_only=True)
    worksheet: Any = book.create_sheet(title)

    def cell(index: int, value: str) -> WriteOnlyCell | None:
        if not value:
            return None  # no cell at all: an empty string cell is not something every reader accepts
        if index in numeric:
            try:
                return WriteOnlyCell(worksheet, value=float(value))
            except ValueError:
                pass
        text = ILLEGAL_CHARACTERS_RE.sub("", value)
        out = WriteOnlyCell(worksheet, value=text)
        out.data_type = "s"  # never a formula ("=…") or an error code ("#N/A"): the text as it is
        return out

    try:
        worksheet.append([cell(-1, name) for name in header])
        for values in rows:
            worksheet.append([cell(i, v) for i, v in enumerate(values)])
    except BaseException:
        with contextlib.suppress(Exception):  # end openpyxl's half-written sheet and remove its temp file now
            worksheet.close()
            worksheet._writer.cleanup()
        raise
    book.save(path)
    with open(path, "rb+") as handle:
        os.fsync(handle.fileno())
