"""Ticket files in and out: sniffing (encoding, text or binary, delimiter, header, the text column), the
streaming reader for the formats in one table (``FORMATS``: CSV, TSV, TXT, JSON, JSONL, workbooks read
under size limits), the exports (CSV and .xlsx, every input record 1:1), and taught tickets as files.

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
    output_header,
    write_csv,
    write_results,
)
from ._field_export import (
    check_fields_fit_excel,
    field_cells,
    fields_workbook,
    labelled_per_field,
    write_field_results,
    write_fields_csv,
)
from ._formats import FILE_FILTER, FORMAT_NAMES, FORMATS, SUPPORTED, XLSX, Format, check_file, open_tickets
from ._into_table import loosely, read_table, rows_of
from ._reader import Ticket, TicketSource, tickets_from_text
from ._sniff import SAMPLE_BYTES, NoTickets, TicketFileError, choose_text_column, detect_encoding
from ._taught import read_taught, usable_taught, write_taught
from ._workbook import sheet_sizes

__all__ = [
    "FILE_FILTER",
    "FORMATS",
    "FORMAT_NAMES",
    "SAMPLE_BYTES",
    "SUPPORTED",
    "XLSX",
    "ExcelExport",
    "ExportCounts",
    "Format",
    "NoTickets",
    "Ticket",
    "TicketFileError",
    "TicketSource",
    "check_fields_fit_excel",
    "check_file",
    "check_fits_excel",
    "check_output",
    "choose_text_column",
    "detect_encoding",
    "export_counts",
    "field_cells",
    "fields_workbook",
    "labelled_per_field",
    "loosely",
    "open_tickets",
    "output_format",
    "output_header",
    "read_table",
    "read_taught",
    "rows_of",
    "sheet_sizes",
    "tickets_from_text",
    "usable_taught",
    "write_csv",
    "write_field_results",
    "write_fields_csv",
    "write_results",
    "write_taught",
]
