"""A workbook's parts read with bounded memory and time: every part through a counting limit, the shared
strings and a sheet's rows parsed by expat as they stream.

Why not openpyxl's reader: it reads the whole shared-string table before the first row (a 2.9 MB
workbook whose strings unpack to 1.2 GB ran for minutes at 3.4 GB), reads a shared-string index of -1
as the last string (another cell's text), gives a formula without a saved value as an empty cell, and
parses every one of 500 MB of empty ``<row/>`` one by one. Here:

- every part is refused past its limit of unpacked bytes (a sheet ``SHEET_LIMIT``, the shared strings
  ``STRINGS_LIMIT``, workbook.xml, styles and relationship lists ``PART_LIMIT``), by the zip's declared
  size and by counting what really comes out (a header can lie), in one sentence naming the limit; a
  cell past ``CELL_LIMIT`` characters is refused the same way;
- a shared-string index that is no index of the table is read as an empty cell and counted;
- formulas without a saved value are counted with their cells;
- after ``EMPTY_RUN`` empty rows in a row the rest of the sheet is scanned as bytes for a value (about
  1 GB/s) instead of parsed row by row: nothing there ends the sheet, something there refuses it;
- texts are unescaped by Excel's own rule (``_x000D_`` is a carriage return, ``_x005F_`` an underscore).
"""

from __future__ import annotations

import re
import zipfile
from collections.abc import Callable, Iterator
from typing import IO, Any
from xml.parsers import expat

from ._sniff import TicketFileError
from ._xlsx_writer import EXCEL_MAX_CELL, column_letters

# Unpacked bytes. A 100,000-ticket export with 440-character tickets is an 84 MB sheet (measured), and
# its shared strings, where the writer uses them, about 45 MB: the limits are ten times that and more.
# A sheet is streamed (memory flat, about 6 MB/s on a loaded laptop core); the shared strings are held.
SHEET_LIMIT = 1024 * 1024 * 1024
STRINGS_LIMIT = 512 * 1024 * 1024
PART_LIMIT = 16 * 1024 * 1024  # workbook.xml, styles, relationship lists: kilobytes in real workbooks
CELL_LIMIT = 16 * 1024 * 1024  # characters in one cell (Excel itself holds 32,767)
EMPTY_RUN = 100_000  # empty rows in a row after which the rest is scanned rather than parsed
MAX_COLUMNS = 16_384  # Excel's last column, XFD
CHUNK = 1 << 16
# A value in a sheet's XML: a non-empty <v> or inline-string <t>, with or without a namespace prefix.
VALUE_MARK = re.compile(rb"<(?:[A-Za-z_][\w.-]*:)?[vt](?:\s[^>]*)?>[^<]")
_ESCAPE = re.compile(r"_x([0-9A-Fa-f]{4})_")


def unescape(text: str) -> str:
    """Excel's ``_xHHHH_`` escapes read back: ``_x000D_`` is "\\r", ``_x005F_x0041_`` the text ``_x0041_``."""
    return _ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), text) if "_x" in text else text


def _size(limit: int) -> str:
    for unit, size in (("GiB", 2**30), ("MiB", 2**20)):
        if limit >= size:
            return f"{limit / size:g} {unit}"
    return f"{limit / 2**10:g} KiB"


def damaged(name: str, what: str) -> TicketFileError:
    """A workbook whose parts contradict themselves or break off: one sentence, never "no rows"."""
    return TicketFileError(f"{name} is damaged: {what}; save it again from Excel, or as CSV.")


def too_large(name: str, what: str, limit: int) -> TicketFileError:
    return TicketFileError(
        f"{name} is too large to read: its {what} unpacks to more than {_size(limit)} (the limit for that part "
        "of a workbook); save the tickets as CSV and open that."
    )


class Limited:
    """A zip member's stream that refuses to give more than its limit (counted, not declared): ``kind``
    "sheet", "strings" or "part" (the limits are looked up now, so a test can lower them)."""

    def __init__(self, archive: zipfile.ZipFile, member: str, name: str, what: str, kind: str = "part") -> None:
        self.limit = {"sheet": SHEET_LIMIT, "strings": STRINGS_LIMIT}.get(kind, PART_LIMIT)
        self.refuse = too_large(name, what, self.limit)
        if archive.getinfo(member).file_size > self.limit:
            raise self.refuse
        self.handle: IO[bytes] = archive.open(member)
        self.count = 0
        self.last = b""  # the part's last bytes read: whether it ends as XML does (:func:`whole`)

    def read(self, size: int = -1) -> bytes:
        data = self.handle.read(CHUNK if size is None or size < 0 else min(size, CHUNK))
        self.count += len(data)
        self.last = (self.last + data)[-256:] if len(data) < 256 else data[-256:]
        if self.count > self.limit:
            raise self.refuse
        return data

    def chunks(self) -> Iterator[bytes]:
        while data := self.read(CHUNK):
            yield data

    def close(self) -> None:
        self.handle.close()

    def __enter__(self) -> Limited:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def holds_value(stream: Limited, tail: bytes = b"") -> bool:
    """Whether the rest of ``stream`` (after ``tail``, bytes already read) holds a cell value: a byte scan."""
    for data in stream.chunks():
        tail = tail[-256:] + data  # a mark cut between two chunks is found in the next
        # bytes.find first: a sea of "<row/>" holds none of these, and the regex is ten times slower there
        if (b"v>" in tail or b"t>" in tail or b"t " in tail) and VALUE_MARK.search(tail):
            return True
    return bool(VALUE_MARK.search(tail))


