"""Converted models are used only while their checksum manifest verifies; damage is reported, removed and
rebuilt once, and what still fails names the cache folder. The app's own copies only: see test_robustness
for the user's folders, test_prefix_store for stored prefixes."""

from __future__ import annotations

import json
import logging
import os
import shutil
from pathlib import Path

import pytest
import torch

from triage_gui.engine.model import LoadedModel, ModelLoadError, load_model
from triage_gui.engine.model import _integrity as integrity
from triage_gui.engine.model import _loader as model_loader
from triage_gui.engine.model._loader import bundled_gguf


def link_or_copy(source: Path, target: Path) -> None:
    """Hard links: a 538 MB copy per test is too slow. Tests therefore replace files, never edit in place."""
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def replace_file(path: Path, data: bytes, keep_mtime: bool = False) -> None:
    """Write a new file (a new inode, so a hard-linked original is untouched), optionally with the old mtime."""
    stat = path.stat()
    path.unlink()
    path.write_bytes(data)
    if keep_mtime:
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))


def head(path: Path, n: int) -> bytes:
    with open(path, "rb") as handle:
        return handle.read(n)


class Conversions:
    """Stands in for the 25 s dequantization: links the session's converted files into the new folder."""

    def __init__(self, pristine: Path):
        self.pristine = pristine
        self.calls = 0
        self.broken_config = False

    def __call__(self, gguf: Path, folder: Path, report) -> None:
        self.calls += 1
        for path in self.pristine.iterdir():
            if path.name != integrity.MANIFEST and not path.name.startswith("."):
                link_or_copy(path, folder / path.name)
        if self.broken_config:
            replace_file(folder / "config.json", b'{"architectures": ["LlamaForCausalLM"], "num_hidden')


@pytest.fixture
def converted(tmp_path, monkeypatch, loaded):
    """A private cache holding a converted copy of the bundled model; yields (folder, conversions)."""
    monkeypatch.setenv("TRIAGE_GUI_CACHE_DIR", str(tmp_path / "cache"))
    conversions = Conversions(Path(loaded.source))
    monkeypatch.setattr(model_loader, "_dequantize", conversions, raising=False)
    folder = model_loader.convert_gguf(bundled_gguf())
    assert folder.is_relative_to(tmp_path) and (folder / "config.json").is_file()
    conversions.calls = 0
    return folder, conversions


def load_reporting(messages: list[str]) -> LoadedModel:
    return load_model("bundled", "cpu", progress=lambda fraction, message: messages.append(message))


def test_a_conversion_writes_a_manifest_that_verifies(loaded):
    """The session's real conversion (transformers' dequantization) ends with a manifest of every file."""
    folder = Path(loaded.source)
    listed = json.loads((folder / integrity.MANIFEST).read_text(encoding="utf-8"))["files"]
    assert {"model.safetensors", "config.json", "tokenizer.json"} <= set(listed)
    assert integrity.check_manifest(folder, full=True) is None
    assert loaded.converted_from.endswith(".gguf")


def damage_truncated_weights(folder: Path) -> str:
    replace_file(folder / "model.safetensors", head(folder / "model.safetensors", 1_000_000))
    return "model.safetensors"


def damage_missing_config(folder: Path) -> str:
    (folder / "config.json").unlink()
    return "config.json"


def damage_broken_tokenizer(folder: Path) -> str:
    data = bytearray((folder / "tokenizer.json").read_bytes())
    data[1000:1100] = b"\x00" * 100  # same size, old mtime: only the ctime and the checksum tell
    replace_file(folder / "tokenizer.json", bytes(data), keep_mtime=True)
    return "tokenizer.json"


def damage_no_manifest(folder: Path) -> str:
    (folder / integrity.MANIFEST).unlink()  # an interrupted conversion, or one by an older version
    return integrity.MANIFEST


def damage_extra_file(folder: Path) -> str:
    (folder / "model.safetensors.index.json").write_text('{"weight_map": {}}', encoding="utf-8")
    return "model.safetensors.index.json"


@pytest.mark.parametrize(
    "damage",
    [
        damage_truncated_weights,
        damage_missing_config,
        damage_broken_tokenizer,
        damage_no_manifest,
        damage_extra_file,
    ],
)
def test_a_damaged_converted_copy_is_reported_removed_and_rebuilt(converted, damage, caplog):
    folder, conversions = converted
    culprit = damage(folder)
    assert culprit in (integrity.check_manifest(folder) or "")
    messages: list[str] = []
    with caplog.at_level(logging.WARNING, logger="triage_gui.engine.model._loader"):
        model = load_reporting(messages)
    assert conversions.calls == 1
    assert model.source == str(folder) and culprit in model.repaired
    assert any(str(folder) in m and "damaged" in m for m in messages)  # what the window and the CLI show
    assert any(str(folder) in r.getMessage() for r in caplog.records)
    assert integrity.check_manifest(folder, full=True) is None
    assert not [p for p in folder.parent.iterdir() if p.name.startswith(".")]  # nothing half-removed left


def test_a_missing_config_costs_one_conversion_not_one_per_start(converted):
    folder, conversions = converted
    (folder / "config.json").unlink()
    for _ in range(3):
        load_model("bundled", "cpu")
    assert conversions.calls == 1


