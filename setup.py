"""Build script: maps the top-level folders into the `cavekit` package and compiles the Cython core.

`core/`, `search/` and `analysis/` install as `cavekit.core`, `cavekit.search` and `cavekit.analysis`
(generic top-level names would collide with other packages). Every `.pyx` file under them is compiled.
"""
from pathlib import Path

from setuptools import Extension, setup

PACKAGE_DIRS = {"cavekit": "cavekit", "cavekit.core": "core", "cavekit.search": "search",
                "cavekit.analysis": "analysis"}


def packages() -> list[str]:
    found = []
    for package, folder in PACKAGE_DIRS.items():
        found.append(package)
        for init in sorted(Path(folder).rglob("__init__.py")):
            relative = init.parent.relative_to(folder)
            if relative.parts:
                found.append(".".join((package, *relative.parts)))
    return found


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


def extensions() -> list[Extension]:
    modules = []
    for package, folder in PACKAGE_DIRS.items():
        for pyx in sorted(Path(folder).rglob("*.pyx")):
            name = ".".join((package, *pyx.relative_to(folder).with_suffix("").parts))
            modules.append(Extension(name, [str(pyx)], extra_compile_args=["-O3"]))
    if not modules:
        return []
    from Cython.Build import cythonize
    return cythonize(modules, language_level=3, include_path=[cython_include_dir()], compiler_directives={
        "boundscheck": False, "wraparound": False, "cdivision": True, "initializedcheck": False})


setup(
    package_dir=PACKAGE_DIRS,
    packages=packages(),
    package_data={"cavekit.core": ["*.pxd"],
                  "cavekit.core.cvc": ["data/*.json", "*.pxd"],
                  "cavekit.core.pairs": ["data/*.json", "*.pxd"],
                  "cavekit.core.caverna": ["data/*.json"],
                  "cavekit.core.cavum": ["data/*.json", "*.pxd"]},
    ext_modules=extensions(),
    zip_safe=False,
)