def whole(stream: Limited) -> bool:
    """Whether a part read to its end closes its root element: a sheet cut short (a copy broken off, a
    truncated download) that holds no value yet read as "no rows" rather than as damaged."""
    return re.search(rb"</(?:[A-Za-z_][\w.-]*:)?[A-Za-z_][\w.-]*>\s*\Z", stream.last) is not None


def _local(tag: str) -> str:
    return tag.rsplit(":", 1)[-1]


def _parse(
    stream: Limited,
    start: Callable[[str, dict[str, str]], None],
    end: Callable[[str], None],
    text: Callable[[str], None],
) -> Iterator[None]:
    """Run expat over ``stream``, yielding after each chunk (every event of it handled)."""
    parser = expat.ParserCreate()
    parser.buffer_text = True
    parser.StartElementHandler = lambda tag, attrs: start(_local(tag), attrs)
    parser.EndElementHandler = lambda tag: end(_local(tag))
    parser.CharacterDataHandler = text
    for data in stream.chunks():
        parser.Parse(data, False)
        yield
    parser.Parse(b"", True)
    yield


def shared_strings(stream: Limited) -> list[str]:
    """The shared-string table: each ``<si>``'s text runs joined, phonetic guides (``<rPh>``) left out."""
    strings: list[str] = []
    parts: list[str] = []
    state = {"t": False, "rPh": 0}

    def start(tag: str, attrs: dict[str, str]) -> None:
        if tag == "si":
            parts.clear()
        elif tag == "rPh":
            state["rPh"] += 1
        elif tag == "t":
            state["t"] = not state["rPh"]

    def end(tag: str) -> None:
        if tag == "si":
            strings.append(unescape("".join(parts)))
        elif tag == "rPh":
            state["rPh"] -= 1
        elif tag == "t":
            state["t"] = False

    def text(data: str) -> None:
        if state["t"]:
            parts.append(data)

    for _ in _parse(stream, start, end, text):
        pass
    return strings


def date_styles(stream: Limited) -> tuple[set[int], set[int]]:
    """(style indices whose number format is a date, those of them that are durations), from styles.xml."""
    from openpyxl.styles.numbers import BUILTIN_FORMATS, is_date_format, is_timedelta_format

    formats: dict[int, str] = dict(BUILTIN_FORMATS)
    cell_formats: list[int] = []
    inside = {"cellXfs": False}

    def start(tag: str, attrs: dict[str, str]) -> None:
        if tag == "numFmt" and attrs.get("numFmtId", "").isdigit():
            formats[int(attrs["numFmtId"])] = attrs.get("formatCode", "")
        elif tag == "cellXfs":
            inside["cellXfs"] = True
        elif tag == "xf" and inside["cellXfs"]:
            number = attrs.get("numFmtId", "0")
            cell_formats.append(int(number) if number.isdigit() else 0)

    def end(tag: str) -> None:
        if tag == "cellXfs":
            inside["cellXfs"] = False

    for _ in _parse(stream, start, end, lambda data: None):
        pass
    dates = {i for i, f in enumerate(cell_formats) if is_date_format(formats.get(f, ""))}
    return dates, {i for i in dates if is_timedelta_format(formats.get(cell_formats[i], ""))}


def column_of(ref: str) -> int:
    """The 1-based column of a cell reference such as ``AB12`` (0 where it has no letters)."""
    column = 0
    for char in ref:
        if not char.isalpha():
            break
        column = column * 26 + (ord(char.upper()) - 64)
    return column


