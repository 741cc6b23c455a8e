"""The working session: what is loaded, what is running and what supersedes what.

Qt-free asyncio code. The app runs it on the Qt event loop through qasync; the tests run it on a plain
asyncio loop with a fake engine, in milliseconds. The window observes it and sends it user intents.
"""
