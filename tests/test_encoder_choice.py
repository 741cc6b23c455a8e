"""The sentence encoder a lead chooses (issue 35): kept across restarts, embeddings kept per encoder (a
switch embeds every row again, never mixes two 384-wide encoders), the multilingual encoder's vectors the
same alone and in any batch, and the language detector's "not English" that offers it."""

from __future__ import annotations

import asyncio
from collections import Counter

import numpy as np
import pytest
from fake_engine import FakeEncoder, FakeEngine
from test_session import PROFILE, idle, ready, rows

from triage_gui.engine.learning import embed_table
from triage_gui.engine.model import E5_SMALL, MINILM, canonical_encoder
from triage_gui.engine.table import NewRow, TicketTable, detect_languages, not_english
from triage_gui.session.session import Session


class Shifted(FakeEncoder):
    """Another encoder of the same width as :class:`FakeEncoder`: its vectors are the fake's, negated."""

    name = "shifted-encoder"
    key = "shifted"

    def encode(self, texts) -> np.ndarray:
        return -super().encode(texts)


def table_of(texts: list[str]) -> TicketTable:
    table = TicketTable()
    table.add([NewRow({"text": t}, t) for t in texts])
    return table


FeatureStore = type(TicketTable().embeddings)  # the table's store (private to the table part)
TEXTS = [f"my card number {i} was charged twice" if i % 2 else f"cannot log in to account {i}" for i in range(40)]


def test_switching_encoder_embeds_every_row_again_and_keeps_none_of_the_old_vectors():
    fake = FakeEngine()
    first, second = FakeEncoder(fake), Shifted(fake)
    assert first.dim == second.dim  # keyed by width alone, these two mixed
    table = table_of(TEXTS)
    assert embed_table(first, table) == len(TEXTS)
    assert embed_table(second, table) == len(TEXTS)  # before: 0 (every row counted as embedded)
    got = table.embeddings.get(np.arange(len(TEXTS)))
    want = FeatureStore()
    want.put(np.arange(len(TEXTS)), second.encode(TEXTS))
    np.testing.assert_array_equal(got, want.get(np.arange(len(TEXTS))))
    assert table.embedded_mask().all()


def test_a_store_holds_one_encoders_features():
    store = FeatureStore()
    store.put(np.arange(3), np.ones((3, 4), np.float32), key="a")
    store.put(np.array([1]), np.full((1, 4), -1, np.float32), key="b")
    assert store.key == "b"
    assert store.present(3).tolist() == [False, True, False]  # rows 0 and 2 were the other encoder's
    assert np.isnan(store.get(np.array([0, 2]))).all()


def test_the_session_embeds_every_row_again_after_the_encoder_changes():
    async def body() -> None:
        fake = FakeEngine()
        made: list[str] = []

        def load_encoder(spec: str):
            made.append(spec)
            return Shifted(fake) if spec == E5_SMALL else FakeEncoder(fake)

        engine = fake.as_engine()
        engine.load_encoder = load_encoder
        session = Session(engine, device="cpu", batch_size=4)
        try:
            await ready(session, PROFILE)
            session.add_rows(rows(24))
            await idle(session)
            n = len(session.table)
            before = session.table.embeddings.get(np.arange(n))
            labels = [session.table.label(r) for r in range(n)]
            fake.encoded.clear()
            assert session.set_encoder(E5_SMALL)
            assert not session.set_encoder(E5_SMALL)  # the one in use: nothing to do
            await idle(session)
            assert made == [MINILM, E5_SMALL] or made == ["bundled", E5_SMALL]
            assert all(fake.encoded.get(f"ticket {i}") == 1 for i in range(24))  # every row, once
            after = session.table.embeddings.get(np.arange(n))
            assert session.table.embedded_mask().all()
            np.testing.assert_allclose(after, -before, atol=1e-2)  # the new encoder's, on every row
            # the other encoder's vectors are this one's mirrored, prompt's examples too: the same labels, from
            # the new encoder's own centring (never the mean of the rows the old one embedded)
            assert [session.table.label(r) for r in range(n)] == labels
        finally:
            await session.close()
            session.join_threads()

    asyncio.run(asyncio.wait_for(body(), 30))


