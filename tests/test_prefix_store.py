"""Prefix keys/values stored on disk come back identical, and anything wrong with the store costs time only."""

import pytest
import torch
from helpers import banking_tickets

from triage_gui.engine import prefix_store
from triage_gui.engine.prompt import Label, PromptProfile
from triage_gui.engine.scorer import Scorer


def test_a_second_start_reads_the_prefix_back_and_scores_the_same(loaded, profile):
    computed = Scorer(loaded, profile, stored_prefix=False)
    again = Scorer(loaded, profile)
    assert again.prefix_from_disk and not computed.prefix_from_disk
    for (k0, v0), (k1, v1) in zip(computed.prefix.layers, again.prefix.layers):
        assert torch.equal(k0, k1) and torch.equal(v0, v1)
    texts = banking_tickets(4)
    for a, b in zip(computed.score_batch(texts), again.score_batch(texts)):
        assert a.logprobs == b.logprobs


def test_another_prompt_gets_its_own_entry(loaded, profile):
    other = PromptProfile("Sort these.", [Label("fraud", ""), Label("other", "")], [])
    assert prefix_store.key(loaded, Scorer(loaded, other).layout.prefix_ids) != prefix_store.key(
        loaded, Scorer(loaded, profile).layout.prefix_ids
    )


def test_a_damaged_store_entry_is_recomputed(loaded, profile):
    scorer = Scorer(loaded, profile)
    path = prefix_store._folder() / f"{prefix_store.key(loaded, scorer.layout.prefix_ids)}.safetensors"
    assert path.is_file()
    path.write_bytes(path.read_bytes()[:1000])  # truncated, as after a crash mid-copy
    rebuilt = Scorer(loaded, profile)
    assert not rebuilt.prefix_from_disk
    reference = Scorer(loaded, profile, stored_prefix=False)
    for (k0, _), (k1, _) in zip(reference.prefix.layers, rebuilt.prefix.layers):
        assert torch.equal(k0, k1)
    assert Scorer(loaded, profile).prefix_from_disk  # rewritten whole


def test_models_without_files_are_not_stored(tiny, profile):
    assert prefix_store.key(tiny, [1, 2, 3]) is None
    assert not Scorer(tiny, profile).prefix_from_disk


def test_a_prefix_computed_with_other_kernels_is_not_reused(loaded, profile, monkeypatch):
    """oneDNN and aten round differently in the last bits: a prefix from one is never mixed with the other."""
    if loaded.decoder.products == "aten":
        pytest.skip("this torch has no oneDNN: there is only one kind of stored prefix")
    ids = Scorer(loaded, profile).layout.prefix_ids
    onednn_key = prefix_store.key(loaded, ids)
    assert (prefix_store._folder() / f"{onednn_key}.safetensors").is_file()
    monkeypatch.setattr(loaded.decoder, "linear", torch.nn.functional.linear)
    aten_key = prefix_store.key(loaded, ids)
    assert aten_key != onednn_key
    (prefix_store._folder() / f"{aten_key}.safetensors").unlink(missing_ok=True)  # a dev's persistent cache
    assert not Scorer(loaded, profile).prefix_from_disk
