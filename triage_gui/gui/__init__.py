"""The thin Qt layer: the window, its areas and widgets, the table models, and the actions as data; it
observes the session and sends it intents (the worker threads are the session's)."""