def test_the_encoder_chosen_in_the_window_is_kept_across_restarts(window, monkeypatch):
    from triage_gui.gui.settings import AppSettings

    window.app_actions.use_encoder(E5_SMALL)
    assert window.session.encoder_spec == E5_SMALL
    window.settings.sync()
    assert AppSettings().get_encoder() == E5_SMALL  # what the next start's window gives its session
    window.settings.set("encoder", "/no/such/folder")
    window.settings.sync()
    again = AppSettings()
    assert again.get_encoder() == MINILM and any("encoder" in note for note in again.notes)


def test_the_model_dialog_offers_the_encoders_and_returns_the_one_chosen(qtbot, monkeypatch):
    from triage_gui.gui import dialogs

    dialog = dialogs.ModelDialog("bundled", None, MINILM)
    qtbot.addWidget(dialog)
    names = [dialog.encoder.itemData(i) for i in range(dialog.encoder.count())]
    assert names == [MINILM, E5_SMALL] and dialog.encoder.currentData() == MINILM
    dialog.encoder.setCurrentIndex(names.index(E5_SMALL))
    monkeypatch.setattr(dialogs.ModelDialog, "exec", lambda self: 1)
    monkeypatch.setattr(dialogs, "ModelDialog", lambda *a: dialog)
    assert dialogs.choose_model(None, "bundled", MINILM) == ("bundled", E5_SMALL)


def sample_counts(texts: list[str]) -> dict[str, int]:
    """Tickets per detected language, as the table's language column counts them."""
    return dict(Counter(detect_languages(texts)))


def test_not_english_tells_a_german_file_from_an_english_one_from_a_quarter_on():
    """A quarter or more not in English is offered (NOT_ENGLISH_SHARE: about +7 points there, measured); 36 %
    German was not offered when it took a half, though e5-small took those tickets' queue from 59 % to 67 %."""
    german = ["Meine Karte wurde zweimal belastet", "Ich kann mich nicht anmelden", "Wo bleibt meine neue Karte?"]
    english = ["My card was charged twice", "I cannot log in", "Where is my new card?"]
    assert not_english(sample_counts(german * 10)) == "Most of these tickets are not in English (30 German)"
    assert not_english(sample_counts(english * 10)) == "" and not_english(sample_counts([])) == ""
    said = not_english(sample_counts(german + english * 2))
    assert said == "33 % of these tickets are not in English (6 English, 3 German)"
    assert not_english(sample_counts(german + english * 4)) == ""  # a fifth


def test_spanish_and_italian_tickets_with_english_looking_words_are_not_english():
    # "no", "a", "in", "me" are on the English word list the hand heuristic used: it read these as English
    # and never offered the multilingual encoder; the detector reads their language.
    spanish = ["No puedo entrar a mi cuenta desde ayer", "No me llega el codigo a mi telefono"]
    italian = ["Non riesco a pagare in negozio con la carta", "Il bonifico in uscita non è arrivato"]
    counts = sample_counts(spanish * 5 + italian * 5)
    assert counts == {"es": 10, "it": 10} and not_english(counts)
    assert not not_english({"en": 8, "de": 2, "": 40})  # unknown ("ok", "ATM") counts for nothing
    assert not not_english({"": 12})


@pytest.fixture(scope="module")
def e5():
    from triage_gui.engine.model import load_encoder

    return load_encoder(E5_SMALL)


def test_the_multilingual_encoder_gives_a_text_the_same_vector_alone_and_in_any_batch(e5):
    texts = [*TEXTS[:9], "Meine Karte wurde zweimal belastet", "", "x" * 3000, "bad \ud800 surrogate \0 nul"]
    together = e5.encode(texts, batch_size=64)
    assert together.shape == (len(texts), 384) and np.isfinite(together).all()
    for size in (1, 2, 5):
        np.testing.assert_array_equal(e5.encode(texts, batch_size=size), together)
    np.testing.assert_array_equal(e5.encode(texts[::-1])[::-1], together)
    np.testing.assert_array_equal(np.stack([e5.encode([t])[0] for t in texts]), together)
    assert e5.key.startswith("e5-small:") and e5.name == "multilingual-e5-small"


