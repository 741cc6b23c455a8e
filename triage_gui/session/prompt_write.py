"""One background write of the prompt file, from its capture on the loop's thread to its landing there.

The taught set's writes run on the document's writer thread. A Save, an Open or closing the window writes
on the loop's thread and must come after the write in flight, never beside it: the write in flight either
never starts (withdrawn: what it carried goes with the loop's write) or lands, and then its bookkeeping is
done before the loop's write reads what this window last wrote. Cancelling the task that awaited it left
the write landing with its bookkeeping lost, and the next merge read this window's own change as another
window's (teach a ticket, forget it at once, close: the ticket was back in the file; forget one, Ctrl+Z at
once, close: it was gone). ``lock`` orders the thread's start against the loop's thread withdrawing it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..engine.files import refuse_read_only
from ..engine.prompt import GaveUp, Merged, PromptProfile, locked, merge, read_current

# A write of the versions or the checks alone carries the taught set the file holds *when the write is
# taken*: copied when it was asked for, during a taught write still on its way, it was the set before
# that write, and the merge read the difference as tickets forgotten (five checks came back after a
# restart with none of the five taught tickets: "taught tickets were taken back (may have changed)").
AS_SAVED: list[tuple[str, str]] = []


@dataclass(eq=False)
class PromptWrite:
    """See the module docstring."""

    path: Path
    base: PromptProfile  # what was last read or written there
    ours: PromptProfile  # what to write
    taught: list[tuple[str, str]]  # the taught set it carries (AS_SAVED: the file's, as saved)
    started: bool = False
    withdrawn: bool = False  # it never writes (withdrawn before it started, or gave up waiting for the lock)
    give_up: bool = False  # asked to stop waiting for the lock: the loop's thread writes instead
    settled: bool = False  # its bookkeeping is done
    merged: Merged | None = None  # what it wrote
    error: Exception | None = None  # why the file did not take it
    done: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def run(self, write_text: Callable[[Path, str], None]) -> None:
        """Re-read the file, merge, write; nothing at all once withdrawn. A read-only or unreadable file
        is left as it is (``error`` says why); a lock held past its wait likewise."""
        with self.lock:
            if self.withdrawn:
                return
            self.started = True
        try:
            with locked(self.path, "", give_up=lambda: self.give_up):  # the document says what follows
                refuse_read_only(self.path)
                merged = merge(self.base, self.ours, read_current(self.path), self.path)
                write_text(self.path, merged.profile.to_json())
                self.merged = merged
        except GaveUp:
            self.withdrawn = True
        except (OSError, ValueError) as exc:
            self.error = exc
        finally:
            self.done.set()

    def withdraw(self) -> None:
        """On the loop's thread, before it writes: the write never starts, or has ended when this returns."""
        with self.lock:
            if not self.started:
                self.withdrawn = True
        if not self.withdrawn:
            self.give_up = True  # one still waiting for another program's lock stops at once
            self.done.wait()
