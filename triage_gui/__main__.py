"""``python -m triage_gui``: the window with no arguments, ``classify`` and ``bench`` headless."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
