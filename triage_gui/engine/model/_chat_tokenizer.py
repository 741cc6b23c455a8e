"""The model's tokenizer and chat template without importing transformers.

transformers' tokenizer classes cost about a second to import; for a ``tokenizer.json`` whose class
transformers passes through unchanged, the ``tokenizers`` library gives the same ids, and the chat
template is rendered the way transformers renders it (sandboxed Jinja, trim_blocks, lstrip_blocks,
its ``tojson``/``raise_exception``/``strftime_now``). This class offers the small part of the
transformers tokenizer interface that :mod:`layout` uses; tests/test_chat_tokenizer.py checks it
against ``AutoTokenizer`` on the same files.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

# tokenizer_config.json classes that load tokenizer.json as it is (checked against transformers 5.24).
PASSTHROUGH_CLASSES = {
    "TokenizersBackend",
    "PreTrainedTokenizerFast",
    "GPT2Tokenizer",
    "GPT2TokenizerFast",
    "Qwen2Tokenizer",
    "Qwen2TokenizerFast",
}
_SPECIAL_KEYS = ("bos_token", "eos_token", "unk_token", "pad_token")


def _token_text(value) -> str | None:
    if isinstance(value, dict):  # {"content": ..., "__type": "AddedToken"}
        value = value.get("content")
    return value if isinstance(value, str) else None


class ChatTokenizer:
    """Plain-text encoding, added-token lookup and chat-template rendering from a model folder."""

    def __init__(self, folder: Path):
        from tokenizers import Tokenizer

        folder = Path(folder)
        self._tok = Tokenizer.from_file(str(folder / "tokenizer.json"))
        config_path = folder / "tokenizer_config.json"
        config = json.loads(config_path.read_text(encoding="utf-8")) if config_path.is_file() else {}
        template_file = folder / "chat_template.jinja"
        template = config.get("chat_template")
        if template_file.is_file():
            template = template_file.read_text(encoding="utf-8")
        elif not isinstance(template, str):
            template = None  # a list of named templates is not supported here; the loader falls back
        self.chat_template: str | None = template
        added = self._tok.get_added_tokens_decoder()  # id -> AddedToken, already parsed with the file
        self.added_tokens_encoder: dict[str, int] = {t.content: i for i, t in added.items()}
        self.all_special_ids = [i for i, t in added.items() if t.special]
        self.special_tokens_map = {k: t for k in _SPECIAL_KEYS if (t := _token_text(config.get(k)))}
        self.eos_token_id = self._id(self.special_tokens_map.get("eos_token"))
        self.pad_token_id = self._id(self.special_tokens_map.get("pad_token"))

    @staticmethod
    def supports(folder: Path) -> bool:
        folder = Path(folder)
        config_path = folder / "tokenizer_config.json"
        if not (folder / "tokenizer.json").is_file() or not config_path.is_file():
            return False
        try:
            config = json.loads(config_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return False
        if not isinstance(config.get("chat_template", ""), str):
            return False
        return config.get("tokenizer_class") in PASSTHROUGH_CLASSES

    def _id(self, token: str | None) -> int | None:
        return None if token is None else self._tok.token_to_id(token)

    def __len__(self) -> int:
        return self._tok.get_vocab_size(with_added_tokens=True)

    def __call__(
        self,
        text: str,
        add_special_tokens: bool = False,
        split_special_tokens: bool = False,
        return_offsets_mapping: bool = False,
    ) -> dict:
        self._tok.encode_special_tokens = split_special_tokens
        encoding = self._tok.encode(text, add_special_tokens=add_special_tokens)
        out: dict = {"input_ids": encoding.ids}
        if return_offsets_mapping:
            out["offset_mapping"] = encoding.offsets
        return out

    def convert_tokens_to_ids(self, token: str) -> int | None:
        return self._tok.token_to_id(token)

    def convert_ids_to_tokens(self, ids: list[int]) -> list[str]:
        return [self._tok.id_to_token(i) or "" for i in ids]

    def decode(self, ids: list[int]) -> str:
        return self._tok.decode(ids, skip_special_tokens=False)

    def apply_chat_template(
        self, messages: list[dict], tokenize: bool = False, add_generation_prompt: bool = False, chat_template=None
    ) -> str:
        if tokenize:
            raise NotImplementedError("render, then encode")
        template = _compile(chat_template or self.chat_template)
        tokens = self.special_tokens_map
        return template.render(
            messages=messages, tools=None, documents=None, add_generation_prompt=add_generation_prompt, **tokens
        )


_COMPILED: dict[str, object] = {}


def _compile(source: str | None):
    """Jinja set up as transformers sets it up for chat templates."""
    if source is None:
        raise ValueError("This tokenizer has no chat template.")
    if source in _COMPILED:
        return _COMPILED[source]
    import jinja2
    from jinja2.ext import Extension, loopcontrols
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    class Generation(Extension):
        """``{% generation %}`` blocks render their body (transformers uses them for training masks)."""

        tags = {"generation"}

        def parse(self, parser):
            lineno = next(parser.stream).lineno
            body = parser.parse_statements(("name:endgeneration",), drop_needle=True)
            return jinja2.nodes.CallBlock(self.call_method("_body"), [], [], body).set_lineno(lineno)

        def _body(self, caller):
            return caller()

    def raise_exception(message):
        raise jinja2.exceptions.TemplateError(message)

    def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
        return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)

    env = ImmutableSandboxedEnvironment(
        trim_blocks=True,
        lstrip_blocks=True,
        extensions=[Generation, loopcontrols],
        # No templates besides this one: ``{% include %}`` / ``{% import %}`` are TemplateNotFound (a Jinja
        # error said in one sentence), not "TypeError: no loader for this environment specified".
        loader=jinja2.DictLoader({}),
    )
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = lambda fmt: datetime.now().strftime(fmt)
    _COMPILED[source] = compiled = env.from_string(source)
    return compiled
