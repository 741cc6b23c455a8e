"""The transformers-free tokenizer gives exactly what transformers' AutoTokenizer gives on the same files."""

import pytest
from helpers import banking_tickets
from test_scorer import EDGE_TICKETS

from triage_gui.engine.model._chat_tokenizer import ChatTokenizer
from triage_gui.engine.prompt import PromptLayout


@pytest.fixture(scope="module")
def pair(loaded):
    from transformers import AutoTokenizer

    assert isinstance(loaded.tokenizer, ChatTokenizer)
    return loaded.tokenizer, AutoTokenizer.from_pretrained(loaded.source)


def test_plain_text_ids_and_offsets_match(pair):
    light, reference = pair
    for text in [*banking_tickets(40), *EDGE_TICKETS, " leading space", "tabs\tand\nnewlines\r\n", "<|im_start|>"]:
        kwargs = {"add_special_tokens": False, "split_special_tokens": True, "return_offsets_mapping": True}
        got, want = light(text, **kwargs), reference(text, **kwargs)
        assert got["input_ids"] == want["input_ids"], text
        assert [tuple(o) for o in got["offset_mapping"]] == [tuple(o) for o in want["offset_mapping"]], text


def test_special_tokens_and_ids_match(pair):
    light, reference = pair
    assert light.added_tokens_encoder == reference.added_tokens_encoder
    assert (light.eos_token_id, light.pad_token_id) == (reference.eos_token_id, reference.pad_token_id)
    assert len(light) == len(reference)


def test_chat_template_renders_the_same(pair):
    light, reference = pair
    messages = [
        {"role": "system", "content": "Sort tickets."},
        {"role": "user", "content": 'my card <b>broke</b> & "quotes"'},
        {"role": "assistant", "content": "billing"},
    ]
    for generation in (True, False):
        for chosen in (messages, messages[1:]):
            got = light.apply_chat_template(chosen, tokenize=False, add_generation_prompt=generation)
            want = reference.apply_chat_template(chosen, tokenize=False, add_generation_prompt=generation)
            assert got == want


def test_prompt_layout_is_identical_with_either_tokenizer(pair, profile):
    light, reference = pair
    a, b = PromptLayout(light, profile, 8192), PromptLayout(reference, profile, 8192)
    assert a.prefix_ids == b.prefix_ids and a.label_sequences == b.label_sequences
    for text in banking_tickets(20):
        assert a.encode_ticket(text) == b.encode_ticket(text)
