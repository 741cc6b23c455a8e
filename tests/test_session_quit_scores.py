"""Quitting while the language model reads keeps what it has read (W17): a lead quit with 95 of 600 tickets
read for the tone field and, at the next start, watched it read all 600 again: the scores are written for a
reopen when a run ends, and a quit cancels the run instead. The window's shutdown writes them first."""

from __future__ import annotations

import asyncio

from fake_engine import FakeEngine
from test_session import idle, ready, until
from test_session_learning import topical
from test_session_refinement import _read_tickets, _stored_engine

from triage_gui.session.session import Session


def test_a_quit_mid_reading_keeps_the_tickets_read_for_the_next_start(tmp_path):
    fake = FakeEngine(batch_seconds=0.05)

    async def body():
        session = Session(_stored_engine(fake, tmp_path), device="cpu", batch_size=4)
        await ready(session)
        session.add_rows(topical(40))
        await until(lambda: session.table.count_scored() >= 12, 20)
        session.shutdown()  # the window closing: from synchronous code, the run still going
        read_before = _read_tickets(fake)
        assert 12 <= read_before < 40

        fake.scored.clear()
        fake.batch_seconds = 0.0
        again = Session(_stored_engine(fake, tmp_path), device="cpu", batch_size=4)
        try:
            await ready(again)
            again.add_rows(topical(40))
            await idle(again)
            assert again.table.count_scored() == 40
            assert _read_tickets(fake) <= 40 - 12  # the tickets read before the quit were not read again
        finally:
            await again.close()
            again.join_threads()

    asyncio.run(asyncio.wait_for(body(), 60))
