"""Round five's bounds and hardening (issue 38, items 5-10 and round four's leftovers): each case a hostile
tester found, with the outcome a user expects. Small inputs; subprocesses only where the behaviour is the
process's own (``python -m``'s search path, the exit line)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import openpyxl
import pytest

from triage_gui.commands import parse_args
from triage_gui.engine.model import is_hub_id
from triage_gui.engine.prompt import default_profile, label_key
from triage_gui.engine.tickets import open_tickets

ROOT = Path(__file__).resolve().parents[1]


def _env() -> dict[str, str]:
    env = dict(os.environ)
    # No empty entry: Python reads one as the current folder, which would put the planted module back.
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    return env


# ----------------------------------------------------------------- 7. code and models from the current folder


def test_python_m_does_not_import_a_module_planted_in_the_current_folder(tmp_path):
    """``python -m triage_gui`` from a folder holding a planted ``platformdirs.py`` ran it (the cache folder
    is found through platformdirs before the model is looked for)."""
    (tmp_path / "platformdirs.py").write_text("import sys\nprint('PLANTED')\nsys.exit(7)\n")
    (tmp_path / "t.txt").write_text("my card was charged twice\n")
    env = _env()
    env.pop("TRIAGE_GUI_CACHE_DIR", None)  # the cache folder found through platformdirs, as a user's is
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    done = subprocess.run(
        [sys.executable, "-m", "triage_gui", "classify", "t.txt", "--model", str(tmp_path / "no-such-model")],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "PLANTED" not in done.stdout + done.stderr
    assert done.returncode == 2 and "Model not found" in done.stderr


def test_an_owner_slash_name_is_a_hub_id_even_with_a_same_named_folder_here(tmp_path, monkeypatch):
    """``--model Qwen/Qwen2.5-0.5B-Instruct`` loaded a planted same-named folder in the current folder."""
    planted = tmp_path / "Qwen" / "Qwen2.5-0.5B-Instruct"
    planted.mkdir(parents=True)
    (planted / "config.json").write_text("{}")
    monkeypatch.chdir(tmp_path)
    assert is_hub_id("Qwen/Qwen2.5-0.5B-Instruct")
    assert not is_hub_id("./Qwen/Qwen2.5-0.5B-Instruct")

    from triage_gui.engine.model import _loader

    asked: list[str] = []

    def snapshot(repo_id: str) -> Path:
        asked.append(repo_id)
        raise ConnectionError("offline")

    monkeypatch.setattr("huggingface_hub.snapshot_download", snapshot)
    with pytest.raises(_loader.ModelLoadError, match=r"Hugging Face Hub.*\./Qwen/Qwen2\.5-0\.5B-Instruct"):
        _loader._resolve("Qwen/Qwen2.5-0.5B-Instruct", lambda fraction, message: None)
    assert asked == ["Qwen/Qwen2.5-0.5B-Instruct"]
    found = _loader._resolve("./Qwen/Qwen2.5-0.5B-Instruct", lambda fraction, message: None)
    assert Path(found.path).resolve() == planted.resolve()  # written as a path, the folder is used


def test_the_encoder_option_reads_owner_slash_name_as_a_hub_id_too(tmp_path, monkeypatch):
    planted = tmp_path / "sentence-transformers" / "all-MiniLM-L6-v2"
    planted.mkdir(parents=True)
    monkeypatch.chdir(tmp_path)
    from triage_gui.engine.model import _encoder

    def hub(repo_id: str) -> Path:
        raise ValueError(f"hub asked for {repo_id}")

    monkeypatch.setattr(_encoder, "_hub_folder", hub)
    with pytest.raises(ValueError, match="hub asked for sentence-transformers/all-MiniLM-L6-v2"):
        _encoder.load_encoder("sentence-transformers/all-MiniLM-L6-v2")


def test_the_model_help_says_how_to_name_a_local_folder_shaped_like_a_hub_id(capsys):
    with pytest.raises(SystemExit):
        parse_args(["classify", "--help"])
    assert "./owner/name" in " ".join(capsys.readouterr().out.split())


# ----------------------------------------------------------------- 10. unclear input


def test_a_ticket_of_zero_width_characters_only_is_blank(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("text\nmy card was charged twice\n\u200b\u200d\ufeff\u2060\nthe app crashes\n", encoding="utf-8")
    rows = open_tickets(path).read_all()
    assert [r.problem for r in rows] == [None, "blank ticket text", None]
    assert rows[1].text == ""


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("billing", "ｂｉｌｌｉｎｇ"),
        ("Account", "\u0391ccount"),
        ("Account", "\u0410ccount"),
    ],  # full-width, Greek, Cyrillic
)
def test_labels_that_only_look_alike_are_refused_naming_both(first, second):
    profile = default_profile()
    profile.labels = [type(profile.labels[0])(n) for n in (first, second)]
    assert label_key(first) == label_key(second)
    messages = [p.message for p in profile.problems()]
    assert any(repr(first) in m and repr(second) in m and "look alike" in m for m in messages), messages


def test_labels_in_one_other_script_stay_distinct():
    assert label_key("Λογαριασμός") != label_key("Λογαριασμοί")
    assert label_key("оплата") != label_key("доставка")


def test_thousands_of_stray_arguments_are_echoed_in_a_short_line():
    done = subprocess.run(
        [sys.executable, "-m", "triage_gui", "classify", "x.csv", *map(str, range(5000))],
        env=_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert len(done.stderr) < 600 and done.stderr.count("\n") == 1
    assert "unrecognized arguments: 0 1 2" in done.stderr and "more characters not shown" in done.stderr


# ----------------------------------------------------------------- round four (b): formulas without a value


def test_a_row_whose_ticket_is_a_formula_without_a_saved_value_says_so(tmp_path):
    path = tmp_path / "formulas.xlsx"
    book = openpyxl.Workbook()
    ws = book.active
    ws.append(["text", "queue"])
    ws.append(["my card was charged twice", "=B9"])  # a formula elsewhere in the row: the ticket is fine
    ws.append(['=CONCAT("the app ", "crashes")', "technical"])
    ws.append(["", "technical"])  # truly blank
    book.save(path)
    source = open_tickets(path)
    problems = [t.problem for t in source.read_all()]
    assert problems[0] is None and problems[2] == "blank ticket text"
    assert problems[1] is not None and problems[1].startswith("formula without a saved value")
    assert source.blank_text == 1


# ----------------------------------------------------------------- 9. tracebacks become one sentence


def test_a_full_disk_while_saving_the_converted_model_is_one_sentence(tmp_path, monkeypatch):
    import transformers
    from safetensors import SafetensorError

    from triage_gui.engine.model import ModelLoadError, _loader

    class Model:
        config = type("Config", (), {})()
        hf_quantizer = None

        def save_pretrained(self, folder):
            (Path(folder) / "model.safetensors").write_bytes(b"half")
            raise SafetensorError("Error while serializing: I/O error: No space left on device (os error 28)")

    class Tokenizer:
        def save_pretrained(self, folder):
            pass

    monkeypatch.setattr(transformers.AutoModelForCausalLM, "from_pretrained", lambda *a, **k: Model())
    monkeypatch.setattr(transformers.AutoTokenizer, "from_pretrained", lambda *a, **k: Tokenizer())
    gguf = tmp_path / "tiny.gguf"
    gguf.write_bytes(b"GGUF")
    with pytest.raises(ModelLoadError, match=r"Cannot save the converted model to .*No space left on device") as caught:
        _loader.convert_gguf(gguf)
    assert "\n" not in str(caught.value)
    target = _loader._gguf_cache_path(gguf)
    assert not target.exists() and not [p for p in target.parent.iterdir() if "tiny" in p.name]  # nothing half-made


def _tiny_tokenizer_folder(folder: Path, template: str) -> Path:
    from tokenizers import Tokenizer, models, pre_tokenizers

    tokenizer = Tokenizer(models.WordLevel({"[UNK]": 0, "hello": 1}, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    folder.mkdir()
    tokenizer.save(str(folder / "tokenizer.json"))
    (folder / "tokenizer_config.json").write_text('{"tokenizer_class": "PreTrainedTokenizerFast"}')
    (folder / "chat_template.jinja").write_text(template)
    return folder


@pytest.mark.parametrize("statement", ["{% include 'other.jinja' %}", "{% import 'macros.jinja' as m %}"])
def test_a_chat_template_that_includes_another_file_is_one_sentence(tmp_path, statement):
    from triage_gui.engine.model._chat_tokenizer import ChatTokenizer
    from triage_gui.engine.prompt import LayoutError, PromptLayout

    folder = _tiny_tokenizer_folder(
        tmp_path / "model", statement + "{% for m in messages %}{{ m.content }}{% endfor %}"
    )
    tokenizer = ChatTokenizer(folder)
    with pytest.raises(LayoutError, match=r"^The model's chat template cannot be rendered \(TemplateNotFound: "):
        PromptLayout._render(type("Layout", (), {"tokenizer": tokenizer})(), [{"role": "user", "content": "hi"}], True)


def test_transformers_no_loader_type_error_is_one_sentence():
    """transformers' own Jinja environment has no loader: its ``{% include %}`` is a bare TypeError."""
    from triage_gui.engine.prompt import LayoutError, PromptLayout

    class Tokenizer:
        chat_template = "{% include 'x' %}"

        def apply_chat_template(self, *args, **kwargs):
            raise TypeError("no loader for this environment specified")

    with pytest.raises(LayoutError, match=r"cannot be rendered \(TypeError: no loader"):
        PromptLayout._render(
            type("Layout", (), {"tokenizer": Tokenizer()})(), [{"role": "user", "content": "hi"}], True
        )


