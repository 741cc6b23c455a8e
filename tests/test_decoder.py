"""The lean decoder against transformers' forward on the same weights, for every path the scorer uses."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from helpers import reference_model

from triage_gui.engine.model import additive_mask
from triage_gui.engine.model._decoder import DecoderConfig, LeanDecoder, cpu_linear


def lean_and_reference(tiny):
    if not isinstance(tiny.decoder, LeanDecoder):
        pytest.skip("transformers backend: nothing lean to compare")
    return tiny.decoder, tiny.reference


@torch.inference_mode()
def test_plain_forward_equals_transformers(tiny):
    lean, model = lean_and_reference(tiny)
    ids = torch.randint(0, lean.vocab_size, (2, 17), generator=torch.Generator().manual_seed(0))
    positions = torch.arange(17).repeat(2, 1)
    hidden, _ = lean.forward(ids, positions)
    assert torch.allclose(lean.logits(hidden), model(ids).logits, atol=1e-4)


@torch.inference_mode()
def test_cached_prefix_and_block_mask_equal_full_causal(tiny):
    """Two tickets packed in one row after a shared prefix give the logits each gets alone, uncached."""
    lean, model = lean_and_reference(tiny)
    gen = torch.Generator().manual_seed(1)
    prefix = torch.randint(0, lean.vocab_size, (1, 9), generator=gen)
    a = torch.randint(0, lean.vocab_size, (5,), generator=gen)
    b = torch.randint(0, lean.vocab_size, (3,), generator=gen)
    _, kv = lean.forward(prefix, torch.arange(9)[None], keep_kv=True)
    row = torch.cat([a, b])[None]
    positions = torch.cat([torch.arange(9, 14), torch.arange(9, 12)])[None]
    allowed = torch.zeros(8, 8, dtype=torch.bool)
    allowed[:5, :5] = torch.ones(5, 5, dtype=torch.bool).tril()
    allowed[5:, 5:] = torch.ones(3, 3, dtype=torch.bool).tril()
    hidden, _ = lean.forward(row, positions, additive_mask(allowed, torch.float32)[None, None], kv)
    logits = lean.logits(hidden)[0]
    for part, got in ((a, logits[:5]), (b, logits[5:])):
        want = model(torch.cat([prefix[0], part])[None]).logits[0, 9:]
        assert torch.allclose(got, want, atol=1e-4)


@torch.inference_mode()
def test_bundled_model_equals_transformers(loaded):
    model = reference_model(loaded)
    ids = torch.tensor([[1, 9690, 198, 504, 3287, 314, 260, 5499, 2, 198, 1, 4093, 198]])
    hidden, _ = loaded.decoder.forward(ids, torch.arange(ids.shape[1])[None])
    assert torch.allclose(loaded.decoder.logits(hidden), model(ids).logits, atol=1e-3)


def test_bundled_model_loads_without_transformers(loaded):
    """The point of the lean path: a converted SmolLM2 never needs transformers' modelling code."""
    code = (
        "import sys; from triage_gui.engine.model import load_model; "
        "from triage_gui.engine.scoring import Scorer; from triage_gui.engine.prompt import default_profile; "
        "s = Scorer(load_model('bundled', 'cpu'), default_profile()); print(s.score_one('card declined').label); "
        "print(sorted(m for m in sys.modules if m.startswith('transformers'))[:3])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.splitlines()
    assert out[0] in {"billing", "technical", "account"}
    assert out[1] == "[]"


def test_unknown_architectures_and_options_are_left_to_transformers(loaded):
    config = json.loads((Path(loaded.source) / "config.json").read_text())
    assert DecoderConfig.from_dict(config) is not None
    for change in (
        {"architectures": ["GemmaForCausalLM"]},
        {"rope_parameters": {"rope_type": "llama3", "factor": 8.0, "rope_theta": 5e5}},
        {"hidden_act": "gelu"},
        {"use_sliding_window": True},
        {"mlp_bias": True},
    ):
        assert DecoderConfig.from_dict({**config, **change}) is None, change


def test_weights_it_would_not_use_send_the_model_to_transformers(tiny):
    """A Llama-shaped checkpoint with extra tensors (say, query norms of a newer variant) is not run lean."""
    from triage_gui.engine.model._decoder import WeightsMismatch

    lean, model = lean_and_reference(tiny)
    tensors = dict(model.state_dict())
    tensors["model.layers.0.self_attn.q_norm.weight"] = torch.ones(lean.config.head_dim)
    with pytest.raises(WeightsMismatch):
        LeanDecoder(lean.config, tensors, torch.float32, "cpu")
    tensors = dict(model.state_dict())
    del tensors["model.layers.1.mlp.up_proj.weight"]
    with pytest.raises(WeightsMismatch):
        LeanDecoder(lean.config, tensors, torch.float32, "cpu")


@torch.inference_mode()
def test_onednn_and_aten_products_give_the_same_logits(tiny):
    """The CPU's oneDNN products (the default where torch has them) and plain F.linear agree, logits included."""
    lean, _ = lean_and_reference(tiny)
    if lean.linear is torch.nn.functional.linear:
        pytest.skip("this torch has no oneDNN linear")
    ids = torch.randint(0, lean.vocab_size, (3, 11), generator=torch.Generator().manual_seed(2))
    positions = torch.arange(11).repeat(3, 1)
    fast = lean.logits(lean.forward(ids, positions)[0])
    onednn, lean.linear = lean.linear, torch.nn.functional.linear
    try:
        plain = lean.logits(lean.forward(ids, positions)[0])
    finally:
        lean.linear = onednn
    assert torch.allclose(fast, plain, atol=1e-5)


def test_without_onednn_the_decoder_uses_f_linear(monkeypatch):
    monkeypatch.setattr(torch.backends.mkldnn, "is_available", lambda: False)
    assert cpu_linear(torch.float32) is None


def test_onednn_linear_matches_f_linear_with_bias_and_strided_input():
    linear = cpu_linear(torch.float32)
    if linear is None:
        pytest.skip("this torch has no oneDNN linear")
    gen = torch.Generator().manual_seed(3)
    x = torch.randn(37, 200, generator=gen)[:, :96]  # a column slice, as the attention output can be
    w, b = torch.randn(130, 96, generator=gen), torch.randn(130, generator=gen)
    assert torch.allclose(linear(x, w, b), torch.nn.functional.linear(x, w, b), atol=1e-4)
    assert torch.allclose(linear(x, w, None), x @ w.T, atol=1e-4)


@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="reads Linux's /proc for memory")
def test_many_different_batch_shapes_do_not_grow_memory_without_bound():
    """oneDNN keeps a compiled product per shape; uncapped, 400 row counts cost this process ~250 MB."""
    code = """
import torch
from triage_gui.engine.model._decoder import cpu_linear
linear = cpu_linear(torch.float32)
if linear is None:
    print("none")
    raise SystemExit
def resident_mb():
    return int(open("/proc/self/statm").read().split()[1]) * 4096 / 2**20
w = torch.randn(1536, 576)
for rows in range(1, 21):
    linear(torch.randn(rows, 576), w)
before = resident_mb()
for rows in range(21, 421):
    linear(torch.randn(rows, 576), w)
print(resident_mb() - before)
"""
    caps = {"ONEDNN_PRIMITIVE_CACHE_CAPACITY", "LRU_CACHE_CAPACITY"}  # set by this process's own decoders
    env = {k: v for k, v in os.environ.items() if k not in caps}
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    out = run.stdout.strip()
    if out == "none":
        pytest.skip("this torch has no oneDNN linear")
    assert float(out) < 100, f"{float(out):.0f} MB more after 400 batch shapes"
