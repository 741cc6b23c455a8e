"""Turn a prompt profile into token ids: the cacheable prefix, each ticket's suffix, the label sequences.

The prompt is rendered with the tokenizer's own chat template. Every piece of user-supplied text
(instruction, label names, examples, the ticket) goes in as a sentinel first, so afterwards we know
exactly which characters came from the template and which are data. Only template text may produce
special tokens; data is always tokenized as plain text, so a ticket containing ``<|im_end|>`` cannot
close the user turn.

Special tokens are hard boundaries for the tokenizer: text on either side is encoded independently.
We therefore encode the prompt as runs of plain text separated by special tokens, which is the
canonical encoding the full (uncached) path uses too. The cached prefix ends either at the last
special token before the ticket (always token-clean) or, extended, after the constant head of the
user turn; the extension is used for a ticket only when the ticket's canonical encoding really starts
with it, otherwise the ticket falls back to the always-clean boundary and is flagged.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...defaults import LABEL_CHARS
from ._profile import PromptProfile

_SENTINEL = "\ue000{}\ue001"
_SENTINEL_RE = re.compile("\ue000(\\d+)\ue001")

# Used only for tokenizers that ship no chat template of their own.
FALLBACK_CHAT_TEMPLATE = (
    "{% for message in messages %}{{ message['role'] }}: {{ message['content'] }}\n\n{% endfor %}"
    "{% if add_generation_prompt %}assistant: {% endif %}"
)


class LayoutError(ValueError):
    """The prompt cannot be laid out for this model (template problem or prompt too long)."""

    def __init__(self, message: str, field: str = "instruction"):
        super().__init__(message)
        self.field = field


@dataclass(frozen=True)
class EncodedTicket:
    """One ticket's tokens, ready for the scorer."""

    full_ids: list[int]  # canonical ids of prompt + ticket + answer head (what the full path sees)
    prefix_len: int  # how many leading ids of full_ids come from the cached prefix
    split_fallback: bool  # the extended prefix was not token-clean for this ticket
    truncated: bool  # the ticket was cut to fit the model's context
    ticket_tokens: int

    @property
    def suffix_ids(self) -> list[int]:
        return self.full_ids[self.prefix_len :]


@dataclass(frozen=True)
class LabelTrie:
    """Label token sequences merged into a tree, so shared leading tokens are computed once.

    ``node_tokens[k]``/``node_depth[k]`` describe the k-th fed node (a label token that is not the last
    of its sequence). ``ancestors[k]`` lists fed nodes node k attends to (itself included).
    ``steps[i]`` is, for label i, a list of (row, token): row 0 is the last context position, row k+1
    is fed node k; the label's log-probability is the sum of log p(token) at those rows.
    """

    sequences: list[list[int]]
    node_tokens: list[int]
    node_depth: list[int]
    ancestors: list[list[int]]
    steps: list[list[tuple[int, int]]]

    @property
    def n_nodes(self) -> int:
        return len(self.node_tokens)

    @classmethod
    def build(cls, sequences: list[list[int]]) -> LabelTrie:
        node_index: dict[tuple[int, ...], int] = {}
        node_tokens: list[int] = []
        node_depth: list[int] = []
        ancestors: list[list[int]] = []
        steps: list[list[tuple[int, int]]] = []
        for seq in sequences:
            label_steps: list[tuple[int, int]] = []
            row = 0
            chain: list[int] = []
            for depth, token in enumerate(seq):
                label_steps.append((row, token))
                if depth == len(seq) - 1:
                    break
                key = tuple(seq[: depth + 1])
                if key not in node_index:
                    node_index[key] = len(node_tokens)
                    node_tokens.append(token)
                    node_depth.append(depth + 1)
                    ancestors.append([*chain, len(node_tokens) - 1])
                k = node_index[key]
                chain = ancestors[k]
                row = k + 1
            steps.append(label_steps)
        return cls(sequences, node_tokens, node_depth, ancestors, steps)