def test_classify_with_standard_output_closed_and_no_out_is_one_sentence(tmp_path):
    (tmp_path / "t.txt").write_text("my card was charged twice\n")
    command = f"exec {sys.executable} -m triage_gui classify t.txt --model {tmp_path / 'no-such-model'} >&-"
    done = subprocess.run(
        ["sh", "-c", command],
        cwd=tmp_path,
        env=_env(),
        capture_output=False,
        stderr=subprocess.PIPE,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert "Standard output is closed" in done.stderr and "--out" in done.stderr
    assert "Traceback" not in done.stderr


# ----------------------------------------------------------------- 5. one long ticket, bounded memory

LONG = "my card was charged twice and the refund never came " * 20_000  # ~1 MB, one ticket


def _char_tokenizer_folder(folder: Path):
    """A chat tokenizer of one token per character (no model needed): the layout's code path as-is."""
    from tokenizers import Regex, Tokenizer, models, pre_tokenizers

    from triage_gui.engine.model._chat_tokenizer import ChatTokenizer

    vocab = {"[UNK]": 0, **{chr(c): c for c in range(32, 127)}, "\n": 10}
    tokenizer = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Split(Regex("[\\s\\S]"), behavior="isolated")
    tokenizer.add_special_tokens(["<|im_start|>", "<|im_end|>"])
    folder.mkdir()
    tokenizer.save(str(folder / "tokenizer.json"))
    (folder / "tokenizer_config.json").write_text('{"tokenizer_class": "PreTrainedTokenizerFast"}')
    (folder / "chat_template.jinja").write_text(
        "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"
        "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
    )

    class Spy(ChatTokenizer):
        longest = 0

        def __call__(self, text, *args, **kwargs):
            Spy.longest = max(Spy.longest, len(text))
            return super().__call__(text, *args, **kwargs)

    return Spy(folder)


def test_the_language_model_never_tokenizes_more_than_the_cut(tmp_path):
    from triage_gui.defaults import LABEL_CHARS
    from triage_gui.engine.prompt import PromptLayout

    tokenizer = _char_tokenizer_folder(tmp_path / "tok")
    layout = PromptLayout(tokenizer, default_profile(), max_context=100_000, max_ticket_tokens=50_000)
    type(tokenizer).longest = 0
    encoded = layout.encode_ticket(LONG)
    assert type(tokenizer).longest < LABEL_CHARS + 1_000  # the head and tail around the ticket
    assert encoded.truncated  # flagged ✂ like a ticket cut to the model's context
    assert encoded.full_ids == layout.encode_ticket(LONG[:LABEL_CHARS] + " whatever follows").full_ids


def test_the_n_gram_heads_read_a_bounded_prefix():
    from triage_gui.defaults import LABEL_CHARS
    from triage_gui.engine.learning import LexicalStore

    store = LexicalStore()
    store.add([LONG, LONG[:LABEL_CHARS]])
    for kind in ("word", "char"):
        rows = store.tfidf(kind, slice(0, 2), store.idf(kind))
        assert (rows[0] != rows[1]).nnz == 0  # what follows the cut changes nothing
        assert store._vectorizers[kind].build_preprocessor()(LONG) == LONG[:LABEL_CHARS].lower()


def test_the_sentence_encoder_tokenizes_a_bounded_prefix():
    from triage_gui.defaults import LABEL_CHARS
    from triage_gui.engine.model import load_encoder

    encoder = load_encoder()
    seen: list[int] = []
    real = encoder._tok

    class Spy:
        def encode(self, text, **kwargs):
            seen.append(len(text))
            return real.encode(text, **kwargs)

    encoder._tok = Spy()
    long_row, cut_row = encoder.encode([LONG, LONG[:LABEL_CHARS] + " and more"])
    assert max(seen) <= LABEL_CHARS + len(" and more")
    assert (long_row == cut_row).all()


def test_the_summary_says_a_ticket_was_cut_for_labelling_and_keeps_it_whole(tmp_path):
    from triage_gui.defaults import LABEL_CHARS
    from triage_gui.engine.tickets import read_table

    path = tmp_path / "long.csv"
    path.write_text(f"text\nmy card was charged twice\n{LONG}\n", encoding="utf-8")
    table, _, summary = read_table(str(path), None, None)
    assert f"1 ticket cut to {LABEL_CHARS:,} characters for labelling (kept whole)" in summary
    assert table.texts[1] == LONG.strip()


def test_a_prompt_example_longer_than_the_cut_is_refused_in_one_sentence():
    profile = default_profile()
    profile.examples[0].text = LONG
    messages = [p.message for p in profile.problems()]
    assert any(m.startswith("Example 1 is 1,040,000 characters long") for m in messages), messages


def test_classify_fast_with_a_few_megabyte_ticket_stays_small(tmp_path):
    """The whole process, as a user runs it (a 4 MB ticket peaked at 1.28 GB before the cut, 0.49 GB after, by
    /usr/bin/time; no ceiling is asserted: under the test runner the same child measured 1.71 GB)."""
    text = "my card was charged twice and the refund never came " * 80_000  # 4 MB
    path = tmp_path / "long.csv"
    path.write_text(f"text\nmy card was charged twice\n{text}\nthe app crashes\n", encoding="utf-8")
    run = (
        "import resource, runpy, sys\n"
        "try:\n"
        "    runpy.run_module('triage_gui', run_name='__main__')\n"
        "except SystemExit as exc:\n"
        "    code = exc.code\n"
        "print('peak', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n"
        "sys.exit(code)\n"
    )
    command = ["classify", str(path), "--fast", "--out", str(tmp_path / "out.csv")]
    done = subprocess.run(
        [sys.executable, "-c", run, *command], env=_env(), capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert "cut to 20,000 characters for labelling" in done.stderr
    rows = (tmp_path / "out.csv").read_text(encoding="utf-8")
    assert text.strip() in rows  # kept whole in the output


# ----------------------------------------------------------------- 8. caches trusted too far; (c) a flipped byte


def _fake_loaded(tmp_path: Path):
    """Enough of a loaded model for the prefix store's key: a weights file and the decoder's identity."""
    import types

    import torch

    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "model.safetensors").write_bytes(b"weights")
    decoder = types.SimpleNamespace(dtype=torch.float32, device=torch.device("cpu"), products="aten")
    return types.SimpleNamespace(source=str(folder), decoder=decoder)


def _stored_prefix(tmp_path: Path):
    import torch

    from triage_gui.engine.model import _prefix_store as store

    loaded, ids = _fake_loaded(tmp_path), [5, 6, 7]
    generator = torch.Generator().manual_seed(3)
    layers = [
        (torch.randn(1, 2, 3, 4, generator=generator), torch.randn(1, 2, 3, 4, generator=generator)) for _ in range(2)
    ]
    store.save(loaded, ids, layers)
    path = store._folder() / f"{store.key(loaded, ids)}.safetensors"
    assert store.read(loaded, ids).layers is not None
    return store, loaded, ids, layers, path


def _another_account(path: Path, monkeypatch) -> None:
    """Make ``path`` another account's: chown as root, else this process pretends to be someone else."""
    if os.geteuid() == 0:
        os.chown(path, 4242, 4242)
    else:
        uid = os.getuid()
        monkeypatch.setattr(os, "getuid", lambda: uid + 4242)


def test_a_stored_prefix_with_any_one_byte_flipped_is_never_used_silently(tmp_path):
    import torch

    store, loaded, ids, layers, path = _stored_prefix(tmp_path)
    whole = path.read_bytes()
    for at in range(len(whole)):
        flipped = bytearray(whole)
        flipped[at] ^= 0xFF
        path.write_bytes(bytes(flipped))
        found = store.read(loaded, ids)
        if found.layers is None:
            assert found.problem and path.name in found.problem, at
        else:  # a harmless flip (JSON spacing) may be read, but only as the very values stored
            assert found.problem is None
            assert all(torch.equal(a, c) and torch.equal(b, d) for (a, b), (c, d) in zip(found.layers, layers)), at


def test_a_stored_prefix_another_account_wrote_is_not_used_and_said(tmp_path, monkeypatch):
    """A forged entry (its checksum recomputed) in a shared cache changed labels silently."""
    store, loaded, ids, _, path = _stored_prefix(tmp_path)
    _another_account(path, monkeypatch)
    found = store.read(loaded, ids)
    assert found.layers is None
    assert found.problem and "another account" in found.problem and path.name in found.problem
    assert path.exists()  # not ours to delete


def test_verified_weights_stamps_as_a_fifo_do_not_hang():
    import threading

    from triage_gui.engine.model import _checksums as checksums
    from triage_gui.paths import cache_dir

    stamps = cache_dir() / checksums.STAMPS
    stamps.unlink(missing_ok=True)
    os.mkfifo(stamps)
    try:
        result: list[dict] = []
        worker = threading.Thread(target=lambda: result.append(checksums._read_stamps()), daemon=True)
        worker.start()
        worker.join(20)
        if worker.is_alive():  # release the old code's blocked open, then fail
            with open(os.open(stamps, os.O_WRONLY | os.O_NONBLOCK), "w"):
                pass
        assert result == [{}]
    finally:
        stamps.unlink()


def test_verified_weights_stamps_as_a_huge_sparse_file_are_not_read_whole():
    import tracemalloc

    from triage_gui.engine.model import _checksums as checksums
    from triage_gui.paths import cache_dir

    stamps = cache_dir() / checksums.STAMPS
    stamps.unlink(missing_ok=True)
    with open(stamps, "wb") as handle:
        handle.truncate(200 << 20)  # sparse: no disk used
    try:
        tracemalloc.start()
        assert checksums._read_stamps() == {}
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert peak < 16 << 20, f"read {peak:,} bytes"
    finally:
        stamps.unlink()


def test_stamps_written_by_another_account_vouch_for_nothing(tmp_path, monkeypatch):
    from triage_gui.engine.model import _checksums as checksums
    from triage_gui.paths import cache_dir

    weights = tmp_path / "w.bin"
    weights.write_bytes(b"real weights")
    checksums._stamp(weights, {"sha256": "0" * 64})  # a forged stamp: the file's hash is not this
    assert checksums.sha256_verified(weights, "0" * 64, lambda p: "f" * 64)  # our own stamp is believed
    _another_account(cache_dir() / checksums.STAMPS, monkeypatch)
    assert not checksums.sha256_verified(weights, "0" * 64, lambda p: "f" * 64)  # theirs is not: hashed
    (cache_dir() / checksums.STAMPS).unlink()


# ----------------------------------------------------------------- round four (a): a damaged encoder copy


def test_an_encoder_copy_whose_layernorm_overflows_is_refused_in_one_sentence(tmp_path):
    """Finite but huge LayerNorm weights gave NaN embeddings; ``classify --encoder`` then labelled from the
    other heads without a word. Asked for explicitly, the encoder is refused."""
    import shutil

    from safetensors.torch import load_file, save_file

    from triage_gui.engine.model import load_encoder
    from triage_gui.engine.model._encoder import bundled_folder

    folder = tmp_path / "encoder"
    shutil.copytree(bundled_folder(), folder)
    tensors = load_file(str(folder / "model.safetensors"))
    name = next(k for k in tensors if k.endswith("encoder.layer.1.attention.output.LayerNorm.weight"))
    tensors[name][:] = 3e38
    save_file(tensors, str(folder / "model.safetensors"))
    with pytest.raises(ValueError, match="is damaged: it gives non-finite embeddings"):
        load_encoder(str(folder))
    (tmp_path / "t.txt").write_text("my card was charged twice\n")
    done = subprocess.run(
        [sys.executable, "-m", "triage_gui", "classify", "t.txt", "--fast", "--encoder", str(folder)],
        cwd=tmp_path,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 2 and "non-finite embeddings" in done.stderr
    assert done.stdout == ""  # no labels from the other heads


# ----------------------------------------------------------------- 6. standard input without a bound


class _Stdin:
    """Standard input as ``ticket_file`` sees it: a byte stream that is no terminal."""

    def __init__(self, data: bytes) -> None:
        import io

        self.buffer = io.BytesIO(data)
        self.buffer.isatty = lambda: False  # type: ignore[method-assign]


def test_standard_input_past_its_limit_is_one_sentence_and_leaves_no_copy(tmp_path, monkeypatch, capsys):
    import tempfile

    from triage_gui.commands import _steps as steps

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(steps, "STDIN_LIMIT", 3 << 20)
    monkeypatch.setattr(steps, "PROGRESS_BYTES", 1 << 20)
    monkeypatch.setattr(sys, "stdin", _Stdin(b"my card was charged twice\n" * 200_000))  # 5.2 MB
    with pytest.raises(ValueError, match=r"more than .* GB of tickets; save them to a file"), steps.ticket_file("-"):
        pass
    assert list(tmp_path.iterdir()) == []  # the partial copy is gone
    assert "2 MB read from standard input" in capsys.readouterr().err  # progress while it copied


def test_reading_a_big_file_says_how_far_it_got(tmp_path):
    from triage_gui.engine.tickets import read_table

    path = tmp_path / "t.csv"
    path.write_text("text\n" + "my card was charged twice\n" * 10_000, encoding="utf-8")
    seen: list[int] = []
    table, _, _ = read_table(str(path), None, None, seen.append)
    assert seen == [4096, 8192, 10_000] and len(table.texts) == 10_000


def test_sigterm_while_standard_input_stalls_removes_the_copy(tmp_path):
    import signal
    import time

    env = _env()
    env["TMPDIR"] = str(tmp_path)
    child = subprocess.Popen(
        [sys.executable, "-m", "triage_gui", "classify", "-", "--fast"],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert child.stdin is not None
    try:
        child.stdin.write(b"text\nmy card was charged twice\n")
        child.stdin.flush()
        copy = []
        for _ in range(1200):  # until the copy exists (the interpreter and imports come first)
            copy = list(tmp_path.glob("triage-stdin-*/*"))
            if copy:
                break
            time.sleep(0.1)
        assert copy, "standard input was never copied"
        child.send_signal(signal.SIGTERM)
        assert child.wait(timeout=60) != 0
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        child.stdin.close()
    assert not list(tmp_path.glob("triage-stdin-*"))
