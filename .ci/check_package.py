"""Checks of `.ci/run`'s packaging step: the build log, the sdist, the wheel, and the installed package.

    python .ci/check_package.py build-log LOG     no warning about the project's own configuration
    python .ci/check_package.py sdist SDIST       every tracked source, test, doc and notebook; no build output
    python .ci/check_package.py wheel WHEEL       exactly the source tree's modules, compiled modules and data
    python .ci/check_package.py installed OUT     (the installed package's Python, outside the source tree)
                                                  every compiled module loads from the installation, and a
                                                  short match of every game on every engine, into OUT/

"The source tree" is what git tracks in the checkout this file is in. Each check prints what it compared and
exits 1 with the differences if there are any.
"""
from __future__ import annotations

import ast
import importlib
import importlib.machinery
import re
import subprocess
import sys
import tarfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# What the sdist must hold of the tracked files (MANIFEST.in says how): the sources, tests, docs, notebooks,
# the sample results the tests and notebooks read, and the files that describe and build the package.
SDIST_FOLDERS = ("cavekit", "core", "search", "analysis", "tests", "docs", "notebooks", ".ci", "results/samples")
SDIST_FILES = ("LICENSE", "README.md", "pyproject.toml", "setup.py", "MANIFEST.in", "results/README.md")
SDIST_METADATA = re.compile(r"^(PKG-INFO|setup\.cfg|[^/]+\.egg-info/.*)$")     # written by the build itself
BUILD_OUTPUT = re.compile(r"\.(c|so|pyd|o|py[cod])$")

# Build-log lines that say "warning" without being about the project's configuration.
NOT_CONFIGURATION = (
    re.compile(r"^warning: \S+\.pyx:\d+:\d+: "),                # Cython, about a line of a .pyx source
    re.compile(r"^\S+\.[ch]:\d+:\d+: warning: "),               # the C compiler, about the generated C
    re.compile(r"^\s*\d*\s*\|"),                                # the C compiler quoting that C
    re.compile(r"warning: (build_py|install_lib): byte-compiling is disabled"),  # PYTHONDONTWRITEBYTECODE
)


def tracked() -> list[str]:
    """The files git tracks in the source tree."""
    out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return [name for name in out.split("\0") if name]


