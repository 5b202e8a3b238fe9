"""The package as installed: one version everywhere, `python -m cavekit`, package data found by pattern, and a
cavekit whose compiled modules cannot be imported saying so in one line while its reference engines play.

Building the sdist and a wheel from it, and checking the wheel against the source tree, is `.ci/run`'s
packaging step (`.ci/check_package.py`), too slow for a unit test.
"""
from __future__ import annotations

import glob
import importlib.machinery
import os
import runpy
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

import cavekit
from cavekit.core.compiled_modules import missing_compiled_module
from cavekit.core.registry import game_specs

ROOT = Path(__file__).resolve().parent.parent

# Run first in a child process: cavekit's extension modules are not found, as in a tree or install where they
# were never built (the pure-Python modules are found as usual).
HIDE_COMPILED = '''
import importlib.abc, importlib.machinery, sys

class HideCompiled(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if not name.startswith("cavekit."):
            return None
        for finder in sys.meta_path[sys.meta_path.index(self) + 1:]:
            spec = finder.find_spec(name, path, target) if hasattr(finder, "find_spec") else None
            if spec is not None:
                if isinstance(spec.loader, importlib.machinery.ExtensionFileLoader):
                    raise ModuleNotFoundError(f"No module named {name!r}", name=name)
                return None
        return None

sys.meta_path.insert(0, HideCompiled())
'''


def run_python(code: str, *args: str) -> subprocess.CompletedProcess:
    """`python -c code args...` in a new process, from the folder this test file is in."""
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=300,
                          cwd=Path(__file__).parent)


def test_the_version_is_the_installed_metadata_version():
    assert cavekit.__version__ == metadata.version("cavekit")


@pytest.mark.parametrize("command", [[sys.executable, "-m", "cavekit"],
                                     [str(Path(sys.executable).with_name("cavekit"))]],
                         ids=["python -m cavekit", "console script"])