class PromptLayout:
    """Everything token-level about one prompt profile on one tokenizer."""

    def __init__(self, tokenizer, profile: PromptProfile, max_context: int, max_ticket_tokens: int = 1024):
        profile.validate()
        self.tokenizer = tokenizer
        self.profile = profile
        self.max_context = max_context
        self._specials = _special_token_map(tokenizer)
        self._special_re = (
            re.compile("|".join(re.escape(t) for t in sorted(self._specials, key=len, reverse=True)))
            if self._specials
            else None
        )

        data, messages = _messages(profile)
        ticket_idx, label_idx = len(data), len(data) + 1
        messages_q = [*messages, {"role": "user", "content": _SENTINEL.format(ticket_idx)}]
        messages_a = [*messages_q, {"role": "assistant", "content": _SENTINEL.format(label_idx)}]
        prompt_text = self._render(messages_q, add_generation_prompt=True)
        answer_text = self._render(messages_a, add_generation_prompt=False)

        pieces = self._pieces(prompt_text, data)
        cut = next(i for i, p in enumerate(pieces) if p == ("ticket",))
        before, after = pieces[:cut], pieces[cut + 1 :]
        if not any(kind == "special" for kind, *_ in after):
            raise LayoutError("The model's chat template puts no special token after the user turn; use a chat model.")

        self._pre_fixed, self._head = _split_trailing_text(before)
        self._tail, self._post_fixed = _split_leading_text(after)
        self.safe_prefix_ids = self._encode_pieces(self._pre_fixed)
        self._head_ids = self._plain(self._head)
        self.prefix_ids = self.safe_prefix_ids + self._head_ids
        self._post_ids = self._encode_pieces(self._post_fixed)

        self.label_sequences = self._label_sequences(answer_text, label_idx)
        self.trie = LabelTrie.build(self.label_sequences)

        fixed = len(self.prefix_ids) + len(self._post_ids) + self.trie.n_nodes + len(self._tail) + 1
        room = max_context - fixed
        if room < 16:
            raise LayoutError(
                f"The prompt uses {fixed} of the model's {max_context} tokens, leaving no room for a ticket. "
                "Shorten the instruction, label descriptions or examples.",
                field="instruction",
            )
        self.max_ticket_tokens = min(max_ticket_tokens, room)

    # ----------------------------------------------------------------- rendering

    def _render(self, messages: list[dict], add_generation_prompt: bool) -> str:
        """The chat template rendered; a template that fails (its own error, or the Jinja sandbox stopping
        it: a model folder's ``chat_template.jinja`` that reaches for Python's internals) is one sentence."""
        tok = self.tokenizer
        template = getattr(tok, "chat_template", None) or FALLBACK_CHAT_TEMPLATE
        try:
            try:
                return tok.apply_chat_template(
                    messages, tokenize=False, add_generation_prompt=add_generation_prompt, chat_template=template
                )
            except Exception:  # templates without a system role raise; fold the system text into the first turn
                if messages and messages[0]["role"] == "system":
                    system, rest = messages[0]["content"], [dict(m) for m in messages[1:]]
                    rest[0]["content"] = system + "\n\n" + rest[0]["content"]
                    return tok.apply_chat_template(
                        rest, tokenize=False, add_generation_prompt=add_generation_prompt, chat_template=template
                    )
                raise
        except Exception as exc:
            # transformers' own Jinja environment has no loader: ``{% include %}`` there is a TypeError
            no_loader = isinstance(exc, TypeError) and "no loader" in str(exc)
            if not type(exc).__module__.startswith("jinja2") and not no_loader:
                raise
            reason = str(exc).splitlines()[0].rstrip(".") if str(exc) else type(exc).__name__
            raise LayoutError(
                f"The model's chat template cannot be rendered ({type(exc).__name__}: {reason}); use another model "
                "or fix the template (chat_template.jinja in the model folder)."
            ) from None

    def _pieces(self, rendered: str, data: list[str]) -> list[tuple]:
        """Split rendered text into ("special", id), ("text", str) and ("ticket",)/("label",) markers."""
        pieces: list[tuple] = []
        pos = 0
        for m in _SENTINEL_RE.finditer(rendered):
            pieces.extend(self._template_pieces(rendered[pos : m.start()]))
            idx = int(m.group(1))
            if idx < len(data):
                pieces.append(("text", data[idx]))
            else:
                pieces.append(("ticket",) if idx == len(data) else ("label",))
            pos = m.end()
        pieces.extend(self._template_pieces(rendered[pos:]))
        return pieces

    def _template_pieces(self, text: str) -> list[tuple]:
        if not text:
            return []
        if self._special_re is None:
            return [("text", text)]
        out: list[tuple] = []
        pos = 0
        for m in self._special_re.finditer(text):
            if m.start() > pos:
                out.append(("text", text[pos : m.start()]))
            out.append(("special", self._specials[m.group(0)]))
            pos = m.end()
        if pos < len(text):
            out.append(("text", text[pos:]))
        return out

    # ------------------------------------------------------------------ encoding

    def _plain(self, text: str) -> list[int]:
        """Encode text as data: no special tokens, nothing added."""
        if not text:
            return []
        return self.tokenizer(text, add_special_tokens=False, split_special_tokens=True)["input_ids"]

    def _encode_pieces(self, pieces: list[tuple]) -> list[int]:
        ids: list[int] = []
        run: list[str] = []
        for kind, *value in pieces:
            if kind == "special":
                ids += self._plain("".join(run))
                run = []
                ids.append(value[0])
            else:
                run.append(value[0])
        return ids + self._plain("".join(run))

    def _label_sequences(self, answer_text: str, label_idx: int) -> list[list[int]]:
        sentinel = _SENTINEL.format(label_idx)
        after_label = answer_text[answer_text.index(sentinel) + len(sentinel) :]
        terminator = self._first_special(after_label)
        if terminator is None:
            eos = self.tokenizer.eos_token_id
            terminator = eos if isinstance(eos, int) else None
        # The run of plain text right before the label: the answer head after the last special token.
        gen_run = self._tail_text_run(self._post_fixed)
        gen_ids = self._plain(gen_run)
        tail = [terminator] if terminator is not None else []
        joints = [self._plain(gen_run + name) for name in self.profile.label_names]
        if all(joint[: len(gen_ids)] == gen_ids and len(joint) > len(gen_ids) for joint in joints):
            sequences = [joint[len(gen_ids) :] + tail for joint in joints]
        else:
            # A label merges with the end of the answer head (e.g. "\n\n" + "billing" -> "\n", "\n", "b"...):
            # the context then ends at the last special token and each label is scored with its own
            # canonical encoding of that head. The shared head tokens cancel in the softmax.
            self._post_ids = self._post_ids[: len(self._post_ids) - len(gen_ids)]
            sequences = [joint + tail for joint in joints]
            for i, joint in enumerate(joints):
                if not joint:
                    raise LayoutError(f"Label {i + 1} encodes to no tokens.", field=f"labels[{i}].name")
        if len({tuple(s) for s in sequences}) != len(sequences):
            raise LayoutError("Two labels tokenize to the same tokens.", field="labels")
        return sequences

    @staticmethod
    def _tail_text_run(pieces: list[tuple]) -> str:
        run: list[str] = []
        for kind, *value in pieces:
            run = [] if kind == "special" else [*run, value[0]]
        return "".join(run)

    def _first_special(self, text: str) -> int | None:
        for kind, *value in self._template_pieces(text):
            if kind == "special":
                return value[0]
            if value[0].strip():
                return None
        return None

    # ------------------------------------------------------------------- tickets

    def encode_ticket(self, text: str) -> EncodedTicket:
        """Canonical ids for a ticket, with the longest cache prefix that is token-clean for it."""
        text = text.strip()
        truncated = len(text) > LABEL_CHARS  # tokenizing a 20 MB ticket whole, only to cut it, took gigabytes
        text = text[:LABEL_CHARS].rstrip()
        ticket_ids = self._plain(text)
        if len(ticket_ids) > self.max_ticket_tokens:
            text = self._cut(text, self.max_ticket_tokens)
            truncated = True
        mid = self._plain(self._head + text + self._tail)
        head = self._head_ids
        if mid[: len(head)] == head:
            prefix_len, split_fallback = len(self.prefix_ids), False
        else:
            prefix_len, split_fallback = len(self.safe_prefix_ids), True
        full = self.safe_prefix_ids + mid + self._post_ids
        n_ticket = len(mid) - (len(head) if not split_fallback else 0)
        return EncodedTicket(full, prefix_len, split_fallback, truncated, n_ticket)

    def _cut(self, text: str, max_tokens: int) -> str:
        enc = self.tokenizer(text, add_special_tokens=False, split_special_tokens=True, return_offsets_mapping=True)
        offsets = enc["offset_mapping"]
        end = offsets[max_tokens - 1][1] if max_tokens > 0 else 0
        return text[:end].rstrip()


