"""A sub-package's public face imported on first use (PEP 562), for the parts whose modules import torch,
transformers or scikit-learn at the top.

The window imports the engine's faces at start; importing every module behind ``engine.model`` eagerly
would load torch and transformers (2-3 s) before the window shows, though the model loads on its own thread
later. Each face names its names twice: under ``TYPE_CHECKING`` for mypy and the architecture test, and in
the map given here; ``tests/test_architecture.py`` checks that the two agree.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable


def lazy_face(
    package: str, where: dict[str, list[str]], modules: dict[str, str] | None = None
) -> Callable[[str], object]:
    """The ``__getattr__`` of a package whose names live in its private modules: ``{module: [names]}``, and
    ``modules`` offered whole under a public name (``{"prefix_store": "_prefix_store"}``)."""
    home = {name: module for module, names in where.items() for name in names}
    whole = dict(modules or {})

    def __getattr__(name: str) -> object:
        if name in whole:
            value: object = importlib.import_module(f"{package}.{whole[name]}")
        elif name in home:
            value = getattr(importlib.import_module(f"{package}.{home[name]}"), name)
        else:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        # Not cached on the face: a test that patches the private module (``_loader.load_model``) is seen
        # through the face, and its undo too. ``from face import name`` binds once anyway.
        return value

    return __getattr__
