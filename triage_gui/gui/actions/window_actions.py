"""The window's table of actions: every menu item, its key, what it does, when it is enabled, and the
F1 guide's line, in one place (:mod:`menus` builds the menu bar and the guide from it).

Where does Save live? Its row here (``"save"``) calls :meth:`PromptActions.save`, which asks the
:class:`PromptDocument`; ``enabled_when`` says what can disable an action; tests trigger rows by id.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtGui import QKeySequence

from ...session.evaluation import Evaluation
from ...session.session import Session
from .. import theme
from .app_actions import AppActions
from .menus import ActionSpec
from .prompt_actions import PromptActions
from .suggest_actions import SuggestActions
from .teach_actions import TeachActions
from .ticket_actions import TicketActions

K = QKeySequence.StandardKey


@dataclass(frozen=True)
class Handlers:
    """What the rows call: the areas' action objects, and the few the window itself answers."""

    tickets: TicketActions
    prompt: PromptActions
    app: AppActions
    next_ticket: Callable[[], None]
    check_sample: Callable[[], None]
    undo: Callable[[], None]
    redo: Callable[[], None]
    quit: Callable[[], object]
    guide: Callable[[], None]
    teach: TeachActions
    suggest: SuggestActions


def action_table(
    h: Handlers, session: Session, evaluation: Evaluation, calibrate: bool, scheme: str
) -> list[ActionSpec]:
    """The rows, in menu order. Enablement reads the session's status when :meth:`Actions.refresh` runs
    (on every run, file, rows, teaching and gold change, and on the window's 200 ms stats tick, which
    catches a task that ended after its last event)."""

    def loaded() -> bool:
        return session.ticket_count > 0

    def working() -> bool:
        return session.run_status.state == "running" or session.reading

    def taught() -> bool:  # in any field (Forget everything acts on the field of the column in use)
        return bool(session.taught) or any(session.field_taught())

    def has_gold() -> bool:
        return evaluation.gold is not None

    t, p, a = h.tickets, h.prompt, h.app
    rows = [
        ActionSpec("open", "&Open tickets…", "&File", t.open_dialog, K.Open, guide="Open ticket files"),
        ActionSpec("sample", "Open the sa&mple tickets", "&File", t.open_sample),
        ActionSpec("export", "&Export labelled tickets…", "&File", t.export_dialog, "Ctrl+E", enabled_when=loaded,
                   guide="Export the labelled tickets", separator=True),
        ActionSpec("new_prompt", "&New prompt", "&File", p.new_prompt, K.New, separator=True,
                   guide="Start a new prompt from one empty label (the tickets stay)"),
        ActionSpec("open_prompt", "Open &prompt…", "&File", p.open_dialog),
        ActionSpec("save", "&Save prompt", "&File", p.save, K.Save,
                   guide="Save the prompt and re-label", tooltip="Save the prompt and re-label the tickets with it"),
        ActionSpec("save_as", "Save prompt &as…", "&File", p.save_as_dialog, K.SaveAs,
                   tooltip="Save a copy of the prompt under another name, with its taught tickets"),
        ActionSpec("quit", "&Quit", "&File", h.quit, K.Quit, separator=True),
        ActionSpec("undo", "&Undo", "&Edit", h.undo, K.Undo),  # the text says what (gui.undo_actions)
        ActionSpec("redo", "&Redo", "&Edit", h.redo, K.Redo),
        ActionSpec("paste", "&Paste tickets", "&Edit", t.paste_clipboard, K.Paste, widget_context=True,
                   separator=True, guide="Paste tickets (lines, or CSV with a header)"),
        ActionSpec("clear", "Clear &tickets", "&Edit", t.clear, enabled_when=loaded),
        ActionSpec("stop", "&Stop labelling", "&Edit", session.stop, "Esc", enabled_when=working,
                   guide="Stop labelling (Resume picks up the rest)"),
        ActionSpec("add_field", "Add a fie&ld to the prompt…", "&Edit", p.add_field,
                   tooltip="Another decision per ticket (a priority beside the queue), with its own labels"),
        ActionSpec("field_left", "Mo&ve the field left", "&Edit", lambda: p.move_field(-1),
                   enabled_when=lambda: p.can_move_field(-1),
                   tooltip="The field shown in the prompt editor, one place left (the first is the main one)"),
        ActionSpec("field_right", "Move the field r&ight", "&Edit", lambda: p.move_field(1),
                   enabled_when=lambda: p.can_move_field(1),
                   tooltip="The field shown in the prompt editor, one place right"),
        ActionSpec("suggest", "Su&ggest labels…", "&Edit", h.suggest.suggest_labels, enabled_when=loaded,
                   separator=True,
                   guide="Suggest labels: group the loaded tickets by meaning, name and shape the groups"),
        ActionSpec("suggest_missing", "Suggest labels for poorly &fitted tickets…", "&Edit",
                   lambda: h.suggest.suggest_labels(True), enabled_when=loaded,
                   tooltip="Group the tickets the labels in use fit badly (low confidence) into new labels"),
        ActionSpec("next", "Go to the &next ticket to teach", "&Teach", h.next_ticket, enabled_when=loaded,
                   guide_key="N", guide="Go to the next ticket to teach (the Teach next filter lists them)",
                   names_field=True),
        ActionSpec("accept_key", "&Accept the shown label", "&Teach", h.teach.accept_selected, enabled_when=loaded,
                   guide_key="Enter",
                   guide="Accept the shown label of the selected tickets (teach it), with the ticket table focused",
                   names_field=True),
        ActionSpec("teach_keys", "&Teach a label…", "&Teach", h.teach.pick_label, enabled_when=loaded,
                   guide_key="1 – 9, 0",
                   guide="Teach the selected tickets the n-th label (0 the tenth); in the picker, type a label's "
                         "name and press Enter", names_field=True),
        ActionSpec("forget_key", "Forget what the &selected tickets were taught", "&Teach", h.teach.forget_selected,
                   enabled_when=loaded,
                   guide_key="Delete", guide="Forget what you taught the selected tickets", names_field=True),
        ActionSpec("check", "&Check a random sample…", "&Teach", h.check_sample, enabled_when=loaded,
                   tooltip="Confirm or correct 20 random tickets: the accuracy shown comes from these checks",
                   names_field=True),
        ActionSpec("learn_gold", "Learn from the &gold column", "&Teach", t.learn_from_gold, separator=True,
                   enabled_when=has_gold, names_field=True),
        ActionSpec("forget_all", "&Forget everything taught", "&Teach", h.teach.forget_all,
                   enabled_when=taught, names_field=True),
        ActionSpec("go_prompt", "Go to the &prompt editor", "&View", p.focus_editor, "Ctrl+1",
                   guide="Go to the prompt editor's instruction"),
        ActionSpec("go_tickets", "Go to the &tickets", "&View", t.focus_table, "Ctrl+2",
                   guide="Go to the ticket table"),
    ]  # fmt: skip
    for name in theme.SCHEMES:
        title = f"&{name.capitalize()}" if name != "system" else "Follow the &system"
        rows.append(
            ActionSpec(f"appearance.{name}", title, "&View/&Appearance", _scheme_handler(a, name), checkable=True,
                       checked=name == scheme)
        )  # fmt: skip
    rows += [
        ActionSpec("choose_model", "&Choose model…", "&Model", a.choose_model),
        ActionSpec("calibrate", "C&alibrate the prompt's label scores", "&Model", a.set_calibration, checkable=True,
                   checked=calibrate,
                   tooltip="Divide out the label bias the prompt gives an empty ticket (on by default)"),
        ActionSpec("guide", "&Guide and keyboard shortcuts", "&Help", h.guide, "F1"),
        ActionSpec("about", "&About Ticket Triage", "&Help", a.about),
        ActionSpec("label_key", "", "", guide_key="Double-click a label", guide="Choose the right label from a list"),
        ActionSpec("copy_key", "", "", guide_key="Ctrl+C",
                   guide="Copy the selected rows as tab-separated text with a header"),
        ActionSpec("undo_key", "", "", guide_key="Ctrl+Z / Ctrl+Shift+Z",
                   guide="Undo / redo the last teach, forget, import or learning from gold (one step each); "
                         "in the prompt editor, the last prompt edit. Edit › Undo says which."),
    ]  # fmt: skip
    return rows


def _scheme_handler(app: AppActions, scheme: str) -> Callable[[bool], None]:
    def toggled(on: bool) -> None:
        if on:
            app.set_appearance(scheme)

    return toggled
