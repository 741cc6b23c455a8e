"""Whole-label scoring of tickets against a cached prompt prefix, and the naive full re-encode baseline.

Every path returns, per ticket, the labels' sequence log-probabilities and the model's hidden state
at the answer position (the features a taught head learns from), and applies the same calibration
(:func:`engine.table.calibrated_probs`, with the content-free bias below), so cached, batched and full
paths give the same label.

Each ticket is scored in one forward pass: its suffix tokens, then every label's tokens merged into a
trie, with a 4D attention mask so each label token sees the prefix, the ticket and its own earlier
label tokens only. Positions of new tokens start at the prefix length. A batch is packed into rows
without padding between tickets. The prefix keys/values are shared by every ticket and never written
to: the decoder's attention reads them in place.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
import torch

from ...defaults import MAX_TICKET_TOKENS
from ..model import KV, LoadedModel, additive_mask, prefix_store
from ..prompt import EncodedTicket, PromptLayout, PromptProfile
from ..table import TicketScore, calibrated_probs

# Contextual calibration's content-free ticket (Zhao et al. 2021). Measured on the dev sets (README):
# the empty ticket lifted the raw prompt 0.26 -> 0.35 and 0.17 -> 0.36; "N/A", "[MASK]" and averages of
# several content-free tickets did worse on one set or both. Batch calibration over the loaded tickets
# scored within a point of it, but would shift every label as a file streams in.
CONTENT_FREE = ("",)


class ScoringError(RuntimeError):
    """The model produced scores that cannot be labels (NaN or infinite): a damaged model, not a ticket."""


# Keep the (batch, positions, vocabulary) logits of one forward under this many bytes.
_LOGITS_BUDGET = 256 * 1024 * 1024


@dataclass
class PrefixCache:
    """Keys/values of the prompt prefix, one (keys, values) pair per layer, each (1, kv heads, P, dim)."""

    layers: KV
    length: int
    build_seconds: float


class Scorer:
    """Scores tickets for one prompt profile on one loaded model. Use from one thread at a time."""

    def __init__(
        self,
        loaded: LoadedModel,
        profile: PromptProfile,
        max_ticket_tokens: int = MAX_TICKET_TOKENS,
        stored_prefix: bool = True,
        calibrate: bool = True,
    ):
        self.loaded = loaded
        self.profile = profile
        self.decoder = loaded.decoder
        self.device = self.decoder.device
        self.layout = PromptLayout(loaded.tokenizer, profile, loaded.max_context, max_ticket_tokens)
        self.labels = profile.label_names
        trie = self.layout.trie
        # Inputs and masks are assembled on the CPU and moved to the device once per forward.
        self._trie_tokens = torch.tensor(trie.node_tokens, dtype=torch.long)
        self._trie_depth = torch.tensor(trie.node_depth, dtype=torch.long)
        self._trie_ancestors = torch.zeros(trie.n_nodes, trie.n_nodes, dtype=torch.bool)
        for k, chain in enumerate(trie.ancestors):
            self._trie_ancestors[k, chain] = True
        self._causal_cache = torch.ones(256, 256, dtype=torch.bool).tril()
        self.pack_tokens = 64  # narrower rows waste less attention on the block mask; 64 measured best
        width = max(len(s) for s in trie.steps)
        rows = torch.zeros(len(self.labels), width, dtype=torch.long)
        toks = torch.zeros(len(self.labels), width, dtype=torch.long)
        valid = torch.zeros(len(self.labels), width, dtype=torch.bool)
        for i, steps in enumerate(trie.steps):
            for j, (row, tok) in enumerate(steps):
                rows[i, j], toks[i, j], valid[i, j] = row, tok, True
        self._step_rows, self._step_tokens, self._step_valid = (
            rows.to(self.device),
            toks.to(self.device),
            valid.to(self.device),
        )
        pad = loaded.tokenizer.pad_token_id
        if pad is None:
            pad = loaded.tokenizer.eos_token_id
        self._pad_id = int(pad if isinstance(pad, int) else 0)
        self.max_batch = max(1, _LOGITS_BUDGET // ((trie.n_nodes + 1) * self.decoder.vocab_size * 4))
        self.prefix_from_disk = False
        self.prefix_problem: str | None = None
        self.prefix = self._build_prefix(stored_prefix)
        # Added to every path's log-probabilities before the softmax; zero when calibration is off.
        self.bias = torch.zeros(len(self.labels))
        self.calibrated = False
        if calibrate:
            self.bias = self.content_free_bias()
            self.calibrated = True

    @property
    def feature_dim(self) -> int:
        return self.decoder.hidden_size

    @property
    def prefix_length(self) -> int:
        return self.prefix.length

    # ------------------------------------------------------------------ prefix

    @torch.inference_mode()
    def _build_prefix(self, stored: bool) -> PrefixCache:
        """The prefix forward, or its result from an earlier run (prefix_store) when allowed."""
        started = time.perf_counter()
        ids = self.layout.prefix_ids
        if not ids:
            return PrefixCache([], 0, 0.0)
        found = prefix_store.read(self.loaded, ids) if stored else prefix_store.Lookup()
        layers = found.layers
        self.prefix_problem = found.problem  # a damaged stored prefix was discarded: tell the user
        self.prefix_from_disk = layers is not None
        if layers is None:
            input_ids = torch.tensor([ids], dtype=torch.long, device=self.device)
            positions = torch.arange(len(ids), device=self.device)[None]
            _, layers = self.decoder.forward(input_ids, positions, keep_kv=True)
            prefix_store.save(self.loaded, ids, layers)
        return PrefixCache(layers, len(ids), time.perf_counter() - started)

    # ----------------------------------------------------------------- scoring

    def encode(self, text: str) -> EncodedTicket:
        return self.layout.encode_ticket(text)

    def score_one(self, text: str) -> TicketScore:
        return self.score_batch([text])[0]

    @torch.inference_mode()
    def score_batch(self, texts: list[str]) -> list[TicketScore]:
        """Cached scoring of several tickets in one or a few forward passes; results in input order."""
        if not texts:
            return []
        started = time.perf_counter()
        encoded = [self.encode(t) for t in texts]
        logprobs: list[torch.Tensor] = [torch.empty(0)] * len(texts)
        features: list[torch.Tensor] = [torch.empty(0)] * len(texts)
        # Tickets longer than a packed row go together, so they do not widen the rows of short ones.
        groups: dict[tuple[int, bool], list[int]] = {}
        for i, enc in enumerate(encoded):
            long = len(enc.suffix_ids) + self.layout.trie.n_nodes > self.pack_tokens
            groups.setdefault((enc.prefix_len, long), []).append(i)
        for (prefix_len, _), members in groups.items():
            for start in range(0, len(members), self.max_batch):
                chunk = members[start : start + self.max_batch]
                lp, hidden = self._forward_cached([encoded[i].suffix_ids for i in chunk], prefix_len)
                for row, i in enumerate(chunk):
                    logprobs[i], features[i] = lp[row], hidden[row]
        per_ticket = (time.perf_counter() - started) * 1000 / len(texts)
        return [self._result(lp, h, enc, per_ticket) for lp, h, enc in zip(logprobs, features, encoded)]

    @torch.inference_mode()
    def score_full(self, text: str) -> TicketScore:
        """The naive baseline: re-encode the whole prompt and ticket, logits at every position."""
        started = time.perf_counter()
        enc = self.encode(text)
        ctx = torch.tensor(enc.full_ids, dtype=torch.long)
        n_ctx, n_trie = len(enc.full_ids), self.layout.trie.n_nodes
        input_ids = torch.cat([ctx, self._trie_tokens]).unsqueeze(0).to(self.device)
        positions = torch.cat([torch.arange(n_ctx), n_ctx - 1 + self._trie_depth]).unsqueeze(0).to(self.device)
        n = n_ctx + n_trie
        allowed = torch.ones(n, n, dtype=torch.bool).tril()
        allowed[n_ctx:, n_ctx:] = self._trie_ancestors
        mask = additive_mask(allowed[None, None].to(self.device), self.decoder.dtype)
        hidden = self.decoder.forward(input_ids, positions, mask)[0]
        lp = self._label_logprobs(self.decoder.logits(hidden[:, n_ctx - 1 :]))[0]
        return self._result(lp, hidden[0, n_ctx - 1], enc, (time.perf_counter() - started) * 1000)

    def content_free_bias(self) -> torch.Tensor:
        """Contextual calibration: the prompt's own label prior, measured on a content-free ticket.

        The log of the label distribution the prompt gives an empty ticket is subtracted from every
        ticket's log-probabilities, i.e. probabilities are divided by that prior and renormalised.
        Computed once per prompt (one tiny forward), added to every path alike.
        """
        raw = torch.stack([torch.tensor(s.logprobs) for s in self.score_batch(list(CONTENT_FREE))])
        prior = torch.softmax(raw, dim=-1).mean(dim=0)
        return -torch.log(prior.clamp_min(1e-30))

    # ---------------------------------------------------------------- internals

    def _forward_cached(self, suffixes: list[list[int]], prefix_len: int) -> tuple[torch.Tensor, torch.Tensor]:
        """Score tickets packed into rows: no padding between tickets, a block mask keeps them apart.

        Each ticket is its suffix tokens followed by the label trie. Tickets are spread over rows of
        about ``pack_tokens`` tokens; inside a row a ticket sees the prefix, its own earlier
        tokens and nothing of its neighbours, and its positions start at the prefix length.
        """
        dev = self.device
        n_trie = self.layout.trie.n_nodes
        sizes = [len(s) + n_trie for s in suffixes]
        # Longest-first onto the least-loaded row: rows come out nearly equal, so little padding.
        n_rows = max(1, min(len(sizes), -(-sum(sizes) // self.pack_tokens)))
        rows: list[list[int]] = [[] for _ in range(n_rows)]
        load = [0] * n_rows
        for i in sorted(range(len(sizes)), key=lambda i: -sizes[i]):
            r = min(range(n_rows), key=load.__getitem__)
            rows[r].append(i)
            load[r] += sizes[i]
        width = max(load)

        input_ids = torch.full((len(rows), width), self._pad_id, dtype=torch.long)
        positions = torch.full((len(rows), width), prefix_len, dtype=torch.long)
        allowed = torch.eye(width, dtype=torch.bool).repeat(len(rows), 1, 1)  # padding sees itself only
        gather = torch.zeros(len(suffixes), n_trie + 1, dtype=torch.long)
        slots: list[torch.Tensor] = []
        trie_tokens, trie_depth, ancestors = self._trie_tokens, self._trie_depth, self._trie_ancestors
        for r, members in enumerate(rows):
            offset = 0
            for i in members:
                suffix = suffixes[i]
                n = len(suffix)
                a, b, c = offset, offset + n, offset + n + n_trie
                input_ids[r, a:b] = torch.tensor(suffix, dtype=torch.long)
                input_ids[r, b:c] = trie_tokens
                positions[r, a:b] = torch.arange(prefix_len, prefix_len + n)
                positions[r, b:c] = prefix_len + n - 1 + trie_depth
                allowed[r, a:b, a:b] = self._causal(n)
                allowed[r, b:c, a:b] = True
                allowed[r, b:c, b:c] = ancestors
                gather[i, 0] = r * width + b - 1  # last context token, then the trie nodes
                gather[i, 1:] = torch.arange(r * width + b, r * width + c)
                slots.append(torch.arange(r * width + a, r * width + c))
                offset = c

        # The mask covers the new tokens only: every prefix column is visible to every token.
        mask = additive_mask(allowed[:, None].to(dev), self.decoder.dtype)
        prefix = [(k[..., :prefix_len, :], v[..., :prefix_len, :]) for k, v in self.prefix.layers] or None
        keep = gather.to(dev).flatten()  # last context token and trie nodes of every ticket
        real = torch.cat(slots).sort().values.to(dev)  # padding never reaches a projection or MLP
        hidden, _ = self.decoder.forward(input_ids.to(dev), positions.to(dev), mask, prefix, keep=keep, slots=real)
        picked = hidden.view(len(suffixes), n_trie + 1, -1)
        return self._label_logprobs(self.decoder.logits(picked)), picked[:, 0]

    def _causal(self, n: int) -> torch.Tensor:
        if self._causal_cache.shape[0] < n:
            self._causal_cache = torch.ones(2 * n, 2 * n, dtype=torch.bool).tril()
        return self._causal_cache[:n, :n]

    def _label_logprobs(self, logits: torch.Tensor) -> torch.Tensor:
        """(batch, 1 + trie nodes, vocab) logits -> (batch, labels) sequence log-probabilities."""
        logits = logits.float()
        lse = torch.logsumexp(logits, dim=-1)  # (batch, rows)
        picked = logits[:, self._step_rows, self._step_tokens] - lse[:, self._step_rows]
        return (picked * self._step_valid).sum(dim=-1)

    def _result(
        self, logprobs: torch.Tensor, hidden: torch.Tensor, enc: EncodedTicket, latency_ms: float
    ) -> TicketScore:
        raw = [float(x) for x in logprobs]
        if not all(math.isfinite(x) for x in raw):
            from ..model import damaged_model_message

            raise ScoringError(damaged_model_message(self.loaded))
        probs = calibrated_probs(logprobs.float().cpu().numpy(), self.bias.float().cpu().numpy())
        best = int(np.argmax(probs))
        return TicketScore(
            label=self.labels[best],
            confidence=float(probs[best]),
            probs=[float(p) for p in probs],
            logprobs=raw,
            latency_ms=latency_ms,
            truncated=enc.truncated,
            split_fallback=enc.split_fallback,
            tokens=enc.ticket_tokens,
            features=hidden.float().cpu().numpy().astype(np.float32, copy=False),
        )