def test_a_start_hashes_nothing_while_sizes_and_times_are_unchanged(converted, monkeypatch):
    folder, _ = converted

    def no_hashing(path: Path) -> str:
        raise AssertionError(f"hashed {path.name}")

    monkeypatch.setattr(integrity, "file_sha256", no_hashing)
    assert integrity.check_manifest(folder) is None


def test_moved_times_over_unchanged_contents_are_checked_once_and_recorded(converted, monkeypatch):
    folder, _ = converted
    weights = folder / "model.safetensors"
    os.utime(weights, ns=(weights.stat().st_atime_ns, weights.stat().st_mtime_ns - 10**9))  # e.g. a restore
    hashed = []
    real = integrity.file_sha256
    monkeypatch.setattr(integrity, "file_sha256", lambda path: hashed.append(path.name) or real(path))
    assert integrity.check_manifest(folder) is None
    assert hashed == ["model.safetensors"]
    assert integrity.check_manifest(folder) is None
    assert hashed == ["model.safetensors"]  # recorded: the next start is fast again


def test_damage_the_quick_check_misses_is_found_when_loading_fails(converted):
    """Bytes changed below the file system (times as recorded): the load fails, a full check finds it, rebuilt."""
    folder, conversions = converted
    tokenizer = folder / "tokenizer.json"
    replace_file(tokenizer, b"\xff" * 100 + tokenizer.read_bytes()[100:])
    manifest = json.loads((folder / integrity.MANIFEST).read_text(encoding="utf-8"))
    stat = tokenizer.stat()
    manifest["files"]["tokenizer.json"].update(mtime_ns=stat.st_mtime_ns, ctime_ns=stat.st_ctime_ns)
    (folder / integrity.MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
    assert integrity.check_manifest(folder) is None  # the quick check sees nothing
    model = load_model("bundled", "cpu")
    assert conversions.calls == 1 and "tokenizer.json" in model.repaired
    assert integrity.check_manifest(folder, full=True) is None


def test_a_conversion_that_does_not_load_names_the_cache_folder_and_is_not_redone(converted):
    folder, conversions = converted
    shutil.rmtree(folder)
    conversions.broken_config = True  # e.g. a transformers release that writes what this app cannot read
    for expected_calls in (1, 1):
        with pytest.raises(ModelLoadError, match="converted copy in") as error:
            load_model("bundled", "cpu")
        assert str(folder) in str(error.value)
        assert conversions.calls == expected_calls


def test_a_damaged_copy_that_still_fails_after_rebuilding_names_the_cache_folder(converted):
    folder, conversions = converted
    damage_truncated_weights(folder)
    conversions.broken_config = True
    with pytest.raises(ModelLoadError) as error:
        load_model("bundled", "cpu")
    assert str(folder) in str(error.value) and conversions.calls == 1


def test_the_message_for_non_finite_scores_offers_only_our_own_copy_for_deletion(loaded, tmp_path):
    ours = integrity.damaged_model_message(loaded)
    assert ours.startswith("SmolLM2-135M-Instruct (bundled) produced non-finite scores")
    assert f"converted copy in {loaded.source}" in ours and "delete that folder" in ours
    theirs = LoadedModel(loaded.decoder, loaded.tokenizer, str(tmp_path), "my-model", "cpu", "", 0.0, str(tmp_path))
    message = integrity.damaged_model_message(theirs)
    assert str(tmp_path) in message and "delete" not in message and "does not change" in message
    in_memory = LoadedModel(loaded.decoder, loaded.tokenizer, "tiny", "random llama", "cpu", "", 0.0)
    assert integrity.damaged_model_message(in_memory) == "random llama produced non-finite scores."


def test_the_prefix_checksum_sees_any_changed_byte_name_or_shape():
    gen = torch.Generator().manual_seed(0)
    tensors = {"k0": torch.randn(1, 3, 170, 64, generator=gen), "v0": torch.randn(1, 3, 170, 64, generator=gen)}
    reference = integrity.tensors_checksum(tensors)
    flipped = tensors["v0"].clone()
    flipped.view(torch.int32)[0, 2, 169, 63] ^= 1  # the last bit of the last value
    assert integrity.tensors_checksum({**tensors, "v0": flipped}) != reference
    assert integrity.tensors_checksum({"k1": tensors["k0"], "v0": tensors["v0"]}) != reference
    assert integrity.tensors_checksum({**tensors, "v0": tensors["v0"].view(1, 3, 64, 170)}) != reference
    assert integrity.tensors_checksum({**tensors, "v0": tensors["v0"].to(torch.bfloat16)}) != reference
    assert integrity.tensors_checksum(dict(tensors)) == reference


def test_a_conversion_is_marked_with_its_owner_until_its_folder_is_in_place(tmp_path, monkeypatch, loaded):
    """A kill -9 at any moment of a conversion, the hashing for the manifest included, leaves a folder
    the next start can tell is abandoned; the finished folder keeps no mark."""
    monkeypatch.setenv("TRIAGE_GUI_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(model_loader, "_dequantize", Conversions(Path(loaded.source)), raising=False)
    marked = []
    real = integrity.write_manifest
    monkeypatch.setattr(
        integrity, "write_manifest", lambda folder: marked.append((folder / integrity.OWNER).is_file()) or real(folder)
    )
    folder = model_loader.convert_gguf(bundled_gguf())
    assert marked == [True] and not (folder / integrity.OWNER).exists()
    assert model_loader._check(folder) is None
