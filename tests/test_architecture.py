"""The layers you can see from the tree: engine < session < gui, leaves below all, nothing imports the
command line, no import circles (type-only imports included), no module over 600 lines and none over 450
unless named with a reason, no function that takes the main window as a parameter (nor under the name
``parent``), the window reading only the names its three doors offer (session, prompt document,
evaluation) and asking the ticket area, the editor and the results area through their methods, not their
widgets; inside the engine, its parts
(sub-packages) and the edges allowed between them, each part's modules private behind its ``__init__``."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from helpers import ROOT

PACKAGE = ROOT / "triage_gui"
LEAVES = {"triage_gui.paths", "triage_gui.defaults", "triage_gui", "triage_gui.versions", "triage_gui.words"}
# Each layer may import itself and the layers before it.
ORDER = ["leaf", "engine", "session", "gui", "top"]


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer(name: str) -> str:
    if name in LEAVES:
        return "leaf"
    for part in ("engine", "session", "gui"):
        if name.startswith(f"triage_gui.{part}"):
            return part
    return "top"  # commands (the command line), ray (the scale-out path), __main__


def imports(path: Path) -> set[str]:
    """Modules of the package this file imports (at any depth: lazy imports count too)."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found: set[str] = set()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):  # type-only imports (under ``if TYPE_CHECKING:``) count like any other
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if not target.startswith("triage_gui"):
                continue
            for alias in node.names:
                candidate = f"{target}.{alias.name}"
                found.add(candidate if (PACKAGE.parent / (candidate.replace(".", "/") + ".py")).exists() else target)
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("triage_gui")}
    return found - {name}


MODULES = {module_name(p): p for p in PACKAGE.rglob("*.py")}
ENGINE = "triage_gui.engine"
# The engine's parts and the parts each may import (the import-linter contracts napari keeps, as a test):
# files and table are leaves; the model knows the table only for the type a scorer returns; learning
# programs against the model's protocols and never imports scoring.
PARTS: dict[str, set[str]] = {
    "files": set(),
    "table": set(),
    "prompt": {"files"},
    "model": {"files", "table"},
    "tickets": {"files", "table", "prompt"},
    "scoring": {"files", "model", "prompt", "table"},
    "learning": {"files", "model", "prompt", "table"},
    "grouping": {"files", "prompt", "table"},
}
ENGINE_OWN = {ENGINE, f"{ENGINE}._lazy"}  # the engine's docstring and the lazy faces' helper
# The named exceptions: arrows the layers allow only for the reason given. Keep it short; an arrow
# added here needs its reason, and one that no longer exists fails test_exceptions_still_exist.
EXCEPTIONS: dict[tuple[str, str], str] = {}
GRAPH = {
    name: (imports(path) & set(MODULES)) - {t for (n, t) in EXCEPTIONS if n == name} for name, path in MODULES.items()
}


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_arrow_runs_back_up(name):
    mine = ORDER.index(layer(name))
    for target in GRAPH[name]:
        assert ORDER.index(layer(target)) <= mine, f"{name} ({layer(name)}) imports {target} ({layer(target)})"
        if name != "triage_gui.__main__":  # ``python -m triage_gui``: the entry point runs the command line
            assert target != "triage_gui.commands", f"{name} imports the command line"


def test_exceptions_still_exist():
    for (name, target), why in EXCEPTIONS.items():
        assert target in imports(MODULES[name]), f"stale exception {name} -> {target} ({why})"


def test_no_import_circles():
    state: dict[str, int] = {}

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        for target in GRAPH[node]:
            if state.get(target) == 1:
                raise AssertionError("import circle: " + " -> ".join([*stack, node, target]))
            if target not in state:
                visit(target, [*stack, node])
        state[node] = 2

    for name in sorted(GRAPH):
        if name not in state:
            visit(name, [])


# The top's packages: the command line may use the scale-out path; the scale-out path imports nothing of the
# command line (its progress line is handed to it), and nothing below the top imports either.
TOP_EDGES = {"triage_gui.commands": {"triage_gui.ray"}, "triage_gui.ray": set()}


