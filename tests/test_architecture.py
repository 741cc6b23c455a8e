"""The layers you can see from the tree: engine < session < gui, leaves below all, nothing imports the
command line, no import circles (type-only imports included), no module over 450 lines, no function
that takes the main window as a parameter."""

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
    return "top"  # cli, classify, evaluate, bench, cluster, __main__


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
            assert target != "triage_gui.cli", f"{name} imports the command line"


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


def test_the_engine_and_the_session_import_no_qt():
    for name, path in MODULES.items():
        if layer(name) in ("engine", "session", "leaf"):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            names = [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
            names += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
            assert not any(n.startswith(("PySide6", "qasync")) for n in names), f"{name} imports Qt"


@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*.py")), ids=lambda p: p.name)
def test_no_module_over_450_lines(path):
    assert len(path.read_text(encoding="utf-8").splitlines()) <= 450


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
