"""cavekit: AI opponents and strategy analysis for cave-themed strategy games."""

# The one place the version is written: pyproject.toml reads it from here (`[tool.setuptools.dynamic]`), and
# `cavekit --version` and the results manifests show it.
__version__ = "0.1.0"
