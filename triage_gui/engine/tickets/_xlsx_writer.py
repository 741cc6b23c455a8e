"""A table written as an .xlsx workbook, streamed straight into the zip, every ticket text kept exactly.

Why not openpyxl's writer: its write-only mode spools each sheet to a temporary file in TMPDIR (a full
TMPDIR damaged the export), drops the characters XML 1.0 cannot hold, and lets a carriage return come
back as a line feed. Here:

- characters XML 1.0 cannot hold (``\\x00``-``\\x08``, ``\\x0b``, ``\\x0c``, ``\\x0e``-``\\x1f``,
  U+FFFE, U+FFFF, lone surrogates) are written as Excel's own ``_xHHHH_`` escapes, and a text that
  already looks like one gets its underscore escaped (``_x005F_``), so Excel reads back every text as
  it was; ``\\r`` is written as ``&#13;``, which XML readers keep (a raw one becomes ``\\n``);
- every text is an inline string cell: never a formula (``=HYPERLINK(…)``) or an error code (``#N/A``);
- the only file written is the one given (the caller's temporary file beside the output).

Excel's limits are checked before anything is written (:func:`excel_problem`): 1,048,576 rows with
the header, 16,384 columns, 32,767 characters a cell. Writing the export of 100,000 short tickets (ten
columns) took 2.3-3.1 s against openpyxl's 16.5-17.7 s; of 100,000 440-character tickets 10.6 s against
20.4 s (both on two cores shared with other work).
"""

from __future__ import annotations

import math
import os
import re
import zipfile
from collections.abc import Iterable

EXCEL_MAX_ROWS = 1_048_576
EXCEL_MAX_COLUMNS = 16_384
EXCEL_MAX_CELL = 32_767
ILLEGAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")
_LOOKS_ESCAPED = re.compile(r"_(?=x[0-9A-Fa-f]{4}_)")
_XML = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", "\r": "&#13;"})
_NS = "http://schemas.openxmlformats.org/"
_MAIN = f"{_NS}spreadsheetml/2006/main"
_REL = f"{_NS}officeDocument/2006/relationships"


def excel_escape(text: str) -> str:
    """The text as Excel stores it: ``_xHHHH_`` for what XML cannot hold, ``_x005F_`` before a look-alike."""
    if "_x" in text:
        text = _LOOKS_ESCAPED.sub("_x005F_", text)
    return ILLEGAL.sub(lambda m: f"_x{ord(m.group()):04X}_", text)


def cell_length(text: str) -> int:
    """Characters as Excel counts them (UTF-16 units: a character past U+FFFF counts twice)."""
    return len(text) if len(text) <= EXCEL_MAX_CELL // 2 else len(text.encode("utf-16-le", "surrogatepass")) // 2


def excel_problem(header: list[str], rows: int, values: Iterable[tuple[str, ...] | list[str]]) -> str | None:
    """Why these rows cannot be one Excel sheet, in one sentence (None: they fit)."""
    if rows + 1 > EXCEL_MAX_ROWS:
        return f"{rows:,} rows are more than an Excel sheet holds ({EXCEL_MAX_ROWS - 1:,} under the header)"
    if len(header) > EXCEL_MAX_COLUMNS:
        return f"{len(header):,} columns are more than an Excel sheet holds ({EXCEL_MAX_COLUMNS:,})"
    for number, row in enumerate([header, *values]):
        for column, text in enumerate(row):
            if len(text) > EXCEL_MAX_CELL // 2 and cell_length(text) > EXCEL_MAX_CELL:
                where = "the header" if number == 0 else f"ticket {number}"
                name = header[column] if column < len(header) else f"column {column + 1}"
                return (
                    f"{where} holds {cell_length(text):,} characters in column {name!r}, more than an Excel "
                    f"cell holds ({EXCEL_MAX_CELL:,})"
                )
    return None


def column_letters(index: int) -> str:
    """0 -> A, 25 -> Z, 26 -> AA."""
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(65 + rest) + letters
    return letters


