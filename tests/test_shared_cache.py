"""A model cache several accounts share: converted once, with the user's normal permissions; used as it
is by an account that cannot write it, when complete and verified; "damaged" only when it is."""

import os
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from helpers import ROOT

from triage_gui.engine.model import _integrity as integrity
from triage_gui.engine.model import _loader as model_loader


def umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_converted_files_get_normal_permissions(loaded):
    folder = Path(loaded.source)
    for path in folder.iterdir():
        assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~umask(), path.name


def test_a_copy_this_account_cannot_read_is_not_called_damaged_nor_removed(loaded, monkeypatch):
    folder = Path(loaded.source)

    def refused(path):
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(integrity, "file_sha256", refused)
    with pytest.raises(model_loader.ModelLoadError) as info:
        model_loader._check(folder, full=True)
    message = str(info.value)
    assert "cannot be read by this account" in message and "TRIAGE_GUI_CACHE_DIR" in message
    assert "damaged" not in message and "Delete" not in message
    assert (folder / integrity.MANIFEST).is_file()


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to run as another account")
def test_another_account_uses_a_shared_cache_it_cannot_write(loaded):
    converted = Path(loaded.source)
    shared = Path(tempfile.mkdtemp(prefix="triage-shared-cache-"))
    try:
        copy = shared / "models" / converted.name
        shutil.copytree(converted, copy, copy_function=shutil.copy2)  # new ctimes: the files get hashed
        for path in (shared, shared / "models", copy):
            path.chmod(0o755)  # the owner's: other accounts may read, not write
        before = sorted(p.name for p in copy.iterdir())
        env = {
            **os.environ,
            "TRIAGE_GUI_CACHE_DIR": str(shared),
            "HOME": str(shared),
            "TRIAGE_GUI_CONFIG_DIR": str(shared / "config"),
            "HF_HUB_OFFLINE": "1",
        }
        code = "from triage_gui.engine.model import load_model; m = load_model('bundled', 'cpu'); print(m.source)"
        result = subprocess.run(
            [sys.executable, "-c", code],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            user=65534,
            group=65534,
        )
        assert result.returncode == 0, result.stderr[-2000:]
        assert result.stdout.strip() == str(copy)
        assert "damaged" not in result.stderr
        assert sorted(p.name for p in copy.iterdir()) == before  # nothing deleted, nothing added
    finally:
        shutil.rmtree(shared, ignore_errors=True)
