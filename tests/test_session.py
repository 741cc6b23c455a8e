"""The session layer with a fake engine: supersede, cancel, stop and resume, failures, in milliseconds."""

from __future__ import annotations

import asyncio
import csv

import pytest
from fake_engine import FakeEngine

from triage_gui.engine.prompt import Example, Label, PromptProfile
from triage_gui.engine.table import NewRow
from triage_gui.session.session import Session

PROFILE = PromptProfile(
    "Route the ticket.", [Label("billing", "money"), Label("technical", "broken"), Label("account", "login")]
)


def other(instruction: str) -> PromptProfile:
    return PromptProfile(instruction, PROFILE.labels, [Example("refund please", "billing")])


def rows(n: int, prefix: str = "ticket") -> list[NewRow]:
    return [NewRow({"text": f"{prefix} {i}"}, f"{prefix} {i}") for i in range(n)]


async def until(condition, timeout: float = 30.0) -> None:
    end = asyncio.get_running_loop().time() + timeout
    while not condition():
        if asyncio.get_running_loop().time() > end:
            raise AssertionError("condition not reached")
        await asyncio.sleep(0.002)


def run(test):
    """Run an async test body with a fresh session on a plain asyncio loop; close it afterwards."""

    def wrapper(*args, **kwargs):
        async def body():
            fake = FakeEngine()
            session = Session(fake.as_engine(), device="cpu", batch_size=4)
            try:
                await test(session, fake, *args, **kwargs)
            finally:
                await session.close()
                session.join_threads()

        asyncio.run(asyncio.wait_for(body(), 30))

    wrapper.__name__ = test.__name__
    return wrapper


async def ready(session: Session, profile: PromptProfile = PROFILE) -> None:
    session.set_prompt(profile)
    session.load_model("fake-model")
    await until(lambda: session.prompt_status.state == "ready")


async def idle(session: Session) -> None:
    await until(lambda: not session.busy)


@run
async def test_rows_are_labelled_in_order_and_each_only_once(session, fake):
    await ready(session)
    session.add_rows(rows(30))
    await idle(session)
    assert session.table.count_scored() == 30
    tickets = {k: v for k, v in fake.scored.items() if k[1].startswith("ticket")}  # not the prompt's examples
    assert all(count == 1 for count in tickets.values()) and len(tickets) == 30
    assert session.run_status.state == "done" and session.run_status.labelled == 30
    assert session.run_status.eta_seconds is None


@run
async def test_saving_twice_quickly_applies_only_the_newest_prompt(session, fake):
    await ready(session)
    session.add_rows(rows(8))
    await idle(session)
    fake.build_gate.clear()  # hold the first rebuild on the engine thread
    session.set_prompt(other("First version."))
    await asyncio.sleep(0.01)
    session.set_prompt(other("Second version."))
    fake.build_gate.set()
    await idle(session)
    assert session.profile.instruction == "Second version."
    assert [p.instruction for _, p in session.versions] == ["Route the ticket.", "Second version."]
    salt = other("First version.").content_hash()
    assert not any(key[0] == salt for key in fake.scored)  # the superseded prompt labelled nothing
    assert session.table.count_scored() == 8


@run
async def test_saving_an_unchanged_prompt_does_nothing(session, fake):
    await ready(session)
    session.add_rows(rows(5))
    await idle(session)
    builds = len(fake.builds)
    assert session.set_prompt(PromptProfile(PROFILE.instruction, PROFILE.labels, name="renamed")) is False
    await idle(session)
    assert len(fake.builds) == builds
    assert all(count == 1 for count in fake.scored.values())


@run
async def test_a_failed_rebuild_keeps_the_previous_prompt_labelling(session, fake):
    await ready(session)
    scorer = session.scorer
    session.set_prompt(other("FAIL: far too long"))
    await until(lambda: session.prompt_status.state == "failed")
    assert "no room for a ticket" in session.prompt_status.message
    assert session.scorer is scorer and session.profile is PROFILE
    session.add_rows(rows(6))
    await idle(session)
    assert session.table.count_scored() == 6  # still labelling with the cache that works
    assert session.set_prompt(other("FAIL: far too long")) is True  # retrying the failed one is allowed


@run
async def test_stop_keeps_finished_labels_and_resume_labels_only_the_rest(session, fake):
    await ready(session)
    fake.batch_seconds = 0.02
    session.add_rows(rows(60))
    await until(lambda: session.table.count_scored() >= 8)
    session.stop()
    assert session.run_status.state == "stopped" and session.run_status.eta_seconds is None
    await idle(session)
    done = session.table.count_scored()
    await asyncio.sleep(0.1)
    assert session.table.count_scored() == done < 60  # nothing more arrives after Stop
    assert session.run_status.state == "stopped"
    session.resume()
    await idle(session)
    assert session.table.count_scored() == 60
    assert all(count == 1 for count in fake.scored.values())  # nothing finished was redone


