"""Build script: maps the top-level folders into the `cavekit` package and compiles the Cython core.

`core/`, `search/` and `analysis/` install as `cavekit.core`, `cavekit.search` and `cavekit.analysis`
(generic top-level names would collide with other packages). Every `.pyx` file under them is compiled.

Cython compiler directives are set here and only here (`DIRECTIVES`), for every module. The normal build
turns off bounds checks, negative-index wraparound and memoryview initialisation checks for speed.

Debug build: `CAVEKIT_CYTHON_DEBUG=1 pip install -e .` (or `... python setup.py build_ext --inplace`)
turns `boundscheck`, `wraparound` and `initializedcheck` back on and compiles the C code with
`-O1 -g -fsanitize=bounds` (gcc or clang; the UBSan runtime, libubsan, must be installed). The sanitizer is
needed because Cython's checks cover Python sequences and memoryviews only, while the engines keep their
positions in C arrays (struct members and local buffers), which Cython never checks. An index outside a
C array prints `runtime error: index ... out of bounds for type ...` with the source line and goes on;
`UBSAN_OPTIONS=halt_on_error=1` stops the process there instead, `UBSAN_OPTIONS=log_path=<prefix>` writes
the reports to files, which `.ci/sanitizer_reports.py` (a pytest plugin) turns into test failures.
Exceptions raised in `noexcept` functions (an IndexError from a checked list index, say) cannot
propagate: Cython prints them as "Exception ignored" (sys.unraisablehook), which pytest turns into a
failure with `-W error::pytest.PytestUnraisableExceptionWarning`.
`cdivision` stays on in both builds: it changes the meaning of `/` and `%` on negative numbers, so the two
builds must agree on it. The mode in use is written to `build/cython_mode`; changing it re-cythonizes
every module, so a debug build never silently reuses optimised C files or the other way round (and the
extension modules are rebuilt from the new C files). `.ci/run` builds a debug copy of the tree in a
temporary folder and runs the compiled-versus-reference tests on it.
"""
import os
from pathlib import Path

from setuptools import Extension, find_namespace_packages, setup

PACKAGE_DIRS = {"cavekit": "cavekit", "cavekit.core": "core", "cavekit.search": "search",
                "cavekit.analysis": "analysis"}


def packages() -> list[str]:
    """Every package under the mapped folders, folders without `__init__.py` included: the `data` folders
    are (namespace) packages of data files, so setuptools installs them and warns of nothing."""
    found = []
    for package, folder in PACKAGE_DIRS.items():
        found.append(package)
        found += [f"{package}.{sub}" for sub in find_namespace_packages(folder, exclude=["*__pycache__*"])]
    return found


def package_data(found: list[str]) -> dict[str, list[str]]:
    """Package data by pattern, so that a new game's files need no entry here: every file of a `data` folder
    (rules JSON, tables, weights, web assets; a folder inside one too), and the Cython declarations (`.pxd`)
    of every package, for code that cimports the engines."""
    data = {package: ["*"] for package in found if "data" in package.split(".")}
    return {"": ["*.pxd"], **data}


def cython_include_dir() -> str:
    """A folder in which `cavekit/<sub>` points at the mapped folder, so Cython finds `.pxd` files by the
    package names it compiles under (`cimport cavekit.core.cvc.compiled`)."""
    root = Path("build", "cython_include", "cavekit")
    root.mkdir(parents=True, exist_ok=True)
    (root / "__init__.pxd").touch()
    for package, folder in PACKAGE_DIRS.items():
        if package != "cavekit":
            link = root / package.split(".")[1]
            if not link.is_symlink():
                link.symlink_to(Path(folder).resolve(), target_is_directory=True)
    return str(root.parent)


DEBUG = os.environ.get("CAVEKIT_CYTHON_DEBUG", "") not in ("", "0")

# Every module's Cython compiler directives (no `# cython:` headers or decorators elsewhere, except
# per-class `@cython.auto_pickle(False)` / `@cython.final`, which say something about one class).
DIRECTIVES = {"language_level": 3, "cdivision": True,
              "boundscheck": DEBUG, "wraparound": DEBUG, "initializedcheck": DEBUG}
COMPILE_ARGS = ["-O1", "-g", "-fsanitize=bounds"] if DEBUG else ["-O3"]
LINK_ARGS = ["-fsanitize=bounds"] if DEBUG else []


def mode_changed() -> bool:
    """Whether the last build used other directives or flags (then every module is re-cythonized)."""
    stamp = Path("build", "cython_mode")
    mode = repr((sorted(DIRECTIVES.items()), COMPILE_ARGS, LINK_ARGS))
    changed = not stamp.exists() or stamp.read_text() != mode
    stamp.parent.mkdir(parents=True, exist_ok=True)
    stamp.write_text(mode)
    return changed


def extensions() -> list[Extension]:
    """One extension module per `.pyx` file under the mapped folders, cythonized with `DIRECTIVES`."""
    modules = []
    for package, folder in PACKAGE_DIRS.items():
        for pyx in sorted(Path(folder).rglob("*.pyx")):
            name = ".".join((package, *pyx.relative_to(folder).with_suffix("").parts))
            modules.append(Extension(name, [str(pyx)], extra_compile_args=COMPILE_ARGS,
                                     extra_link_args=LINK_ARGS))
    if not modules:
        # Never a wheel without its engines (an sdist without its `.pyx` files once built a pure-Python one).
        raise SystemExit("setup.py: no .pyx sources under core/, search/ or analysis/: this source tree or sdist "
                         "is incomplete")
    from Cython.Build import cythonize
    return cythonize(modules, include_path=[cython_include_dir()], compiler_directives=DIRECTIVES,
                     force=mode_changed())


# Guarded so that tests can read this configuration (`runpy.run_path`) without building; setuptools and
# `python setup.py` run this file as __main__.
if __name__ == "__main__":
    PACKAGES = packages()
    setup(
        package_dir=PACKAGE_DIRS,
        packages=PACKAGES,
        package_data=package_data(PACKAGES),
        # The wheel holds the packages' modules and the patterns above, not whatever else MANIFEST.in puts in
        # the sdist (the `.pyx` sources); the compiled modules come from `ext_modules`.
        include_package_data=False,
        ext_modules=extensions(),
        zip_safe=False,
    )
