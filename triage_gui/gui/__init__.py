"""The thin Qt layer: window, widgets, table models and the worker threads that drive the engine."""
