"""Prefix keys/values stored on disk come back identical, and anything wrong with the store costs time only."""

from pathlib import Path

import pytest
import torch
from helpers import banking_tickets

from triage_gui.engine.model import _prefix_store as prefix_store
from triage_gui.engine.prompt import Label, PromptProfile
from triage_gui.engine.scoring import Scorer


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
    assert path.name in (rebuilt.prefix_problem or "")
    reference = Scorer(loaded, profile, stored_prefix=False)
    for (k0, _), (k1, _) in zip(reference.prefix.layers, rebuilt.prefix.layers):
        assert torch.equal(k0, k1)
    assert Scorer(loaded, profile).prefix_from_disk  # rewritten whole


def entry(loaded, scorer: Scorer) -> Path:
    return prefix_store._folder() / f"{prefix_store.key(loaded, scorer.layout.prefix_ids)}.safetensors"


def write_noise(path: Path) -> None:
    """Random floats over part of the stored keys/values, the file otherwise intact (the hostile sweep's test)."""
    data = bytearray(path.read_bytes())
    start = 8 + int.from_bytes(data[:8], "little")  # after the safetensors header
    noise = torch.randn(1024, generator=torch.Generator().manual_seed(7)).numpy().tobytes()
    middle = start + (len(data) - start) // 2
    data[middle : middle + len(noise)] = noise
    path.write_bytes(bytes(data))


def test_altered_values_in_a_stored_prefix_are_reported_deleted_and_never_used(loaded, profile):
    reference = Scorer(loaded, profile, stored_prefix=False)  # computes the prefix and stores it
    path = entry(loaded, reference)
    write_noise(path)
    damaged = Scorer(loaded, profile)
    assert not damaged.prefix_from_disk
    problem = damaged.prefix_problem or ""
    assert path.name in problem and "checksum" in problem
    for (k0, v0), (k1, v1) in zip(reference.prefix.layers, damaged.prefix.layers):
        assert torch.equal(k0, k1) and torch.equal(v0, v1)
    texts = banking_tickets(4)
    assert [s.logprobs for s in damaged.score_batch(texts)] == [s.logprobs for s in reference.score_batch(texts)]
    again = Scorer(loaded, profile)  # the entry was deleted and stored again, whole
    assert again.prefix_from_disk and again.prefix_problem is None


def test_read_returns_the_problem_with_no_layers(loaded, profile):
    """``read`` returns the layers or, for a damaged entry, none and the reason."""
    scorer = Scorer(loaded, profile)
    path = entry(loaded, scorer)
    write_noise(path)
    found = prefix_store.read(loaded, scorer.layout.prefix_ids)
    assert found.layers is None and found.problem and path.name in found.problem
    assert not path.exists()
    assert prefix_store.read(loaded, scorer.layout.prefix_ids) == prefix_store.Lookup()


def test_an_entry_without_a_checksum_is_not_trusted(loaded, profile):
    from safetensors.torch import save_file

    scorer = Scorer(loaded, profile)
    tensors = {}
    for i, (k, v) in enumerate(scorer.prefix.layers):
        tensors[f"k{i}"], tensors[f"v{i}"] = k.contiguous(), v.contiguous()
    save_file(tensors, str(entry(loaded, scorer)))  # as the store wrote them before checksums
    found = prefix_store.read(loaded, scorer.layout.prefix_ids)
    assert found.layers is None and "no checksum" in (found.problem or "")


def test_a_prefix_computed_by_other_code_is_not_reused(loaded, profile, monkeypatch):
    """Checkouts and versions share one cache: a prefix from edited decoder code gave cached-vs-baseline
    differences ten times the usual, so the code computing a prefix, and what it imports, is in its key."""
    ids = Scorer(loaded, profile).layout.prefix_ids
    original = prefix_store.key(loaded, ids)
    code = prefix_store.prefix_sources()
    # found by import: the decoder's attention kernels are in the key without being named anywhere
    assert "triage_gui.engine.model._attention" in code and "triage_gui.engine.scoring._scorer" in code
    real = prefix_store._source

    def edited(name):
        added = b"\n# scores[..., plen:] computed another way\n" if name.endswith("._attention") else b""
        return real(name) + added

    monkeypatch.setattr(prefix_store, "_fingerprints", {})
    assert prefix_store.key(loaded, ids) == original  # the same code read again gives the same entries
    monkeypatch.setattr(prefix_store, "_fingerprints", {})
    monkeypatch.setattr(prefix_store, "_source", edited)
    assert prefix_store.key(loaded, ids) != original


def test_prefix_code_that_cannot_be_found_fails_loudly(monkeypatch):
    """The old fingerprint fell back silently on an unreadable file; a renamed module now stops the key."""
    monkeypatch.setattr(prefix_store, "_fingerprints", {})
    with pytest.raises(RuntimeError, match="cannot find the source"):
        prefix_store.code_fingerprint(("triage_gui.engine.model._no_such_decoder",))


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
