"""Ticket files in and out: sniffing (encoding, text or binary, delimiter, header, the text column), the
streaming reader for CSV/TSV/TXT/JSONL/JSON and workbooks (read under size limits), the exports (CSV and
.xlsx, every input record 1:1), and taught tickets as files.

Imports :mod:`..files`, :mod:`..table` (the export writes a table) and :mod:`..prompt` (taught files match
label names as the prompt compares them).
"""

from __future__ import annotations

from ._export import (
    ExcelExport,
    ExportCounts,
    check_fits_excel,
    check_output,
    export_counts,
    output_format,
    write_csv,
    write_results,
)
from ._into_table import read_table, rows_of
from ._reader import FILE_FILTER, SUPPORTED, Ticket, TicketSource, check_file, open_tickets, tickets_from_text
from ._sniff import SAMPLE_BYTES, TicketFileError, choose_text_column, detect_encoding
from ._taught import read_taught, usable_taught, write_taught
from ._workbook import XLSX, sheet_sizes

__all__ = [
    "FILE_FILTER",
    "SAMPLE_BYTES",
    "SUPPORTED",
    "XLSX",
    "ExcelExport",
    "ExportCounts",
    "Ticket",
    "TicketFileError",
    "TicketSource",
    "check_file",
    "check_fits_excel",
    "check_output",
    "choose_text_column",
    "detect_encoding",
    "export_counts",
    "open_tickets",
    "output_format",
    "read_table",
    "read_taught",
    "rows_of",
    "sheet_sizes",
    "tickets_from_text",
    "usable_taught",
    "write_csv",
    "write_results",
    "write_taught",
]
