"""The transformers cache API this app relies on, pinned in pyproject.toml; fails loudly if it moves."""

import inspect

import pytest
import torch
from transformers.cache_utils import DynamicCache, DynamicLayer

from triage_gui.engine.model._transformers_decoder import prefix_view


def test_forward_takes_cache_keyword(tiny):
    params = inspect.signature(type(tiny.reference).forward).parameters
    assert "cache" in params and "logits_to_keep" in params


def test_dynamic_layer_crop_refuses_positive_lengths():
    layer = DynamicLayer()
    layer.update(torch.zeros(1, 2, 5, 4), torch.zeros(1, 2, 5, 4))
    with pytest.raises(ValueError):
        layer.crop(3)
    layer.crop(-2)
    assert layer.get_seq_length() == 3


def test_prefix_cache_from_a_forward_has_per_layer_keys(tiny):
    ids = torch.tensor([[1, 2, 3, 4]])
    out = tiny.reference(input_ids=ids, use_cache=True)
    assert isinstance(out.cache, DynamicCache)
    keys, values = out.cache.layers[0].keys, out.cache.layers[0].values
    assert keys.shape[-2] == 4 and values.shape == keys.shape


def test_prefix_view_broadcasts_without_storing(tiny):
    ids = torch.tensor([[1, 2, 3, 4, 5]])
    out = tiny.reference(input_ids=ids, use_cache=True)
    layers = [(layer.keys[..., :3, :], layer.values[..., :3, :]) for layer in out.cache.layers]
    view = prefix_view(layers)
    new = torch.randn(2, layers[0][0].shape[1], 2, layers[0][0].shape[-1])
    keys, _ = view.update(new, new, 0)
    assert keys.shape[0] == 2 and keys.shape[-2] == 5
    assert torch.equal(keys[1, :, :3], layers[0][0][0])
    keys_again, _ = view.update(new, new, 0)
    assert keys_again.shape[-2] == 5  # nothing was appended to the shared view
    assert layers[0][0].shape[-2] == 3


def test_custom_4d_mask_is_used_as_given(tiny):
    ids = torch.tensor([[5, 6, 7]])
    causal = tiny.reference(input_ids=ids).logits
    allowed = torch.ones(3, 3, dtype=torch.bool).tril()
    mask = torch.where(allowed, 0.0, torch.finfo(torch.float32).min)[None, None]
    assert torch.allclose(tiny.reference(input_ids=ids, attention_mask=mask).logits, causal, atol=1e-5)
    allowed[2, 0] = False  # a mask that differs must change the last position
    mask = torch.where(allowed, 0.0, torch.finfo(torch.float32).min)[None, None]
    assert not torch.allclose(tiny.reference(input_ids=ids, attention_mask=mask).logits[0, 2], causal[0, 2], atol=1e-5)
