"""Qt-free engine: the parts of the app that know nothing of windows or event loops.

Seven parts, each a sub-package whose ``__init__`` is its public face: ``files`` and ``table`` (leaves),
``prompt``, ``model``, ``tickets``, ``scoring`` and ``learning``. Which part may import which is written
in ``tests/test_architecture.py``; the CLI, the session and the window reach the engine through these
faces only.
"""
