"""A fake engine for the session tests: instant, deterministic, and gated where a test needs to hold it.

Scores depend only on the ticket text (and a per-prompt salt), so a test can tell which prompt
version scored a row and that nothing was scored twice.
"""

from __future__ import annotations

import hashlib
import threading
import time
from dataclasses import dataclass, field

import numpy as np

from triage_gui.engine.prompt import PromptProfile
from triage_gui.engine.table import TicketScore
from triage_gui.session.engine import Engine

DIM = 8


@dataclass
class FakeModel:
    name: str
    device: str = "cpu"
    licence: str = "none"
    load_seconds: float = 0.01
    source: str = ""


def text_vector(text: str, salt: str = "") -> np.ndarray:
    digest = hashlib.sha256((salt + "|" + text).encode()).digest()
    return (np.frombuffer(digest[: DIM * 2], dtype=np.uint16).astype(np.float32) / 65535.0) * 2 - 1


class FakeScorer:
    def __init__(self, engine: FakeEngine, profile: PromptProfile):
        self.engine = engine
        self.profile = profile
        self.labels = profile.label_names
        # what the scorer reads: a prompt of several fields' first scorer, its first field alone (as the real one)
        self.salt = (profile.field_profile(0) if profile.several else profile).content_hash()
        self.bias = np.zeros(len(self.labels), dtype=np.float32)
        self.prefix_length = 10
        self.prefix_problem = "stored prefix damaged; recomputed" if profile.instruction.startswith("DAMAGED") else None

    def _score(self, text: str) -> TicketScore:
        v = text_vector(text, self.salt)
        logprobs = [float(v[i % DIM]) - 3 for i in range(len(self.labels))]
        probs = np.exp(logprobs) / np.exp(logprobs).sum()
        best = int(np.argmax(logprobs))
        return TicketScore(self.labels[best], float(probs[best]), probs.tolist(), logprobs, 1.0, features=v)

    def score_batch(self, texts: list[str]) -> list[TicketScore]:
        self.engine.gate.wait(10)
        time.sleep(self.engine.batch_seconds)
        with self.engine.lock:
            for text in texts:
                self.engine.scored[(self.salt, text)] = self.engine.scored.get((self.salt, text), 0) + 1
                self.engine.order.append(text)
        return [self._score(t) for t in texts]

    def score_full(self, text: str) -> TicketScore:
        with self.engine.lock:
            self.engine.full[(self.salt, text)] = self.engine.full.get((self.salt, text), 0) + 1
        return self._score(text)


class FakeEncoder:
    """A bag-of-words "sentence encoder": words hashed into ``dim`` buckets, normalised, so tickets that
    share words are close (as a real encoder's would be); counts what it encoded."""

    dim = 512
    name = "fake-encoder"
    load_seconds = 0.0

    def __init__(self, engine: FakeEngine) -> None:
        self.engine = engine

    def encode(self, texts) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in text.lower().split():
                out[i, int(hashlib.sha256(word.encode()).hexdigest(), 16) % self.dim] += 1
            with self.engine.lock:
                self.engine.encoded[text] = self.engine.encoded.get(text, 0) + 1
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms > 0, norms, 1)


@dataclass
class FakeEngine:
    batch_seconds: float = 0.0
    build_seconds: float = 0.0
    gate: threading.Event = field(default_factory=threading.Event)  # cleared: scoring waits
    build_gate: threading.Event = field(default_factory=threading.Event)
    scored: dict = field(default_factory=dict)  # (prompt salt, text) -> times scored
    full: dict = field(default_factory=dict)
    order: list = field(default_factory=list)  # texts in the order the language model read them
    builds: list = field(default_factory=list)  # instructions built, in order (finished builds)
    calibrated: list = field(default_factory=list)  # the calibrate flag of each build
    lock: threading.Lock = field(default_factory=threading.Lock)
    encoded: dict = field(default_factory=dict)  # text -> times the encoder embedded it
    with_encoder: bool = True
    encoder_gate: threading.Event = field(default_factory=threading.Event)  # cleared: the encoder load waits

    def __post_init__(self) -> None:
        self.gate.set()
        self.build_gate.set()
        self.encoder_gate.set()

    def load(self, spec: str, device: str, progress) -> FakeModel:
        if spec.startswith("/nowhere"):
            raise RuntimeError(f"Model file not found: {spec}")
        progress(0.5, "halfway")
        return FakeModel(spec, device)

    def build(self, loaded: FakeModel, profile: PromptProfile, calibrate: bool = True) -> FakeScorer:
        self.build_gate.wait(10)
        time.sleep(self.build_seconds)
        if profile.instruction.startswith("FAIL"):
            raise ValueError("The prompt uses 9000 of the model's 8192 tokens, leaving no room for a ticket.")
        self.builds.append(profile.instruction)
        self.calibrated.append(calibrate)
        return FakeScorer(self, profile)

    def load_encoder(self, spec: str) -> FakeEncoder:
        self.encoder_gate.wait(10)
        if spec.startswith("/nowhere"):
            raise ValueError(f"No sentence encoder at {spec}.")
        encoder = FakeEncoder(self)
        if spec not in ("fake", "bundled"):  # another encoder: its embeddings are kept under another key
            encoder.name = f"fake-encoder ({spec})"
        return encoder

    def as_engine(self) -> Engine:
        return Engine(self.load, self.build, self.load_encoder if self.with_encoder else None)
