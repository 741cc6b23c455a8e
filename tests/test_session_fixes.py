"""Bugs the session's old shape allowed, each pinned on the fake engine in milliseconds."""

from __future__ import annotations

import asyncio
import threading

from fake_engine import FakeEngine
from test_session import PROFILE, other, rows, until

from triage_gui.engine.learning import _heads as learning
from triage_gui.engine.learning import _teacher as teacher
from triage_gui.session.session import Session


def test_clear_cancels_a_pending_fit_of_the_old_file(monkeypatch):
    """A fit of the old file, still running when Clear is pressed, must not land on the new table."""
    entered, hold = threading.Event(), threading.Event()
    real_fit = learning.fit_all

    def held_fit(*args, **kwargs):
        if not hold.is_set():
            entered.set()
            hold.wait(10)
        return real_fit(*args, **kwargs)

    applied: list[tuple[int, int]] = []  # (rows fitted, rows loaded) of every fit put on the table
    real_apply = teacher.apply_fit

    def recorded_apply(table, fit, rows, version, *args):
        applied.append((len(fit.probs), len(table)))
        return real_apply(table, fit, rows, version, *args)

    async def body():
        fake = FakeEngine()
        session = Session(fake.as_engine(), device="cpu", batch_size=4)
        failures: list[object] = []
        asyncio.get_running_loop().set_exception_handler(lambda loop, ctx: failures.append(ctx.get("exception")))
        try:
            session.set_prompt(PROFILE)
            session.load_model("fake-model")
            session.add_rows(rows(40, "old"))
            await until(lambda: session.teaching.status.state == "ready" and not session.busy)
            monkeypatch.setattr(learning, "fit_all", held_fit)
            monkeypatch.setattr(teacher, "apply_fit", recorded_apply)
            session.set_prompt(other("Second version."))  # its preparation fits the old file's 40 rows
            await until(entered.is_set, 5)
            session.clear()
            await asyncio.sleep(0.01)
            session.add_rows(rows(3, "new"))
            await until(lambda: session.table.count_scored() == 3, 5)
            hold.set()
            await until(lambda: not session.busy)
            await asyncio.sleep(0.05)
            assert not failures, failures
            assert applied and all(fitted <= loaded for fitted, loaded in applied), applied
            fit = session.teaching.last_fit
            assert fit is not None and len(fit.probs) == 3  # the new file's own head, not the old file's
            assert session.teaching.status.state == "ready"
        finally:
            hold.set()
            await session.close()
            session.join_threads()

    asyncio.run(asyncio.wait_for(body(), 30))


def test_tickets_pasted_right_after_clear_are_labelled():
    """Clear cancels the run; a paste in the same breath must start a new one, not wait on the cancelled."""

    async def body():
        fake = FakeEngine(batch_seconds=0.01)
        session = Session(fake.as_engine(), device="cpu", batch_size=4, encoder="none")
        try:
            session.set_prompt(PROFILE)
            session.load_model("fake-model")
            session.add_rows(rows(40, "old"))
            await until(lambda: session.table.count_scored() >= 4)
            session.clear()
            session.add_rows(rows(6, "new"))
            await until(lambda: not session.busy)
            assert session.table.count_scored() == 6
            assert session.run_status.state == "done"
        finally:
            await session.close()
            session.join_threads()

    asyncio.run(asyncio.wait_for(body(), 30))
