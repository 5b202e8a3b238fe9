"""Compiled (Cython) modules that cannot be imported: said in one line, while the rest of cavekit works.

The compiled engines (`<game>/compiled.pyx`) and the compiled searchers are extension modules built by
setup.py. A checkout whose modules were never built, or a module built for another Python or platform, leaves
them out. Then the reference engines and the pure-Python agents still work; asking for a compiled engine is a
`CompiledModuleError` (a ConfigError, so the CLI prints it as one `cavekit: error:` line) naming the module
and how to rebuild it; and importing `cavekit.search` logs one line naming the agent modules it left out.
"""
from __future__ import annotations

import importlib
import importlib.machinery
from types import ModuleType

from .api import ConfigError

REBUILD = ("rebuild the compiled modules with `pip install -e .` in a checkout, or reinstall cavekit from its "
           "sdist (either needs a C compiler and the Python headers)")


class CompiledModuleError(ConfigError):
    """A compiled module that cannot be imported: not built, or built for another Python or platform."""


def missing_compiled_module(error: ImportError) -> str | None:
    """The module whose absence or failed load `error` reports, if it is one of cavekit's compiled modules;
    None for any other import error (which is a bug to see in full, not a build to redo)."""
    # Every pure-Python module of cavekit is in its source tree and its wheel, so a cavekit module that is
    # not found is an extension module that was not built; one that is found but does not load is an
    # extension module (its file has an extension-module suffix).
    if isinstance(error, ModuleNotFoundError):
        return error.name if (error.name or "").partition(".")[0] == "cavekit" else None
    if (error.path or "").endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES)):
        return error.name or error.path
    return None


def import_compiled(module: str, needed_by: str, instead: str) -> ModuleType:
    """The compiled module `module`; if it (or a compiled module it needs) cannot be imported, a one-line
    CompiledModuleError saying that `needed_by` needs it, what to do `instead`, and how to rebuild it."""
    try:
        return importlib.import_module(module)
    except ImportError as error:
        missing = missing_compiled_module(error)
        if missing is None:
            raise
        raise CompiledModuleError(f"{needed_by} needs the compiled module {missing}, which cannot be imported "
                                  f"({error}); {instead}, or {REBUILD}") from None


def compiled_engine(package: str, game: str) -> type:
    """The state class of the compiled engine of the game package `package` (`<package>.compiled`)."""
    module = import_compiled(f"{package}.compiled", f"the compiled engine of {game}",
                             "load the game with engine='reference'")
    return module.CompiledState