@run
async def test_stop_keeps_the_batch_in_flight_and_starts_nothing_after_it(session, fake):
    await ready(session)
    session.add_rows(rows(3))
    await idle(session)
    fake.gate.clear()  # the next batch blocks inside the engine thread
    session.add_rows(rows(8, "late"))
    await until(lambda: session.running)
    await asyncio.sleep(0.02)
    session.stop()
    fake.gate.set()
    await idle(session)
    assert session.table.count_scored() == 4  # the one-ticket batch in flight is kept; nothing else ran
    assert session.run_status.state == "stopped" and session.run_status.remaining == 7


@run
async def test_a_new_prompt_drops_the_batch_in_flight(session, fake):
    await ready(session)
    fake.gate.clear()
    session.add_rows(rows(4))
    await until(lambda: session.running)
    session.set_prompt(other("Newer prompt."))
    fake.gate.set()
    await idle(session)
    old_salt = PROFILE.content_hash()
    assert session.table.version == 1 and session.table.count_scored() == 4
    assert all(session.table.scored(i) for i in range(4))
    old = [key for key in fake.scored if key[0] == old_salt and key[1].startswith("ticket")]
    assert len(old) <= 1  # at most the one-ticket batch in flight


@run
async def test_baseline_toggle_keeps_labels_and_runs_only_missing_baselines(session, fake):
    await ready(session)
    session.add_rows(rows(10))
    await idle(session)
    labels = [session.table.label(i) for i in range(10)]
    session.set_baseline(True)
    await idle(session)
    assert [session.table.label(i) for i in range(10)] == labels
    assert all(count == 1 for count in fake.scored.values())  # labels were not recomputed
    assert len(fake.full) == 10 and all(session.table.agree(i) for i in range(10))
    session.set_baseline(False)
    session.set_baseline(True)
    await idle(session)
    assert all(count == 1 for count in fake.full.values())  # baselines already done are kept


@run
async def test_rows_added_while_labelling_are_picked_up(session, fake):
    await ready(session)
    fake.batch_seconds = 0.01
    session.add_rows(rows(20))
    await until(lambda: session.table.count_scored() >= 2)
    session.add_rows(rows(20, "more"))
    await idle(session)
    assert session.table.count_scored() == 40
    assert all(count == 1 for count in fake.scored.values())


@run
async def test_a_new_prompt_marks_labels_stale_until_replaced(session, fake):
    await ready(session)
    session.add_rows(rows(12))
    await idle(session)
    fake.gate.clear()
    session.set_prompt(other("Version two."))
    await until(lambda: session.prompt_status.state == "ready" and session.prompt_status.version == 1)
    assert all(session.table.stale(i) and session.table.label(i) for i in range(12))  # old labels stay visible
    fake.gate.set()
    await idle(session)
    assert not any(session.table.stale(i) for i in range(12))
    assert session.table.previous_label(0) is not None


@run
async def test_model_load_failure_keeps_the_previous_model(session, fake):
    await ready(session)
    messages = []
    session.message.connect(lambda title, text: messages.append(text))
    session.load_model("/nowhere/model.gguf")
    await until(lambda: messages)
    assert "Model file not found" in messages[0] and "Still using fake-model" in messages[0]
    assert session.model.name == "fake-model" and session.model_status.state == "ready"
    session.add_rows(rows(2))
    await idle(session)
    assert session.table.count_scored() == 2


@run
async def test_problem_rows_are_kept_but_never_scored(session, fake):
    await ready(session)
    session.add_rows([NewRow({"text": ""}, "", problem="blank ticket text"), *rows(2)])
    await idle(session)
    assert len(session.table) == 3 and session.table.label(0) is None
    assert session.run_status.total == 2 and session.run_status.labelled == 2


@run
async def test_file_is_read_in_batches_and_labelled(session, fake, tmp_path=None):
    import tempfile
    from pathlib import Path

    await ready(session)
    path = Path(tempfile.mkdtemp()) / "t.csv"
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["text", "team"])
        for i in range(1500):
            writer.writerow([f"ticket number {i}", "billing"])
    statuses = []
    session.file_changed.connect(statuses.append)
    session.open_file(path)
    await idle(session)
    assert len(session.table) == 1500 and session.table.count_scored() == 1500
    assert statuses[-1].state == "done" and "1500 rows read" in statuses[-1].summary
    assert session.table.columns == ["text", "team"]
    session.open_file(path, replace=True)
    await idle(session)
    assert len(session.table) == 1500  # replaced, not appended


@pytest.mark.parametrize("n", [1, 5])
def test_session_closes_its_threads(n):
    async def body():
        session = Session(FakeEngine().as_engine(), device="cpu")
        await ready(session)
        session.add_rows(rows(n))
        await session.close()
        session.join_threads()
        return session

    session = asyncio.run(body())
    assert session.engine_thread._pool._shutdown


