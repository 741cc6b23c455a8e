"""Light and dark: follow the system's scheme, or the one chosen in View › Appearance.

Qt 6 applies the system's dark scheme itself where the platform reports one (Windows, macOS, GNOME and
KDE through the desktop portal). Where it reports a scheme but leaves the palette light, and when the
user picks a scheme, a Fusion palette for it is set here. Label tints are translucent, so they read
on either (tests check a 4.5:1 contrast for every label colour in both).
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

SCHEMES = ("system", "light", "dark")


def dark_palette() -> QPalette:
    palette = QPalette()
    role, group = QPalette.ColorRole, QPalette.ColorGroup
    colors = {
        role.Window: "#2b2b2e",
        role.WindowText: "#e6e6e6",
        role.Base: "#1e1e20",
        role.AlternateBase: "#2a2a2d",
        role.ToolTipBase: "#3a3a3d",
        role.ToolTipText: "#f0f0f0",
        role.Text: "#e6e6e6",
        role.Button: "#353538",
        role.ButtonText: "#e6e6e6",
        role.BrightText: "#ff6b6b",
        role.Link: "#6cb4ff",
        role.Highlight: "#2f6fbd",
        role.HighlightedText: "#ffffff",
        role.PlaceholderText: "#9a9a9e",
        role.Mid: "#4a4a4e",
        role.Dark: "#141416",
        role.Light: "#505054",
    }
    for r, color in colors.items():
        palette.setColor(r, QColor(color))
    for r in (role.Text, role.WindowText, role.ButtonText):
        palette.setColor(group.Disabled, r, QColor("#7a7a7e"))
    return palette


def focus_style(palette: QPalette) -> str:
    """A visible ring on the focused table, list or text box, in the palette's highlight colour; their frame
    otherwise. Fusion rings buttons, combos and line edits itself, but not the item views, where Tab now
    stops. The ring is as thick as frame plus padding, so focusing moves nothing."""
    ring = palette.color(QPalette.ColorRole.Highlight).name()
    frame = palette.color(QPalette.ColorRole.Mid).name()
    views = ("QTableView", "QListView", "QTreeView", "QPlainTextEdit", "QTextEdit")
    plain = ", ".join(views)
    focused = ", ".join(f"{v}:focus" for v in views)
    unfocused_rule = f"{plain} {{ border: 1px solid {frame}; padding: 1px; }}"
    return f"{unfocused_rule}\n{focused} {{ border: 2px solid {ring}; padding: 0; }}"


def system_is_dark() -> bool:
    return QGuiApplication.styleHints().colorScheme() == Qt.ColorScheme.Dark


def apply_scheme(scheme: str) -> str:
    """Apply "system", "light" or "dark"; returns the scheme now shown ("light" or "dark")."""
    app = QApplication.instance()
    if not isinstance(app, QApplication):
        return "light"
    want_dark = scheme == "dark" or (scheme == "system" and system_is_dark())
    shows_dark = app.palette().color(QPalette.ColorRole.Base).lightness() < 128
    if want_dark and not shows_dark:
        app.setPalette(dark_palette())
    elif shows_dark and not want_dark:
        app.setPalette(app.style().standardPalette())
    style = focus_style(app.palette())
    if app.styleSheet() != style:
        app.setStyleSheet(style)  # the ring's colours follow the scheme
    return "dark" if want_dark else "light"
