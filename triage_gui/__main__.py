"""``python -m triage_gui``: the window with no arguments, ``classify`` and ``bench`` headless.

``python -m`` puts the current folder first on ``sys.path``, so a ``platformdirs.py`` (or any module we
import later) planted in whatever folder the user runs from would be imported as ours and run. That entry
is dropped before anything else is imported, unless the current folder is the one holding this package
(a source checkout run in place, where the package itself was found through it).
"""

import os
import sys


def _drop_current_folder() -> None:
    if not sys.path or sys.flags.safe_path:
        return
    first = sys.path[0]
    here = os.path.realpath(os.getcwd())
    if os.path.realpath(first or os.curdir) != here:
        return
    holder = os.path.realpath(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    if holder != here:
        del sys.path[0]


_drop_current_folder()

from triage_gui.commands import main  # noqa: E402  (after the current folder is gone from sys.path)

if __name__ == "__main__":
    sys.exit(main())
