"""The ticket side of the window: open (files, the sample, recent files), paste, clear, export (CSV or
Excel, by the extension), and the gold column chosen against the evaluation document.

Narrow inputs, never the window: the session, the evaluation, the ticket area, the settings (recent
files), a parent widget for dialogs and two ways to tell the user.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QMimeData
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QFileDialog, QMenu, QMessageBox, QWidget

from ...engine.files import shown
from ...engine.prompt import looks_like_prompt
from ...engine.tickets import (
    FILE_FILTER,
    XLSX,
    ExcelExport,
    ExportCounts,
    TicketFileError,
    check_file,
    check_output,
    export_counts,
    field_cells,
    fields_workbook,
    output_format,
    rows_of,
    sheet_sizes,
    tickets_from_text,
    write_field_results,
    write_results,
)
from ...paths import lead_folder, sample_tickets
from ...session.evaluation import Evaluation
from ...session.gold import gold_teaching
from ...session.session import Session
from ...session.status import RunStatus
from ...words import counted, plural
from .. import dialogs
from ..settings import AppSettings
from ..tickets.ticket_area import TicketArea

CSV_FILTER, EXCEL_FILTER = "CSV files (*.csv)", "Excel workbooks (*.xlsx)"


class TicketActions:
    """See the module docstring."""

    def __init__(
        self,
        session: Session,
        evaluation: Evaluation,
        tickets: TicketArea,
        settings: AppSettings,
        parent: QWidget,
        notify: Callable[[str, int], None],
        warn: Callable[[str, str], None],
        open_prompt: Callable[[str], bool] = lambda path: False,
        prompt_file: Callable[[], Path | None] = lambda: None,
    ) -> None:
        self.session, self.evaluation, self.tickets, self.settings = session, evaluation, tickets, settings
        self.parent, self.notify, self.warn = parent, notify, warn
        self.open_prompt = open_prompt  # a prompt file among those given or dropped: the prompt side opens it
        self.prompt_file = prompt_file  # the prompt file in use: an export never writes over it
        self.recent_menu: QMenu | None = None
        self.last_opened = ""  # the last file opened: exports are offered beside it
        self.last_sheet = ""  # its sheet, where it was a workbook: a workbook export keeps the sheet's name

    # ------------------------------------------------------------ tickets in

    def refresh_recent_menu(self, files: list[str] | None = None) -> None:
        menu = self.recent_menu
        if menu is None:
            return
        menu.clear()
        files = files if files is not None else self.settings.recent_files()
        for i, path in enumerate(files):
            act = menu.addAction(f"{_mnemonic(i)} {path.replace('&', '&&')}")  # "&1 /path": a key per file
            act.triggered.connect(lambda checked=False, p=path: self.open_files([p]))
        menu.setEnabled(bool(menu.actions()))
        self.tickets.offer_recent(files[0] if files else None)  # the empty table offers the last file

    def open_dialog(self) -> None:
        # Beside the last ticket file opened, else the prompt file in use: "" started in the settings folder (W11);
        # the app's own prompt is in the settings folder, so a new lead's is the home folder (W14)
        prompt = self.prompt_file()
        own = prompt is not None and lead_folder(prompt) != prompt.parent
        near = self.last_opened or next(iter(self.settings.recent_files()), "") or ("" if own else str(prompt or ""))
        folder = str(Path(near).parent) if near and Path(near).parent.is_dir() else str(Path.home())
        paths, _ = QFileDialog.getOpenFileNames(self.parent, "Open ticket files", folder, FILE_FILTER)
        if paths:
            self.open_files(paths, ask_sheet=True)

    def open_sample(self) -> None:
        self.open_files([str(sample_tickets())])

    def open_files(self, paths: list[str], ask_sheet: bool = False) -> None:
        """Open files; while tickets are loaded, ask whether they replace them or are added to them.

        Each file is checked first (there, readable, a format we read; a workbook's sheet chosen), so a
        file that would be refused never asks the question, and a refusal leaves the tickets as they were.
        A workbook's sheet is asked once per file and remembered (a drop or *Open recent* reads the same
        one again; *File › Open* asks again, the remembered one offered).
        """
        chosen, refused = [], []
        for path in paths:
            try:
                sheets = check_file(path)
            except TicketFileError as exc:
                refused.append(str(exc))
                continue
            sheet = self._sheet(path, sheets, ask_sheet) if len(sheets) > 1 else None
            if len(sheets) <= 1 or sheet is not None:  # a sheet not chosen: that file is not opened
                chosen.append((path, sheet or (sheets[0] if sheets else None)))
        if refused:
            self.warn("File not loaded", " ".join(refused))
        loaded = self.session.ticket_count
        replace = False
        if chosen and loaded:
            answer = dialogs.replace_or_add(self.parent, loaded, [Path(p).name for p, _ in chosen])
            if answer is None:
                return
            replace = answer
        if chosen:
            self.tickets.reset_filters()  # a new file: no filter from the last one hides its tickets
        for i, (path, sheet) in enumerate(chosen):
            self.last_opened, self.last_sheet = path, sheet or ""
            self.refresh_recent_menu(self.settings.add_recent(str(path)))
            self.session.open_file(path, replace=replace and i == 0, sheet=sheet)

    def _sheet(self, path: str, sheets: list[str], ask: bool) -> str | None:
        """The sheet this workbook was read from last time, else the lead's choice, the sheet with the most
        rows offered (the first was a one-cell "Notes" beside 400 tickets)."""
        choices = self.settings.get_dict("sheets")
        key = str(Path(path).resolve())
        remembered = choices.get(key, {}).get("sheet")
        if remembered in sheets and not ask:
            return remembered
        sizes = sheet_sizes(path)
        offered = sheets.index(remembered) if remembered in sheets else max(
            range(len(sheets)), key=lambda i: (sizes.get(sheets[i], 0), -i)
        )  # fmt: skip
        sheet = dialogs.choose_sheet(self.parent, Path(path).name, sheets, offered)
        if sheet is not None:
            self.settings.set("sheets", json.dumps(choices | {key: {"sheet": sheet}}))
        return sheet

    def paste_clipboard(self) -> None:
        self.paste_text(QGuiApplication.clipboard().text())

    @staticmethod
    def accepts(mime: QMimeData) -> bool:
        """A drag the window takes: local files (opened) or text (pasted as tickets)."""
        return (mime.hasUrls() and any(u.isLocalFile() for u in mime.urls())) or mime.hasText()

    def drop(self, mime: QMimeData) -> bool:
        """Open the dropped files, or paste the dropped text; False when the drop holds neither."""
        paths = [u.toLocalFile() for u in mime.urls() if u.isLocalFile()] if mime.hasUrls() else []
        if paths:
            self.open_given(paths)
        elif mime.hasText():
            self.paste_text(mime.text())
        else:
            return False
        return True

    def open_given(self, paths: list[str]) -> None:
        """Files dropped on the window or named on its command line (the desktop's *Open with*): a prompt file
        (a .json holding one object; a JSON ticket file is an array) opens as the prompt, first, so that the
        tickets are labelled with it; the others open as tickets. A prompt dropped used to be refused as a
        ticket file ("holds no tickets"). Each is kept by its full path: named relative, a start from another
        folder found neither the prompt nor the recent file (W11)."""
        paths = [os.path.abspath(path) for path in paths]
        prompts = [path for path in paths if looks_like_prompt(path)]
        if len(prompts) > 1:
            names = ", ".join(Path(path).name for path in prompts[1:])
            self.warn("Prompt not opened", f"One prompt at a time: {Path(prompts[0]).name} is opened, not {names}.")
        if prompts:
            self.open_prompt(prompts[0])
        if tickets := [path for path in paths if path not in prompts]:
            self.open_files(tickets)

    def paste_text(self, text: str) -> None:
        columns, tickets, text_column = tickets_from_text(text)
        if not tickets:
            self.notify("Nothing to paste: the clipboard holds no ticket text.", 8000)
            return
        rows = rows_of(columns, tickets, "pasted")
        loaded = self.session.ticket_count
        if loaded:  # as a file does: three pasted rows behind 17,746 unlabelled ones were easy to miss
            what = f"the {counted(len(rows), 'pasted ticket')}"
            answer = dialogs.replace_or_add(self.parent, loaded, [what], "Paste tickets")
            if answer is None:
                return
            if answer:
                self.session.clear()
        self.session.paste(rows, columns[text_column])
        self.notify(f"Pasted {len(rows)} ticket{'s' if len(rows) != 1 else ''}.", 8000)

    def focus_table(self) -> None:
        """Ctrl+2: back to the tickets (the empty table when there are none, so Ctrl+V pastes)."""
        self.tickets.focus_table(empty=not self.session.ticket_count)

    def columns_arrived(self) -> None:
        gold = self.evaluation.gold
        self.tickets.set_columns(self.session.columns, self.session.text_column, gold.column if gold else None)

    def clear(self) -> None:
        """Drop every ticket, once the lead agreed where labels or teaching would go with them."""
        table = self.session.table
        labelled, taught = table.count_scored(), len(table.taught_rows())
        if not (labelled or taught) or self.session.running or self.session.reading:
            if self.confirm_discard("Clear the tickets"):
                self.session.clear()
            return
        kept = f" What you taught ({counted(taught, 'ticket')}) stays with the prompt." if taught else ""
        answer = QMessageBox.question(
            self.parent,
            "Clear the tickets",
            f"Remove all {counted(len(table), 'ticket')} and {counted(labelled, 'label')}? This cannot be undone "
            f"(open the file again to get them back).{kept}",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Cancel,
        )
        if answer == QMessageBox.StandardButton.Yes:
            self.session.clear()

    def confirm_discard(self, what: str) -> bool:
        """While labelling or reading runs, ask before throwing the work away."""
        if not (self.session.running or self.session.reading):
            return True
        answer = QMessageBox.question(
            self.parent,
            what,
            running_text(self.session.run_status)
            + f" {what} anyway?"
            + (" This cannot be undone." if what.startswith("Clear") else ""),
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Cancel,
        )
        return answer == QMessageBox.StandardButton.Yes

    # ------------------------------------------------------------------ gold

    def choose_gold(self, column: str | None) -> None:
        """Use the column as gold; values that are no label names are mapped once per file header."""
        evaluation = self.evaluation
        needed = evaluation.needs_mapping(column) if column is not None else None
        mapping = None
        if column is not None and needed is not None:
            mapping = dialogs.gold_mapping(self.parent, self.session.table, column, *needed)
            if mapping is None:
                self.tickets.show_gold(evaluation.gold.column if evaluation.gold else None)
                return
        evaluation.choose(column, mapping)

    def learn_from_gold(self) -> None:
        """Teach the whole gold column, once the user agreed to how many tickets that is (one undo step); a
        prompt with several fields: the gold column of the field of the column in use, in that field (W13)."""
        session, field = self.session, self.tickets.field_in_use
        names = session.field_names
        field = field if field < len(names) else 0
        name = names[field] if len(names) > 1 else ""
        gold = self.evaluation.gold if not field else self.evaluation.gold_for(name)
        its = f" for the {name}" if name else ""
        if gold is None:
            self.warn("No gold column", f"Pick the column of correct labels{its} (Gold:) first.")
            return
        found, same, differ = gold_teaching(session.table, gold, session.taught_in(field), session.field_labels(field))
        if not found:
            self.notify(f"No ticket's value in {gold.column} is one of the labels{its}: nothing to learn.", 10000)
            return
        if same == len(found):
            self.notify(f"Every ticket with a label in {gold.column} is taught that label{its} already.", 10000)
            return
        also = f" {same} more are taught their gold label already." if same else ""
        also += f" {differ} of these are taught a different label now; they take the gold one." if differ else ""
        answer = QMessageBox.question(
            self.parent,
            "Learn from the gold column",
            f"Teach {counted(len(found) - same, 'ticket')} the label{its} in the {gold.column} column?{also} "
            "Ctrl+Z undoes it.",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Cancel,
        )
        self.tickets.focus_table()  # back to the table, whatever the answer (Ctrl+E went nowhere after it)
        if answer != QMessageBox.StandardButton.Yes:
            return
        taught = session.learn_from(gold, field)
        self.notify(f"Learning from {counted(taught, 'ticket')} of the gold column{its} — Ctrl+Z undoes.", 10000)

    # ---------------------------------------------------------------- export

    def export_dialog(self) -> None:
        table = self.session.table
        if not len(table):
            self.notify("Nothing to export yet.", 5000)
            return
        question = export_question(export_counts(table))
        if question:
            answer = QMessageBox.question(
                self.parent, "Export", question, QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel
            )
            if answer != QMessageBox.StandardButton.Yes:
                return
        source = Path(self.last_opened or Path.home() / "tickets.csv")
        excel = source.suffix.lower() in XLSX  # a workbook's tickets go back out as a workbook by default
        suggestion = source.with_name(f"{source.stem}-labelled{'.xlsx' if excel else '.csv'}")
        filters = [CSV_FILTER, EXCEL_FILTER]
        path, chosen = QFileDialog.getSaveFileName(
            self.parent, "Export labelled tickets", str(suggestion), ";;".join(filters), filters[excel]
        )
        if path and not Path(path).suffix:  # the extension decides; a bare name takes the chosen filter's
            path += ".xlsx" if chosen == EXCEL_FILTER else ".csv"
        if path:
            self.export(path)

    def export(self, path: str) -> bool:
        """Every row, in table order, atomically, with the user's normal file permissions. A workbook is
        written on the file thread from a snapshot of the rows (seconds for 100,000 rows); the status bar
        says when it is done. False: refused or failed at once (said)."""
        table, profile = self.session.table, self.session.prompt_in_use
        read = {"ticket file open in this window": self.session.ticket_files, "prompt file in use": self.prompt_file()}
        try:  # as classify's --out: never a file the window reads (the tickets, the prompt), a folder or a device
            if check_output(path, read, "The file") is None:
                raise ValueError(f"{shown(path)} is standard output, not a file; give a file name.")
        except ValueError as exc:
            self.warn("Export refused", str(exc))
            return False
        except OSError as exc:  # a link another user planted in a shared folder
            self._failed(path, exc)
            return False
        prompt_hash = profile.content_hash() if profile else ""
        names = self.session.field_names  # a prompt with several fields: <field>_label and so on, as classify
        columns = [field_cells(self.session.field_table(i), len(table)) for i in range(len(names))]
        try:
            if output_format(path) == "xlsx":  # .xls/.xlsm refused; any other name is CSV
                sheet = self.last_sheet or None  # the input workbook's ("Messages"), not a name of ours
                if names:
                    workbook = fields_workbook(table, names, columns, prompt_hash, sheet).snapshot()
                else:
                    workbook = ExcelExport(table, prompt_hash, self.session.compares_baseline, sheet).snapshot()
                self.notify(f"Exporting {counted(len(table), 'ticket')} to {path}…", 0)
                job = self.session.in_background(workbook.write, path)
                job.add_done_callback(lambda done: self._exported(path, len(table), done))
                return True
            if names:
                labelled = min(write_field_results(path, table, names, columns, prompt_hash))
            else:
                labelled = write_results(path, table, prompt_hash, self.session.compares_baseline)
        except (OSError, ValueError) as exc:  # ValueError: more rows than a workbook holds
            self._failed(path, exc)
            return False
        self._said_exported(path, len(table), labelled)
        return True

    def _exported(self, path: str, rows: int, done: asyncio.Future[int]) -> None:
        if done.cancelled():
            return
        exc = done.exception()
        if exc is None:
            self._said_exported(path, rows, done.result())
        elif isinstance(exc, OSError | ValueError):
            self._failed(path, exc)
        else:
            raise exc

    def _said_exported(self, path: str, rows: int, labelled: int) -> None:
        tail = f" ({rows - labelled} without a label)" if rows > labelled else ""
        self.notify(f"Exported {counted(rows, 'ticket')} to {path}{tail}.", 10000)

    def _failed(self, path: str, exc: OSError | ValueError) -> None:
        if isinstance(exc, OSError) and exc.strerror:
            self.warn("Export failed", f"Cannot write {shown(path)}: {exc.strerror}; nothing was overwritten.")
        else:
            self.warn("Export failed", str(exc))


def export_question(counts: ExportCounts) -> str:
    """What the export is about to write that the lead may not expect ("" nothing): tickets without a
    label, and labels the prompt version in use has not scored yet (mid re-label)."""
    parts = []
    if counts.unlabelled:
        parts.append(
            f"{counts.unlabelled} of {counted(counts.tickets, 'ticket')} {plural(counts.unlabelled, 'is', 'are')} "
            f"not labelled yet; {plural(counts.unlabelled, 'it is', 'they are')} exported with an empty label and "
            "the reason."
        )
    if counts.ahead:
        parts.append(
            f"{counts.ahead} of {counted(counts.tickets, 'ticket')} {plural(counts.ahead, 'is', 'are')} not read by "
            f"the language model yet; {plural(counts.ahead, 'it is', 'they are')} exported with the classifier's "
            'first-pass label (label_source "first pass").'
        )
    return " ".join(parts) + " Export now?" if parts else ""


def _mnemonic(i: int) -> str:
    """The i-th recent file's access key: &1 to &9, &0, then letters (the list is short)."""
    keys = "1234567890abcdefghijklmnopqrstuvwxyz"
    return f"&{keys[i]}" if i < len(keys) else ""


def running_text(run: RunStatus) -> str:
    """What is still running, in words: with the first pass ahead, every ticket has a label already."""
    if run.classified > run.labelled:
        ticket = plural(run.remaining, "ticket")
        return f"The language model is still reading {run.remaining:,} {ticket} (each has the classifier's label)."
    return f"Labelling is still running ({run.remaining:,} {plural(run.remaining, 'ticket')} to go)."
