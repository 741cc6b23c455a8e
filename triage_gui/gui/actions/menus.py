"""Actions as data: one table (id, title, menu, key, handler, checkable, when it is enabled), and the one
loop that builds the menu bar from it, the F1 shortcut guide from the same rows, and the enablement that
follows the session's status.

Before, every QAction was built by hand and the shortcut guide was a second copy of the same facts;
nothing was disabled when it could not run, and tests reached actions through placeholder attributes.
Now a test triggers an action by its id (``window.trigger("save")``), and "what can disable Save" is
its row's ``enabled_when``. A small local dataclass rather than napari's ``app-model``: the table is
thirty rows and needs no registry, keybinding contexts or commands across windows.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMenu, QMenuBar, QWidget

Key = QKeySequence.StandardKey | str | None


@dataclass(frozen=True)
class ActionSpec:
    """One row of the table. ``menu``: the menu's title ("" for a key that a widget owns and the guide
    lists, such as 1-9 in the ticket table); ``group``: checkable rows of one group exclude each other;
    ``guide``: the line of the F1 guide (the rows with one are listed, in table order)."""

    id: str
    title: str
    menu: str
    handler: Callable[..., object] | None = None
    key: Key = None
    checkable: bool = False
    checked: bool = False
    enabled_when: Callable[[], bool] | None = None
    guide: str = ""
    guide_key: str = ""  # how the guide writes the key, where it is not the key itself ("1 – 9"); the menu
    # shows it too, beside the title, without taking the key from the widget that owns it (N, Enter, 1-9)
    tooltip: str = ""
    separator: bool = False  # a separator before this row
    widget_context: bool = False  # the key works only with focus inside the widgets it is added to
    names_field: bool = False  # it acts on the field of the column in use: its title names it (several fields)


class Actions:
    """The QActions built from a table, by id; :meth:`refresh` applies every ``enabled_when``."""

    def __init__(self, parent: QWidget, specs: Sequence[ActionSpec], bar: QMenuBar) -> None:
        self.specs = list(specs)
        self.field_name: Callable[[], str] = lambda: ""  # the field of the column in use ("": one field)
        self.by_id: dict[str, QAction] = {}
        self.menus: dict[str, QMenu] = {}
        for spec in self.specs:
            if not spec.menu:
                continue
            path = spec.menu.split("/")
            menu = self.menus.get(path[0]) or self.menus.setdefault(path[0], bar.addMenu(path[0]))
            for depth in range(1, len(path)):
                name = "/".join(path[: depth + 1])
                menu = self.menus.get(name) or self.menus.setdefault(name, menu.addMenu(path[depth]))
            if spec.separator:
                menu.addSeparator()
            self.by_id[spec.id] = self._action(parent, spec, menu)
        self.refresh()

    @staticmethod
    def _shown(spec: ActionSpec, field: str = "") -> str:
        title = f"{spec.title} ({field})" if field and spec.names_field else spec.title
        return f"{title}\t{spec.guide_key}" if spec.key is None and spec.guide_key else title

    @classmethod
    def _action(cls, parent: QWidget, spec: ActionSpec, menu: QMenu) -> QAction:
        action = QAction(cls._shown(spec), parent)
        if isinstance(spec.key, QKeySequence.StandardKey):  # all the platform's keys: Redo is Ctrl+Y and Ctrl+Shift+Z
            action.setShortcuts(spec.key)
        elif spec.key is not None:
            action.setShortcut(QKeySequence(spec.key))
        if spec.widget_context:
            action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        if spec.tooltip:
            action.setToolTip(spec.tooltip)
        if spec.checkable:
            action.setCheckable(True)
            action.setChecked(spec.checked)
        handler = spec.handler
        if handler is not None:
            if spec.checkable:
                action.toggled.connect(handler)
            else:
                action.triggered.connect(lambda _checked=False: handler())
        menu.addAction(action)
        return action

    def __getitem__(self, action_id: str) -> QAction:
        return self.by_id[action_id]

    def trigger(self, action_id: str) -> None:
        """What a click on the menu item does (nothing while it is disabled)."""
        self.by_id[action_id].trigger()

    def refresh(self) -> None:
        """Enable each action as its ``enabled_when`` says, now (called when the session's status changes), and
        name the field of the column in use in the titles of those acting on it: with a queue and a priority the
        Teach menu did not say which field *Check a random sample…* would check (W15)."""
        field = self.field_name()
        for spec in self.specs:
            if spec.enabled_when is not None and spec.id in self.by_id:
                self.by_id[spec.id].setEnabled(bool(spec.enabled_when()))
            if (
                spec.names_field
                and spec.id in self.by_id
                and self.by_id[spec.id].text() != (shown := self._shown(spec, field))
            ):
                self.by_id[spec.id].setText(shown)

    def guide(self) -> list[tuple[str, str]]:
        """The F1 guide's shortcut lines: every row with a ``guide`` text, in table order."""
        rows = []
        for spec in self.specs:
            if spec.guide:
                rows.append((spec.guide_key or key_text(spec.key), spec.guide))
        return rows


def key_text(key: Key) -> str:
    if key is None:
        return ""
    return QKeySequence(key).toString(QKeySequence.SequenceFormat.NativeText)