def german_file(tmp_path):
    german = ["Meine Karte wurde zweimal belastet", "Ich kann mich nicht anmelden", "Wo bleibt meine neue Karte?"]
    path = tmp_path / "tickets.csv"
    path.write_text("text\n" + "".join(f"{german[i % 3]} ({i})\n" for i in range(12)), encoding="utf-8")
    return path


def test_a_mostly_german_file_gets_the_multilingual_encoder_offered_over_the_table_one_click_away(
    qtbot, window, tmp_path
):
    """The offer was a status-bar line ending "(Model › Choose model…)", cut at 1024 px and gone after 30 s
    (walkthrough W4): now a line over the table whose button switches, no dialog."""
    path = german_file(tmp_path)
    offer = window.language_offer
    window.session.open_file(path)
    qtbot.waitUntil(lambda: not offer.isHidden(), timeout=10_000)
    assert "not in English" in offer.label.text() and "multilingual-e5-small" in offer.use_button.text()
    assert window.last_message is None  # never a dialog
    offer.use_button.click()
    assert offer.isHidden() and canonical_encoder(window.session.encoder_spec) == E5_SMALL
    assert window.statusBar().currentMessage().startswith("Sentence encoder: multilingual-e5-small")
    # and the model's line names it for good, once the message has gone (W14: nothing did)
    assert " · multilingual-e5-small · " in window.model_status.text()
    assert window.model_status.toolTip().endswith("sentence encoder: multilingual-e5-small")
    window.statusBar().clearMessage()
    window.session.open_file(path, replace=True)  # with it in use, nothing more is offered
    qtbot.waitUntil(lambda: window.statusBar().currentMessage().startswith("tickets.csv:"), timeout=10_000)
    assert offer.isHidden()


def test_a_file_a_third_german_is_offered_the_multilingual_encoder_and_told_the_share(qtbot, window, tmp_path):
    """W14: 113 IT tickets, 36 % German, got no offer (it took a half), though e5-small took their queue from 59 %
    to 67 %: from a quarter on the offer shows, saying how many are not English."""
    german = ["Meine Karte wurde zweimal belastet", "Ich kann mich nicht anmelden", "Wo bleibt meine neue Karte?"]
    english = ["My card was charged twice", "I cannot log in to the app", "Where is my new card?"]
    texts = [f"{(german if i % 3 == 0 else english)[i % 3]} ({i})" for i in range(12)]
    path = tmp_path / "mixed.csv"
    path.write_text("text\n" + "".join(f"{t}\n" for t in texts), encoding="utf-8")
    offer = window.language_offer
    window.session.open_file(path)
    qtbot.waitUntil(lambda: not offer.isHidden(), timeout=10_000)
    assert offer.label.text() == (
        "33 % of these tickets are not in English (8 English, 4 German): multilingual-e5-small labels them better."
    )


def test_the_multilingual_offer_reads_whole_at_1024_and_not_now_or_the_model_dialog_take_it_away(
    qtbot, window, tmp_path
):
    """At 1280x720 the status-bar line was cut after "(Model >…" (walkthrough), at 1024 px W4 saw the menu path
    cut again: the offer over the table wraps instead."""
    window.resize(1024, 640)
    offer = window.language_offer
    window.session.open_file(german_file(tmp_path))
    qtbot.waitUntil(lambda: not offer.isHidden(), timeout=10_000)
    qtbot.wait(50)
    label = offer.label
    assert label.height() >= label.heightForWidth(label.width())  # every word shown (wrapped if need be)
    assert offer.use_button.width() >= offer.use_button.sizeHint().width()  # the button's text whole
    assert offer.width() <= window.tickets.width()
    offer.later_button.click()  # Not now
    assert offer.isHidden()
    offer.offer(True)
    window.app_actions.use_encoder(E5_SMALL)  # the model dialog's route
    assert offer.isHidden()