@pytest.mark.parametrize("name", sorted(n for n in MODULES if layer(n) == "top" and n != "triage_gui.__main__"))
def test_the_commands_and_the_ray_path_import_only_their_edges(name):
    own = next(p for p in TOP_EDGES if name == p or name.startswith(p + "."))
    for target in imports(MODULES[name]):
        other = next((p for p in TOP_EDGES if target == p or target.startswith(p + ".")), None)
        assert other in (None, own, *TOP_EDGES[own]), f"{name} imports {target}"


def test_the_engine_and_the_session_import_no_qt():
    for name, path in MODULES.items():
        if layer(name) in ("engine", "session", "leaf"):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            names = [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
            names += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
            assert not any(n.startswith(("PySide6", "qasync")) for n in names), f"{name} imports Qt"


# A module over 450 lines is a smell, not a fault: one named here, with why it is one piece, may run to
# 600. Splitting such a class across files whose state is declared twice (a mixin restating another
# class's attributes for the type checker) read worse than one longer module.
SOFT_CAP, HARD_CAP = 450, 600
# Modules over the soft cap, each with why it is one piece (a mixin that restates another class's state for
# the type checker is harder to read than one longer module).
LONG_MODULES: dict[str, str] = {
    "triage_gui.session.teaching": "the taught set and its refit are one class: the refit reads and writes two "
    "dozen of its attributes, which a refit mixin in its own module restated for the type checker",
    "triage_gui.gui.prompt.prompt_editor": "the prompt editor is one widget: its three tables, their undo snapshots "
    "and their keys (Tab, row moves) all read and write the same tables and the same undo stack",
    "triage_gui.session.prompt_document": "the prompt file's one owner: open, save, new, the draft and the taught "
    "set's background writes, whose bookkeeping is settled in one place (round five's lost tickets came from two)",
    "triage_gui.session.session": "the session's tasks cancel one another (the model's load, the encoder's, the "
    "prompt's rebuild, the run): choosing the encoder stops the run and starts the encoder's load, both its own",
    "triage_gui.engine.table._table": "the row store is one class: its columns, their writes and their whole-column "
    "reads, which a read-only mixin in its own module restated (seventeen columns) for the type checker",
}


def lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*.py")), ids=lambda p: p.name)
def test_no_module_over_600_lines_nor_over_450_unless_named_with_a_reason(path):
    assert lines(path) <= HARD_CAP
    assert lines(path) <= SOFT_CAP or module_name(path) in LONG_MODULES, (
        f"{module_name(path)} has {lines(path)} lines: split it, or name it in LONG_MODULES with why it is one piece"
    )


def test_the_long_modules_named_are_still_long():
    for name, reason in LONG_MODULES.items():
        assert name in MODULES and lines(MODULES[name]) > SOFT_CAP and reason.strip(), name


def test_no_function_takes_the_main_window():
    """Each area owns its behaviour and gets narrow inputs: a function given the whole window reaches
    through it (``w.tickets.gold_combo``) and ties every area to every other."""
    for name, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                for arg in [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]:
                    annotation = ast.unparse(arg.annotation) if arg.annotation is not None else ""
                    window_name = layer(name) == "gui" and arg.arg in ("w", "window")  # (w: a weight elsewhere)
                    assert "MainWindow" not in annotation and not window_name, (
                        f"{name}.{node.name} takes the main window ({arg.arg})"
                    )


def part(name: str) -> str | None:
    pieces = name.split(".")
    return pieces[2] if name.startswith(ENGINE + ".") and name not in ENGINE_OWN else None


def test_every_engine_module_lives_in_a_part():
    for name in MODULES:
        if name.startswith(ENGINE) and name not in ENGINE_OWN:
            assert part(name) in PARTS, f"{name} is in no part of the engine ({', '.join(PARTS)})"


@pytest.mark.parametrize("name", sorted(n for n in MODULES if n.startswith(ENGINE + ".")))
def test_engine_parts_import_only_the_parts_below_them(name):
    mine = part(name)
    for target in GRAPH[name]:
        theirs = part(target)
        if mine and theirs and theirs != mine:
            assert theirs in PARTS[mine], f"{name} ({mine}) imports {target} ({theirs}), outside {PARTS[mine]}"


@pytest.mark.parametrize("name", sorted(MODULES))
def test_a_parts_modules_are_private_to_it(name):
    """Outside its part a module is reached through the part's ``__init__`` (``engine.tickets``), never
    ``engine.tickets._reader``: the face is what a part promises, its modules can move."""
    for target in GRAPH[name]:
        if part(target) and part(target) != part(name):
            assert target.count(".") == 2, f"{name} imports {target}, a private module of {part(target)}"


def _lazy_names(path: Path) -> tuple[set[str], set[str], set[str]]:
    """A lazy face's names three ways: imported under TYPE_CHECKING, in its map, and in ``__all__``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typed: set[str] = set()
    mapped: set[str] = set()
    listed: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.If):
            typed |= {a.asname or a.name for n in node.body if isinstance(n, ast.ImportFrom) for a in n.names}
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            where = ast.literal_eval(node.value.args[1])
            mapped |= {name for names in where.values() for name in names}
            mapped |= {k for kw in node.value.keywords for k in ast.literal_eval(kw.value)}
        elif isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "__all__" for t in node.targets):
            listed = set(ast.literal_eval(node.value))
    return typed, mapped, listed


@pytest.mark.parametrize("name", sorted(PARTS))
def test_each_part_has_one_face(name):
    """Every name a part offers is in its ``__all__`` and importable; a lazy face lists the same names for
    mypy and for the import on first use."""
    import importlib

    path = PACKAGE / "engine" / name / "__init__.py"
    face = importlib.import_module(f"{ENGINE}.{name}")
    assert face.__doc__ and len(face.__doc__) > 80, f"{name} says what it holds"
    for exported in face.__all__:
        assert getattr(face, exported) is not None
    if "lazy_face" in path.read_text(encoding="utf-8"):
        typed, mapped, listed = _lazy_names(path)
        assert typed == mapped == listed


def test_the_window_starts_without_torch_or_scikit_learn():
    """The lazy faces' reason: importing the window must not load torch, transformers or scikit-learn
    (2-3 s before the window shows); the model loads on its own thread later."""
    import subprocess
    import sys

    code = (
        "import sys, triage_gui.gui.main_window, triage_gui.session.session\n"
        "print(sorted(m for m in ('torch', 'transformers', 'sklearn') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.strip() == "[]"


# What the session keeps to itself: the window asks through its door (session/intents.py) instead.
SESSION_PARTS = {"teaching", "checks", "engine", "engine_thread", "loader_thread", "file_thread"}
GUI = {name: path for name, path in MODULES.items() if layer(name) == "gui"}


def aliases(tree: ast.AST, attr: str) -> set[str]:
    """``attr`` and the names a module binds to ``….attr`` or ``attr`` (``s = self.session``)."""
    names = {attr}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            value = node.value
            if (isinstance(value, ast.Attribute) and value.attr == attr) or (
                isinstance(value, ast.Name) and value.id == attr
            ):
                names.add(node.targets[0].id)
    return names


def reaches(tree: ast.AST, attr: str) -> list[tuple[int, str]]:
    """Every ``<attr or an alias of it>.name`` in the module: (line, name)."""
    names = aliases(tree, attr)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            value = node.value
            if (isinstance(value, ast.Name) and value.id in names) or (
                isinstance(value, ast.Attribute) and value.attr == attr
            ):
                found.append((node.lineno, node.attr))
    return found


@pytest.mark.parametrize("name", sorted(GUI))
def test_the_window_asks_the_session_not_its_parts(name):
    """``session.teaching.taught``, ``session.checks.record``, ``session.file_thread.submit`` tied the window
    to how the session is built; it calls the session's intent methods (:mod:`session.intents`)."""
    tree = ast.parse(GUI[name].read_text(encoding="utf-8"))
    bad = [(line, part) for line, part in reaches(tree, "session") if part in SESSION_PARTS or part.startswith("_")]
    where = ", ".join(f"line {n}: session.{p}" for n, p in sorted(bad))
    assert not bad, f"{name} reaches through the session: {where}"


@pytest.mark.parametrize("name", sorted(GUI))
def test_a_parent_is_only_a_parent_for_dialogs(name):
    """An action class given the window as its ``parent`` and then using it as the window
    (``self.parent.setWindowTitle``, ``parent.tickets…``) takes the main window by another name: a kept
    ``self.parent`` is only passed on to dialogs, and a ``parent`` argument is used only as a QWidget."""
    from PySide6.QtWidgets import QWidget

    tree = ast.parse(GUI[name].read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and ast.unparse(node.value) == "self.parent":
            raise AssertionError(f"{name}:{node.lineno} uses self.parent as the window (self.parent.{node.attr})")
        if not isinstance(node, ast.FunctionDef):
            continue
        args = [a for a in (*node.args.args, *node.args.kwonlyargs) if a.arg == "parent"]
        if not args or "Index" in ast.unparse(args[0].annotation or ast.Constant("")):  # a model's parent index
            continue
        for inner in ast.walk(node):
            if isinstance(inner, ast.Attribute) and isinstance(inner.value, ast.Name) and inner.value.id == "parent":
                assert hasattr(QWidget, inner.attr), f"{name}:{inner.lineno} reaches parent.{inner.attr}"


def widget_attributes(path: Path, cls: str) -> set[str]:
    """The attributes a class sets to something it makes (``self.gold_combo = QComboBox()``, and the
    widgets named in a tuple assignment)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    klass = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls)
    found = set()
    for node in ast.walk(klass):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                for t in target.elts if isinstance(target, ast.Tuple) else [target]:
                    made = isinstance(node.value, ast.Call | ast.Tuple)
                    if made and isinstance(t, ast.Attribute) and ast.unparse(t.value) == "self":
                        found.add(t.attr)
    return found


def test_the_window_uses_the_ticket_areas_methods_not_its_widgets():
    """``main_window`` set ``tickets.gold_combo``, ``tickets.threshold`` and ``tickets.baseline_toggle``
    itself; the ticket area now says what it offers (``show_gold``, ``set_threshold``, ``show_baseline``,
    ``focus_table``, its forwarded signals). Tests may still click its widgets, as a user would."""
    area = PACKAGE / "gui" / "tickets" / "ticket_area.py"
    widgets = widget_attributes(area, "TicketArea") - {"suggested", "to_check"}
    assert {"gold_combo", "threshold", "baseline_toggle", "table", "empty", "proxy"} <= widgets
    for name, path in GUI.items():
        if name.endswith(".ticket_area"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        bad = [(line, attr) for line, attr in reaches(tree, "tickets") if attr in widgets]
        assert not bad, f"{name} reaches into the ticket area: " + ", ".join(f"line {n}: {a}" for n, a in sorted(bad))


# The window's three doors and what it may read of each, by attribute name: the session's intent methods,
# read-only properties, statuses and events (session/intents.py, session/session.py), the prompt
# document (session/prompt_document.py) and the evaluation (session/evaluation.py). An allow-list, so a
# new reach-through (``session.scorer``, ``session.encoder``) fails here until its owner offers a narrow
# method or property and it is named below. The names are what the window reads today: a test below
# keeps the list no longer than that.
WINDOW_READS = {
    "session": {
        "add_taught", "cancel_load", "check_records", "check_status", "checks_changed", "clear",
        "columns", "compares_baseline", "draw_checks", "edit_groups", "file_changed", "forget_all",
        "accept_field", "field_decision", "field_labels", "taught_in", "field_names", "field_reading", "field_table",
        "field_taught", "teach_field", "fields_moved", "follow_renames", "take_back_renames",
        "has_model", "head_changed", "head_status", "history", "in_background", "labels", "learn_from",
        "languages_known", "load_model", "message", "model_changed", "model_spec", "encoder_spec",
        "offers_multilingual", "model_status", "next_to_check",
        "field_suggestions", "number_checks", "open_file", "paste", "prompt_changed", "prompt_in_use",
        "prompt_status", "reading", "refinement", "refresh_checks", "restore_kept", "resume", "rows_added",
        "rows_changed", "run_changed", "run_status", "running", "save_taught", "set_baseline",
        "set_calibration", "set_encoder", "set_prompt", "set_text_column", "shutdown", "stop", "suggest_groups",
        "suggested", "table", "table_reset", "taught", "taught_items", "text_column",
        "ticket_count", "ticket_files",
        "field_check_records", "field_check_status", "field_checks_changed",  # random checks per field
        "field_learned",  # each further field's taught tickets its fit learns from
    },
    "document": {
        "adopt", "applied", "changed", "close", "dirty", "draft", "draft_taught", "edit", "failed", "fields_moved",
        "flush", "forgotten", "checks",
        "history", "keep_checks", "keep_field_taught", "keep_taught", "merged", "new", "number", "path", "read",
        "save", "saved", "scored",
        "start", "status", "stranded", "version_profile", "write_draft",
        "keep_field_checks",
        "field_history", "keep_field_history",  # versions per field
    },
    "evaluation": {
        "choose", "choose_for", "cleared", "comparison", "detect", "detect_fields", "field_gold_changed", "flips",
        "follow_fields", "follow_renames", "gold", "gold_changed", "gold_for", "mappings", "needs_mapping", "numbering",
        "scored", "version_applied", "field_scored",
    },
}  # fmt: skip


def _names_the_door(value: ast.expr, door: str) -> bool:
    return (isinstance(value, ast.Attribute) and value.attr == door) or (
        isinstance(value, ast.Name) and value.id == door
    )


def door_reads(tree: ast.Module, door: str) -> set[tuple[int, str]]:
    """Every ``door.name``, ``self.door.name`` and ``alias.name`` (``s = self.session`` in the same function,
    or at the module's top) in a module: (line, name). Aliases are per function, so ``s = self.settings``
    in one method is not taken for the session another method calls ``s``."""
    found = set()
    functions = [f for f in ast.walk(tree) if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)]
    for scope, statements in [(tree, tree.body), *((f, list(ast.walk(f))) for f in functions)]:
        names = {door}
        for node in statements:
            single = isinstance(node, ast.Assign) and len(node.targets) == 1
            if single and isinstance(node.targets[0], ast.Name) and _names_the_door(node.value, door):
                names.add(node.targets[0].id)
        for node in ast.walk(scope):
            if isinstance(node, ast.Attribute) and (
                (isinstance(node.value, ast.Name) and node.value.id in names)
                or (isinstance(node.value, ast.Attribute) and node.value.attr == door)
            ):
                found.add((node.lineno, node.attr))
    return found


@pytest.mark.parametrize("door", sorted(WINDOW_READS))
@pytest.mark.parametrize("name", sorted(GUI))
def test_the_window_reads_only_what_its_doors_offer(name, door):
    tree = ast.parse(GUI[name].read_text(encoding="utf-8"))
    bad = sorted((line, attr) for line, attr in door_reads(tree, door) if attr not in WINDOW_READS[door])
    where = ", ".join(f"line {n}: {door}.{a}" for n, a in bad)
    assert not bad, f"{name} reads past its door: {where} (give the owner a narrow method, and list it)"


def test_every_name_the_doors_list_is_read_by_the_window():
    for door, allowed in WINDOW_READS.items():
        read = {attr for path in GUI.values() for _, attr in door_reads(ast.parse(path.read_text("utf-8")), door)}
        assert allowed <= read, f"{door}: no longer read, drop from WINDOW_READS: {sorted(allowed - read)}"


def test_a_door_read_is_found_through_an_alias_but_not_through_another_functions_name():
    tree = ast.parse(
        "def a(self):\n    s = self.session\n    s.scorer\n"
        "def b(self):\n    s = self.settings\n    s.sync()\n    self.session.profile\n"
    )
    assert door_reads(tree, "session") == {(3, "scorer"), (7, "profile")}


@pytest.mark.parametrize(
    ("module", "cls", "alias"),
    [("prompt_editor", "PromptEditor", "editor"), ("results_area", "ResultsArea", "results")],
)
def test_the_window_uses_the_editors_and_the_results_areas_methods_not_their_widgets(module, cls, alias):
    """``prompt_actions`` set ``editor.state_label``, ``undo_actions`` drove ``editor.undo_stack`` and the
    summary fed ``results.chart``; each now asks its owner (``show_state``, ``undo_edit``/``edit_steps``,
    ``show_latencies``)."""
    path = next(p for n, p in GUI.items() if n.endswith(f".{module}"))
    widgets = widget_attributes(path, cls)
    for name, other in GUI.items():
        if other == path:
            continue
        tree = ast.parse(other.read_text(encoding="utf-8"))
        bad = sorted((line, attr) for line, attr in door_reads(tree, alias) if attr in widgets)
        assert not bad, f"{name} reaches into the {cls}: " + ", ".join(f"line {n}: {a}" for n, a in bad)