def _cell(ref: str, value: str, numeric: bool) -> str:
    if numeric:
        try:
            number = float(value)
        except ValueError:
            number = math.nan
        if math.isfinite(number):
            return f'<c r="{ref}"><v>{number!r}</v></c>'
    return f'<c r="{ref}" t="inlineStr"><is><t xml:space="preserve">{excel_escape(value).translate(_XML)}</t></is></c>'


def write_workbook(
    path: str | os.PathLike[str], title: str, header: list[str], rows: Iterable[list[str]], numeric: set[int]
) -> None:
    """One sheet, row by row into the zip (memory flat), flushed to disk before this returns.

    ``numeric`` holds the indices of columns written as numbers where their value parses as one (our
    confidence and latencies), so a spreadsheet can sort and sum them. A cell past Excel's limits
    raises ValueError (the caller checked with :func:`excel_problem` first; this is the last guard).
    """
    letters: list[str] = []
    with open(path, "wb") as handle:
        with zipfile.ZipFile(handle, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as archive:
            for member, text in _parts(title).items():
                archive.writestr(member, text)
            with archive.open("xl/worksheets/sheet1.xml", "w", force_zip64=True) as sheet:
                sheet.write(
                    f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<worksheet xmlns="{_MAIN}">'
                    "<sheetData>".encode()
                )
                buffer: list[str] = []
                for number, values in enumerate([header, *rows], start=1):
                    if number > EXCEL_MAX_ROWS or len(values) > EXCEL_MAX_COLUMNS:
                        raise ValueError(f"row {number:,} is past Excel's limits; export as CSV instead")
                    while len(letters) < len(values):
                        letters.append(column_letters(len(letters)))
                    cells = []
                    for i, value in enumerate(values):
                        if value:  # no cell at all for an empty value: an empty string cell is not for every reader
                            if cell_length(value) > EXCEL_MAX_CELL:
                                raise ValueError(f"row {number:,} holds a cell longer than Excel's {EXCEL_MAX_CELL:,}")
                            cells.append(_cell(f"{letters[i]}{number}", value, number > 1 and i in numeric))
                    buffer.append(f'<row r="{number}">{"".join(cells)}</row>')
                    if len(buffer) >= 512:
                        sheet.write("".join(buffer).encode("utf-8"))
                        buffer.clear()
                buffer.append("</sheetData></worksheet>")
                sheet.write("".join(buffer).encode("utf-8"))
        handle.flush()
        os.fsync(handle.fileno())


def _parts(title: str) -> dict[str, str]:
    """The workbook's fixed parts: content types, relationships, the book, a minimal style sheet."""
    head = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    name = title.translate(_XML).replace('"', "&quot;")
    return {
        "[Content_Types].xml": head + f'<Types xmlns="{_NS}package/2006/content-types">'
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
        '<Default Extension="xml" ContentType="application/xml"/>'
        '<Override PartName="/xl/workbook.xml" '
        'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
        '<Override PartName="/xl/worksheets/sheet1.xml" '
        'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>'
        '<Override PartName="/xl/styles.xml" '
        'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/></Types>',
        "_rels/.rels": head + f'<Relationships xmlns="{_NS}package/2006/relationships">'
        f'<Relationship Id="rId1" Type="{_REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>',
        "xl/workbook.xml": head + f'<workbook xmlns="{_MAIN}" xmlns:r="{_REL}"><sheets>'
        f'<sheet name="{name}" sheetId="1" r:id="rId1"/></sheets></workbook>',
        "xl/_rels/workbook.xml.rels": head + f'<Relationships xmlns="{_NS}package/2006/relationships">'
        f'<Relationship Id="rId1" Type="{_REL}/worksheet" Target="worksheets/sheet1.xml"/>'
        f'<Relationship Id="rId2" Type="{_REL}/styles" Target="styles.xml"/></Relationships>',
        "xl/styles.xml": head + f'<styleSheet xmlns="{_MAIN}">'
        '<fonts count="1"><font><sz val="11"/><name val="Calibri"/></font></fonts>'
        '<fills count="2"><fill><patternFill patternType="none"/></fill>'
        '<fill><patternFill patternType="gray125"/></fill></fills>'
        '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>'
        '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>'
        '<cellXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/></cellXfs>'
        '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles></styleSheet>',
    }