class SheetRows:
    """A sheet's rows that hold a value, as (row number, cell texts), streamed; what was odd is counted.

    ``convert(kind, style, text)`` turns a typed value into its text (numbers, dates, booleans): the
    workbook layer's rule, so this module keeps to the XML.
    """

    def __init__(self, strings: list[str] | None, convert: Callable[[str, int, str], str]) -> None:
        self.strings, self.convert = strings or [], convert
        self.no_table = strings is None  # the workbook has no shared-string table
        self.formulas: list[str] = []  # cells whose formula has no saved value
        self.missing: list[str] = []  # cells whose shared-string index is none of the table's
        self.beyond = ""  # a cell reference past Excel's last column
        self.too_long = ""  # a cell holding more than CELL_LIMIT characters
        self.twice = ""  # a cell written twice (two cells both A3): one of them would be lost
        self.ready: list[tuple[int, list[str]]] = []
        self.row = self.last_value = self.empty = 0  # empty: parsed empty rows since the last value
        self.cells: dict[int, str] = {}
        self.cell: dict[str, Any] = {}
        self.column = 0
        self.phonetic = 0
        self.collect = False

    def start(self, tag: str, attrs: dict[str, str]) -> None:
        if tag == "c":
            ref = attrs.get("r", "")
            self.column = column_of(ref) or self.column + 1
            if self.column > MAX_COLUMNS:
                self.beyond = self.beyond or ref
                self.column = MAX_COLUMNS
            style = attrs.get("s", "0")
            self.cell = {
                "t": attrs.get("t", "n"),
                "s": int(style) if style.isdigit() else 0,
                "v": [],
                "n": 0,
                "f": False,
                "ref": ref or f"{column_letters(self.column - 1)}{self.row}",
            }
        elif tag == "row":
            number = attrs.get("r", "")
            self.row = max(int(number), self.row + 1) if number.isdigit() else self.row + 1
            self.cells, self.column = {}, 0
        elif tag == "f":
            self.cell["f"] = True
        elif tag == "rPh":
            self.phonetic += 1
        elif tag in ("v", "t") and self.cell:
            self.collect = not self.phonetic and (tag == "v" or self.cell["t"] == "inlineStr")

    def end(self, tag: str) -> None:
        if tag in ("v", "t"):
            self.collect = False
        elif tag == "rPh":
            self.phonetic -= 1
        elif tag == "c" and self.cell:
            value = self.value(self.cell)
            written = self.cell["f"] or (self.cell["t"] == "s" and "".join(self.cell["v"]).strip())
            if value or written:  # a formula without a saved value, a lost shared text: its row still comes back
                if self.column in self.cells:
                    self.twice = self.twice or self.cell["ref"]
                self.cells[self.column] = value
            self.cell = {}
        elif tag == "row" and self.cells:
            width = max(self.cells)
            self.ready.append((self.row, [self.cells.get(c, "") for c in range(1, width + 1)]))
            self.last_value, self.empty = self.row, 0
        elif tag == "row":
            self.empty += 1

    def text(self, data: str) -> None:
        if self.collect:
            self.cell["v"].append(data)
            self.cell["n"] += len(data)
            if self.cell["n"] > CELL_LIMIT:
                self.too_long = self.too_long or self.cell["ref"]
                self.cell["v"].clear()

    def value(self, cell: dict[str, Any]) -> str:
        raw, kind = "".join(cell["v"]), cell["t"]
        if cell["f"] and not raw:
            self.formulas.append(cell["ref"])
            return ""
        if kind == "inlineStr" or kind in ("str", "e"):
            return unescape(raw)
        if not raw:
            return ""
        if kind == "s":
            index = int(raw) if raw.strip().isdigit() else -1
            if 0 <= index < len(self.strings):
                return self.strings[index]
            self.missing.append(cell["ref"])
            return ""
        return self.convert(kind, cell["s"], raw.strip())

    def read(self, stream: Limited, name: str, sheet: str) -> Iterator[tuple[int, list[str]]]:
        for _ in _parse(stream, self.start, self.end, self.text):
            yield from self.ready
            self.ready.clear()
            if self.beyond:
                raise TicketFileError(
                    f"{name}: cell {self.beyond} of sheet {sheet!r} lies past Excel's last column (XFD); "
                    "save the sheet again from Excel or as CSV."
                )
            if self.missing and self.no_table:
                raise damaged(name, f"cell {self.missing[0]} of sheet {sheet!r} points to a shared text, and the "
                              "workbook has no shared-string table")  # fmt: skip
            if self.twice:
                raise damaged(name, f"cell {self.twice} of sheet {sheet!r} is written twice, with two values")
            if self.too_long:
                raise TicketFileError(
                    f"{name}: cell {self.too_long} of sheet {sheet!r} holds more than {CELL_LIMIT:,} characters "
                    f"(Excel itself holds {EXCEL_MAX_CELL:,}); save the sheet as CSV and open that."
                )
            if self.empty > EMPTY_RUN:
                if holds_value(stream):
                    raise TicketFileError(
                        f"{name}: sheet {sheet!r} has more than {EMPTY_RUN:,} empty rows in a row after row "
                        f"{self.last_value} before more data; delete the empty rows and save it again, or save "
                        "it as CSV."
                    )
                if not whole(stream):
                    raise damaged(name, f"sheet {sheet!r} breaks off after row {self.last_value}")
                return  # only empty rows follow: the sheet ends at its last value
