"""Entry point of the frozen bundle: the window by default, ``classify``/``bench`` headless."""

import multiprocessing
import sys

from triage_gui.commands import main

if __name__ == "__main__":
    multiprocessing.freeze_support()
    sys.exit(main())