def test_python_m_cavekit_and_the_console_script_print_the_version(command: list[str]):
    done = subprocess.run([*command, "--version"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == f"cavekit {cavekit.__version__}", done.stderr


def test_only_missing_cavekit_modules_and_unloadable_extension_modules_count_as_compiled_modules():
    assert missing_compiled_module(ModuleNotFoundError("No module", name="cavekit.core.cvc.compiled")) \
        == "cavekit.core.cvc.compiled"
    assert missing_compiled_module(ModuleNotFoundError("No module", name="numpy")) is None
    so = "/x/compiled" + importlib.machinery.EXTENSION_SUFFIXES[0]
    assert missing_compiled_module(ImportError("undefined symbol", name="cavekit.core.x", path=so)) == "cavekit.core.x"
    assert missing_compiled_module(ImportError("cannot import name 'y'", name="cavekit.core.api",
                                               path="/x/api.py")) is None


def test_without_compiled_modules_importing_says_so_in_one_line_and_the_reference_engines_play():
    code = HIDE_COMPILED + '''
import numpy as np
import cavekit.search
from cavekit.core import CHANCE, ConfigError, load_game
from cavekit.core.compiled_modules import CompiledModuleError
from cavekit.core.registry import game_specs
from cavekit.search import make_agent
for spec in game_specs():
    if spec.default_engine != "reference":
        try:
            load_game(spec.name)
            raise SystemExit(f"{spec.name}: the compiled engine loaded")
        except CompiledModuleError as error:
            print("error", spec.name, error)
    game = load_game(spec.name, engine="reference")
    state = game.new_initial_state(seed=1)
    agents = [make_agent("random", game, seed=seat) for seat in range(game.num_players)]
    rng = np.random.default_rng(0)
    for _ in range(30):
        if state.is_terminal():
            break
        if state.current_player() == CHANCE:
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[rng.integers(len(outcomes))][0])
        else:
            state.apply_action(agents[state.current_player()].step(state))
    print("played", spec.name)
try:
    make_agent("cvc_mcts", load_game("cvc", engine="reference"))
except ConfigError as error:
    print("agent", error)
'''
    done = run_python(code)
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("cavekit: compiled modules cannot be imported: ")
    for module in ("cavekit.search.cvc_segments", "cavekit.search.cvc_mcts", "cavekit.search.cvc_turn_mcts",
                   "cavekit.search.cvc_expectimax"):
        assert module in done.stderr
    assert "pip install -e ." in done.stderr
    lines = done.stdout.splitlines()
    for spec in game_specs():
        assert f"played {spec.name}" in lines
        if spec.default_engine != "reference":
            error = next(line for line in lines if line.startswith(f"error {spec.name} "))
            assert f"the compiled engine of {spec.name} needs the compiled module cavekit.core.{spec.name}.compiled" \
                   f", which cannot be imported" in error and "engine='reference'" in error
    agent = next(line for line in lines if line.startswith("agent "))
    assert "unknown agent 'cvc_mcts'" in agent and "cavekit.search.cvc_mcts" in agent


def test_without_compiled_modules_the_cli_says_so_in_one_error_line_and_exit_2():
    code = HIDE_COMPILED + "import runpy; runpy.run_module('cavekit', run_name='__main__')"
    done = run_python(code, "match", "cvc", "--games", "2", "--agents", "greedy", "random", "--quiet")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    import_line, error_line = done.stderr.splitlines()
    assert import_line.startswith("cavekit: compiled modules cannot be imported: ")
    assert error_line.startswith("cavekit: error: the compiled engine of cvc needs the compiled module "
                                 "cavekit.core.cvc.compiled, which cannot be imported")


def test_the_module_named_is_the_one_missing_not_the_one_that_needs_it():
    # Only the compiled Cave vs Cave engine is missing: the compiled searchers that cimport it are left out
    # naming it, and the other games' compiled engines still load.
    code = ('import sys\nsys.modules["cavekit.core.cvc.compiled"] = None\n'
            'import cavekit.search\nfrom cavekit.core import load_game\n'
            'print(type(load_game("pairs").new_initial_state()).__name__)')
    done = run_python(code)
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith("cavekit: compiled modules cannot be imported: cavekit.core.cvc.compiled; ")
    assert done.stdout.strip() == "CompiledState"


def setup_configuration(monkeypatch: pytest.MonkeyPatch) -> dict:
    """setup.py's globals, read without building (its `setup()` call runs only as __main__)."""
    pytest.importorskip("setuptools")        # setup.py imports it; Python 3.12+ venvs come without it
    monkeypatch.chdir(ROOT)
    return runpy.run_path(str(ROOT / "setup.py"), run_name="cavekit_setup")


def data_files() -> list[Path]:
    """Every file in a `data` folder of the package's source folders."""
    return sorted(p for folder in ("core", "search", "analysis") for p in (ROOT / folder).rglob("*")
                  if p.is_file() and "data" in p.relative_to(ROOT).parts[:-1] and "__pycache__" not in p.parts)


def test_the_package_data_patterns_cover_every_data_file_and_every_pxd(monkeypatch: pytest.MonkeyPatch):
    setup = setup_configuration(monkeypatch)
    packages = setup["packages"]()
    patterns = setup["package_data"](packages)
    folders = setup["PACKAGE_DIRS"]

    def folder_of(package: str) -> Path:
        root = max((p for p in folders if package == p or package.startswith(p + ".")), key=len)
        return ROOT / folders[root] / Path(*package[len(root) + 1:].split(".")) if package != root \
            else ROOT / folders[root]

    # What setuptools installs as package data: each package's patterns (and those of "") globbed in its folder.
    installed = {Path(f) for package in packages for pattern in patterns.get(package, []) + patterns[""]
                 for f in glob.glob(str(folder_of(package) / pattern)) if os.path.isfile(f)}
    data = data_files()
    pxd = sorted(p for folder in ("core", "search", "analysis") for p in (ROOT / folder).rglob("*.pxd"))
    assert len(data) >= len(game_specs()) and pxd
    assert [p for p in data + pxd if p not in installed] == []
    assert {p.suffix for p in installed} <= {p.suffix for p in data + pxd}      # nothing else comes in
