"""Qt-free engine: model loading, prompt layout, scoring, ticket I/O and metrics.

The CLI, the tests and the GUI all go through this package; nothing here imports Qt.
"""
