"""Packages are found, not listed: a sub-package missing from a hand-made list showed only in the frozen
bundle. The shipped resources (default prompt, sample tickets, icons) travel inside the package as
``triage_gui.resources``. Everything else about the build is in pyproject.toml."""

from setuptools import find_packages, setup

setup(
    packages=[*find_packages(include=["triage_gui", "triage_gui.*"]), "triage_gui.resources"],
    package_dir={"triage_gui.resources": "resources"},
)
