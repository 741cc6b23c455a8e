"""Where the main window first appears: the default size, or the geometry saved last time, made to fit the
screen it lands on. A 1280x720 default overflows a 1024x640 laptop, and a geometry saved on a larger or a
since-unplugged monitor can leave the window partly off screen, its title bar out of reach."""

from __future__ import annotations

from PySide6.QtCore import QMargins, QRect, QSize
from PySide6.QtGui import QGuiApplication, QScreen

DEFAULT_SIZE = QSize(1280, 720)
# The window manager's frame is unknown until the window is shown; reserve a typical title bar and border.
FRAME_ESTIMATE = QMargins(4, 32, 4, 4)


def fit_rect(rect: QRect, available: QRect, frame: QMargins = FRAME_ESTIMATE) -> QRect:
    """``rect`` (the client area) shrunk and moved so that it, with its ``frame`` around it, lies inside
    ``available``; a rect that already fits is returned unchanged."""
    outer = rect.marginsAdded(frame)
    width = min(outer.width(), available.width())
    height = min(outer.height(), available.height())
    left = min(max(outer.left(), available.left()), available.left() + available.width() - width)
    top = min(max(outer.top(), available.top()), available.top() + available.height() - height)
    return QRect(left, top, width, height).marginsRemoved(frame)


def screen_for(rect: QRect, fallback: QScreen | None) -> QScreen | None:
    """The screen under the rect's centre (a saved geometry names where it was), else the fallback."""
    return QGuiApplication.screenAt(rect.center()) or fallback or QGuiApplication.primaryScreen()


def first_size(screen: QScreen | None, size: QSize = DEFAULT_SIZE) -> QSize:
    """The default size, smaller where the screen's free area (less a frame) is smaller."""
    if screen is None:
        return size
    room = screen.availableGeometry().marginsRemoved(FRAME_ESTIMATE).size()
    return size.boundedTo(room)


def on_screen(rect: QRect, fallback: QScreen | None, frame: QMargins = FRAME_ESTIMATE) -> QRect:
    """A restored window geometry fitted to the free area of the screen it was saved on (or the fallback's
    when that screen is gone), so the whole window, title bar included, is on screen."""
    screen = screen_for(rect, fallback)
    return rect if screen is None else fit_rect(rect, screen.availableGeometry(), frame)
