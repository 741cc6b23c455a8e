"""A model that produces NaN scores is an error naming the model and where its files are, never a label."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from helpers import ROOT, SAMPLE, tiny_model

from triage_gui.engine.scoring import Scorer, ScoringError


def poisoned(tokenizer):
    loaded = tiny_model("llama", tokenizer, "lean")
    loaded.decoder.layers[0].down.fill_(float("nan"))  # what flipped bytes in the weights do
    return loaded


def test_nan_scores_raise_on_every_path_with_the_models_name(tokenizer, profile):
    loaded = poisoned(tokenizer)
    with pytest.raises(ScoringError, match="non-finite"):
        Scorer(loaded, profile, calibrate=False).score_batch(["my card is lost"])
    with pytest.raises(ScoringError, match=loaded.name.split(" ")[0]):
        Scorer(loaded, profile, calibrate=False).score_full("my card is lost")
    with pytest.raises(ScoringError):  # calibration scores a content-free ticket first: it fails as loudly
        Scorer(loaded, profile)


def test_classify_with_a_damaged_model_folder_exits_with_one_line_and_writes_nothing(tmp_path, loaded):
    from transformers import AutoModelForCausalLM

    folder = tmp_path / "damaged-model"
    model = AutoModelForCausalLM.from_pretrained(loaded.source, dtype=torch.float32)
    with torch.no_grad():
        model.model.layers[3].mlp.down_proj.weight[0, 0] = float("nan")
    model.save_pretrained(folder)
    for name in ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "chat_template.jinja"):
        source = Path(loaded.source) / name
        if source.is_file():
            shutil.copy(source, folder / name)
    out = tmp_path / "out.csv"
    result = subprocess.run(
        [sys.executable, "-m", "triage_gui", "classify", str(SAMPLE), "--model", str(folder), "--out", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    last = result.stderr.strip().splitlines()[-1]
    assert result.returncode == 2, result.stderr[-2000:]
    assert "non-finite" in last and str(folder) in last and "Traceback" not in result.stderr
    assert not out.exists()  # no file of NaN labels