def package_dirs() -> dict[str, str]:
    """setup.py's `PACKAGE_DIRS` (import package -> folder), read without importing setuptools."""
    tree = ast.parse((ROOT / "setup.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "PACKAGE_DIRS" for t in node.targets):
            return ast.literal_eval(node.value)
    raise SystemExit("check_package: setup.py has no PACKAGE_DIRS")


def installed_path(source: str, dirs: dict[str, str]) -> str | None:
    """Where the tracked file `source` goes in the wheel (`core/cvc/rules.py` -> `cavekit/core/cvc/rules.py`),
    or None if it is in no package folder."""
    for package, folder in dirs.items():
        if source.startswith(folder + "/"):
            return "/".join((*package.split("."), source[len(folder) + 1:]))
    return None


def is_data(source: str) -> bool:
    """Whether a tracked file lies in a `data` folder (package data)."""
    return "data" in source.split("/")[:-1]


def source_lists() -> dict[str, list[str]]:
    """The source tree's compiled modules (`.pyx`), data files, Python modules and `.pxd` files, as wheel paths
    (a compiled module without its suffix)."""
    dirs = package_dirs()
    lists: dict[str, list[str]] = {"compiled modules": [], "data files": [], "Python modules": [], "pxd files": []}
    for source in tracked():
        target = installed_path(source, dirs)
        if target is None:
            continue
        if source.endswith(".pyx"):
            lists["compiled modules"].append(target[:-len(".pyx")])
        elif is_data(source):
            lists["data files"].append(target)
        elif source.endswith(".py"):
            lists["Python modules"].append(target)
        elif source.endswith(".pxd"):
            lists["pxd files"].append(target)
    return lists


def compiled_module_names() -> list[str]:
    """The dotted names of the source tree's compiled modules."""
    return [path.replace("/", ".") for path in source_lists()["compiled modules"]]


def fail(problems: list[str]) -> int:
    """Print the problems found; the exit status."""
    for problem in problems:
        print(f"check_package: {problem}", file=sys.stderr)
    return 1 if problems else 0


def check_build_log(log: str) -> int:
    """No line of the build log warns about the project's configuration (setuptools, MANIFEST.in, pyproject)."""
    lines = Path(log).read_text(errors="replace").splitlines()
    warnings = [line for line in lines if "warning" in line.lower()]
    configuration = [line for line in warnings if not any(p.search(line) for p in NOT_CONFIGURATION)]
    print(f"build log: {len(lines)} lines, {len(warnings)} mentioning a warning, {len(configuration)} about the "
          "configuration")
    for line in warnings:
        if line not in configuration:
            print(f"  not configuration: {line.strip()}")
    return fail([f"configuration warning in the build log: {line.strip()}" for line in configuration])


def check_sdist(sdist: str) -> int:
    """The sdist holds every tracked file it should, nothing else but its metadata, and no build output."""
    with tarfile.open(sdist) as archive:
        names = [m.name.partition("/")[2] for m in archive.getmembers() if m.isfile()]
    expected = {name for name in tracked()
                if name in SDIST_FILES or any(name.startswith(folder + "/") for folder in SDIST_FOLDERS)}
    present = set(names)
    problems = [f"sdist lacks {name}" for name in sorted(expected - present)]
    problems += [f"sdist holds build output {name}" for name in sorted(present) if BUILD_OUTPUT.search(name)]
    problems += [f"sdist holds {name}, which is not a tracked source" for name in sorted(present - expected)
                 if not SDIST_METADATA.match(name) and not BUILD_OUTPUT.search(name)]
    pyx = sorted(name for name in present if name.endswith(".pyx"))
    print(f"sdist {Path(sdist).name}: {len(names)} files, {len(expected)} tracked files expected; "
          f"{len(pyx)} .pyx sources: {', '.join(pyx)}")
    return fail(problems)


def check_wheel(wheel: str) -> int:
    """The wheel's package files are exactly the source tree's Python modules, `.pxd` files, data files and one
    extension module per `.pyx` file; the lists are printed."""
    with zipfile.ZipFile(wheel) as archive:
        names = [name for name in archive.namelist() if not name.split("/")[0].endswith(".dist-info")]
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    compiled_in_wheel = {name[:-len(s)]: name for name in names for s in suffixes if name.endswith(s)}
    lists = source_lists()
    problems = []
    for kind, expected in lists.items():
        in_wheel = set(compiled_in_wheel) if kind == "compiled modules" else set(names)
        missing = sorted(set(expected) - in_wheel)
        problems += [f"wheel lacks the {kind[:-1]} {name}" for name in missing]
        if kind in ("compiled modules", "data files"):
            print(f"{kind}: {len(expected)} in the source tree, {len(expected) - len(missing)} of them in the wheel")
            for name in sorted(expected):
                where = compiled_in_wheel.get(name, name) if name not in missing else "MISSING"
                print(f"  {name}  ->  {where}")
    known = {name for expected in lists.values() for name in expected} | set(compiled_in_wheel.values())
    problems += [f"wheel holds {name}, which the source tree does not explain" for name in sorted(names)
                 if name not in known]
    print(f"wheel {Path(wheel).name}: {len(names)} package files, "
          f"{sum(len(v) for v in lists.values())} expected from the source tree")
    return fail(problems)


def check_installed(out: str) -> int:
    """From outside the source tree: cavekit and every compiled module load from the installation, every spec's
    agent modules import, and every game plays a short match on every engine (results into `out`)."""
    from importlib import metadata

    import cavekit
    from cavekit.analysis.batch import run_match
    from cavekit.core.registry import game_specs
    problems = [] if cavekit.__version__ == metadata.version("cavekit") else \
        [f"cavekit.__version__ {cavekit.__version__} is not the installed version {metadata.version('cavekit')}"]
    modules = ["cavekit", *compiled_module_names(), *(m for spec in game_specs() for m in spec.agents)]
    for name in modules:
        module = importlib.import_module(name)
        location = Path(module.__file__).resolve()
        if ROOT in location.parents or not Path(sys.prefix).resolve() in location.parents:
            problems.append(f"{name} was imported from {location}, not from the installation in {sys.prefix}")
    print(f"cavekit {cavekit.__version__}: {len(modules)} modules imported from {sys.prefix}")
    for spec in game_specs():
        for engine in spec.engines:
            started = time.perf_counter()
            folder = Path(out, f"{spec.name}-{engine}")
            results = run_match(spec.name, ["random"] * spec.default_players, games=2, seed=0, progress=False,
                                out=folder, engine=engine, players=spec.default_players)
            print(f"  {spec.name} ({engine} engine): {len(results)} games in {time.perf_counter() - started:.1f} s "
                  f"-> {folder}")
            if len(results) != 2:
                problems.append(f"{spec.name} ({engine}): {len(results)} games, not 2")
    return fail(problems)


COMMANDS = {"build-log": check_build_log, "sdist": check_sdist, "wheel": check_wheel, "installed": check_installed}

if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in COMMANDS:
        raise SystemExit(f"usage: python {sys.argv[0]} {{{','.join(COMMANDS)}}} PATH")
    sys.exit(COMMANDS[sys.argv[1]](sys.argv[2]))