@run
async def test_the_loader_thread_ends_after_a_load_and_a_second_load_works(session, fake):
    """Only the engine thread may outlive a load: a live loader thread kept its OpenMP team and slowed
    labelling by a third on two cores (see session.workers)."""
    import threading

    def loaders() -> list[str]:
        return [t.name for t in threading.enumerate() if t.name.startswith("model-loader")]

    await ready(session)
    await until(lambda: not loaders(), timeout=5)
    session.load_model("fake-model-2")
    await until(lambda: session.model.name == "fake-model-2" and session.prompt_status.state == "ready")
    await until(lambda: not loaders(), timeout=5)
    session.add_rows(rows(3))
    await idle(session)
    assert session.table.count_scored() == 3
    assert any(t.name.startswith("engine") for t in threading.enumerate())


def topical(n: int) -> list[NewRow]:
    words = {"billing": "refund invoice", "technical": "crash error", "account": "password login"}
    out = []
    for i in range(n):
        label = PROFILE.label_names[i % 3]
        text = f"{words[label]} question number {i}"
        out.append(NewRow({"text": text, "team": label}, text))
    return out


@run
async def test_teaching_relabels_the_other_rows_without_another_forward(session, fake):
    await ready(session)
    session.add_rows(topical(90))
    await idle(session)
    forwards = sum(fake.scored.values())
    table = session.table
    session.teaching.teach([0, 3, 6], "billing")
    session.teaching.teach([1, 4, 7], "technical")
    session.teaching.teach([2, 5, 8], "account")
    await idle(session)
    assert sum(fake.scored.values()) == forwards  # relabelling needed no model forward
    assert [table.source(i) for i in range(9)] == ["taught"] * 9
    # the classifier's labels; with 9 taught the language model's heads weigh 0 (no evidence yet), so the label
    # of a row it read is the first pass's, and its source says so
    assert {table.source(i) for i in range(9, 90)} == {"first pass"} and not table.refined
    truth = [PROFILE.label_names[i % 3] for i in range(90)]
    right = sum(table.label(i) == truth[i] for i in range(9, 90))
    assert right >= 75  # the words taught carry over to the untaught rows
    status = session.teaching.status
    assert status.state == "ready" and status.taught == 9 and "encoder" in status.weights
    assert set(table.out_of_fold) == set(range(9))  # taught rows are scored out of fold


@run
async def test_taught_set_survives_a_new_prompt_and_forget_undoes(session, fake):
    await ready(session)
    session.add_rows(topical(30))
    await idle(session)
    session.teaching.teach([0], "account")
    await idle(session)
    assert session.table.label(0) == "account" and session.table.source(0) == "taught"
    session.set_prompt(other("A second version."))
    await idle(session)
    assert session.table.taught_label(0) == "account"  # still taught under the new version
    assert session.teaching.items() == [(session.table.texts[0], "account")]
    session.teaching.teach([0], None)
    await idle(session)
    assert session.table.taught_label(0) is None and session.teaching.items() == []


@run
async def test_taught_tickets_that_are_not_loaded_are_scored_for_their_features(session, fake):
    await ready(session)
    session.teaching.restore([("refund invoice from last week", "billing"), ("crash error at start", "technical")])
    session.add_rows(topical(12))
    await idle(session)
    assert ("refund invoice from last week" in fake.scored.__repr__()) or any(
        key[1] == "refund invoice from last week" for key in fake.scored
    )
    assert session.teaching.status.taught == 2


@run
async def test_a_repaired_prefix_is_reported_with_the_prompt(session, fake):
    await ready(session)
    assert session.prompt_status.notice == ""
    session.set_prompt(other("DAMAGED store entry for this prompt."))
    await until(lambda: session.prompt_status.state == "ready" and session.prompt_status.version == 1)
    assert session.prompt_status.notice == "stored prefix damaged; recomputed"


@run
async def test_calibration_can_be_turned_off_and_on_again(session, fake):
    await ready(session)
    session.add_rows(rows(6))
    await idle(session)
    session.set_calibration(False)
    await idle(session)
    assert fake.calibrated == [True, False] and session.table.version == 1
    assert session.table.count_scored() == 6  # re-labelled with the raw prompt scores
    session.set_calibration(False)  # unchanged: nothing rebuilt
    await idle(session)
    assert fake.calibrated == [True, False]


@run
async def test_resume_before_the_batch_in_flight_at_stop_lands_keeps_it(session, fake):
    await ready(session)
    session.add_rows(rows(3))
    await idle(session)
    fake.gate.clear()  # the next batch is held inside the engine thread
    session.add_rows(rows(8, "late"))
    await until(lambda: session.running)
    await asyncio.sleep(0.02)
    session.stop()
    assert session.run_status.finishing == 1  # the one-ticket batch in flight, said, still to land
    session.resume()
    fake.gate.set()
    await idle(session)
    assert session.table.count_scored() == 11 and session.run_status.state == "done"
    assert all(count == 1 for count in fake.scored.values())  # the batch in flight was not thrown away and redone