def _special_token_map(tokenizer) -> dict[str, int]:
    """Added tokens the tokenizer would match inside template text."""
    encoder = getattr(tokenizer, "added_tokens_encoder", None) or {}
    return {tok: idx for tok, idx in encoder.items() if tok}


def _messages(profile: PromptProfile) -> tuple[list[str], list[dict]]:
    """Chat messages with sentinels in place of every user-supplied string; returns (data, messages)."""
    data: list[str] = []

    def slot(text: str) -> str:
        data.append(text)
        return _SENTINEL.format(len(data) - 1)

    label_lines = "\n".join(
        f"- {label.name}: {label.description.strip()}" if label.description.strip() else f"- {label.name}"
        for label in profile.labels
    )
    system = profile.instruction.strip() + "\n\nLabels:\n" + label_lines
    messages = [{"role": "system", "content": slot(system)}]
    for example in profile.examples:
        messages.append({"role": "user", "content": slot(example.text.strip())})
        messages.append({"role": "assistant", "content": slot(example.label)})
    return data, messages


def _split_trailing_text(pieces: list[tuple]) -> tuple[list[tuple], str]:
    i = len(pieces)
    while i > 0 and pieces[i - 1][0] == "text":
        i -= 1
    return pieces[:i], "".join(p[1] for p in pieces[i:])


def _split_leading_text(pieces: list[tuple]) -> tuple[str, list[tuple]]:
    i = 0
    while i < len(pieces) and pieces[i][0] == "text":
        i += 1
    return "".join(p[1] for p in pieces[:i]), pieces[i:]
