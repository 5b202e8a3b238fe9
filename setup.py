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


def extensions() -> list[Extension]:
    modules = []
    for package, folder in PACKAGE_DIRS.items():
        for pyx in sorted(Path(folder).rglob("*.pyx")):
            name = ".".join((package, *pyx.relative_to(folder).with_suffix("").parts))
            modules.append(Extension(name, [str(pyx)], extra_compile_args=["-O3"]))
    if not modules:
        return []
    from Cython.Build import cythonize
    return cythonize(modules, language_level=3, compiler_directives={
        "boundscheck": False, "wraparound": False, "cdivision": True, "initializedcheck": False})


setup(
    package_dir=PACKAGE_DIRS,
    packages=packages(),
    package_data={"cavekit.core.cvc": ["data/*.json", "*.pxd"]},
    ext_modules=extensions(),
    zip_safe=False,
)
