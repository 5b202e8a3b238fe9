"""The package's layers: generic code never names a game, and imports go one way (core -> search -> analysis -> cli).

Generic modules are every module of `cavekit.core`, `cavekit.search` and `cavekit.analysis` outside a game's
own code, which is a game's subpackage (`core/<game>/`, `analysis/<game>/`) or a search module named after its
game (`search/<game>_*.py`, `.pyx`). "Naming a game" is a game's name as an identifier or a part of one
(`cvc_sections`), in an imported module's path, or as a word of a string in the code. Docstrings, comments and
the help texts of command-line options (`help=`, `description=`, `epilog=`), which show examples to a person,
are documentation, not code, and may name games.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from cavekit.core.registry import game_names

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = {"core": ROOT / "core", "search": ROOT / "search", "analysis": ROOT / "analysis"}
LAYERS = ("core", "search", "analysis", "cli")          # a layer may import only the layers before it
DOCUMENTATION_KEYWORDS = {"help", "description", "epilog"}
GAMES = game_names()


def module_name(path: Path) -> str:
    """The dotted name of a source file under the package (`core/cvc/game.py` -> `cavekit.core.cvc.game`)."""
    for layer, folder in FOLDERS.items():
        if folder in path.parents:
            parts = path.relative_to(folder).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            return ".".join(("cavekit", layer, *parts))
    raise ValueError(path)


def source_files() -> list[Path]:
    """Every Python and Cython source file of the package."""
    return sorted(p for folder in FOLDERS.values() for pattern in ("*.py", "*.pyx") for p in folder.rglob(pattern))


def is_game_code(path: Path) -> bool:
    """Whether a file is a game's own code (see the module docstring)."""
    parts = module_name(path).split(".")[1:]
    layer, rest = parts[0], parts[1:]
    if not rest:
        return False
    if layer in ("core", "analysis") and rest[0] in GAMES and (len(rest) > 1 or path.name == "__init__.py"):
        return True
    return layer == "search" and any(rest[0].startswith(f"{game}_") for game in GAMES)


def generic_files() -> list[Path]:
    return [p for p in source_files() if p.suffix == ".py" and not is_game_code(p)]


def _docstrings(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
                    and isinstance(first.value.value, str):
                ids.add(id(first.value))
    return ids


def _documentation_strings(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg in DOCUMENTATION_KEYWORDS:
            ids.update(id(n) for n in ast.walk(node.value) if isinstance(n, ast.Constant))
    return ids


def _words(text: str) -> list[str]:
    return [w.lower() for w in re.split(r"[^A-Za-z0-9]+|_", text) if w]


def game_names_in(path: Path) -> list[str]:
    """Where the code of a Python file names a game: `line: what`, one entry per occurrence."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = _docstrings(tree) | _documentation_strings(tree)
    found = []

    def check(text: str, node: ast.AST, what: str) -> None:
        for game in GAMES:
            if game in _words(text):
                found.append(f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', '?')}: {what} {text!r}")

    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skipped:
            check(node.value, node, "string")
        elif isinstance(node, ast.Name):
            check(node.id, node, "name")
        elif isinstance(node, ast.Attribute):
            check(node.attr, node, "attribute")
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            check(node.name, node, "definition")
        elif isinstance(node, ast.arg):
            check(node.arg, node, "argument")
        elif isinstance(node, ast.ImportFrom):
            check(node.module or "", node, "import from")
            for alias in node.names:
                check(alias.name, node, "import")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                check(alias.name, node, "import")
    return found


def test_the_generic_modules_never_name_a_game():
    files = generic_files()
    assert len(files) > 30 and ROOT / "analysis" / "batch.py" in files and ROOT / "search" / "mcts.py" in files
    found = [line for path in files for line in game_names_in(path)]
    assert found == [], "generic modules name a game:\n" + "\n".join(found)


def test_the_check_finds_a_game_name_where_one_is_written(tmp_path):
    # The test above would pass on an empty list of checks: show that each kind of mention is caught.
    game = GAMES[0]
    path = ROOT / "analysis" / "_layers_probe.py"
    path.write_text(f'"""Docstrings may say {game}."""\nimport argparse\n'
                    f'def f(game):\n    """Neither here: {game}."""\n'
                    f'    argparse.ArgumentParser().add_argument("x", help="e.g. {game}")\n'
                    f'    return game.name == "{game}" or {game}_table\n', encoding="utf-8")
    try:
        found = game_names_in(path)
    finally:
        path.unlink()
    assert sorted(line.split(": ", 1)[1] for line in found) == [f"name '{game}_table'", f"string {game!r}"]


# ----------------------------------------------------------------------------------------------------
# Imports

_PYX_IMPORT = re.compile(r"^\s*(?:from\s+(\.*[\w.]*)\s+c?import\s+([\w., ()]+)|c?import\s+([\w.]+))", re.M)


def _resolve(module: str, level: int, current: str, is_package: bool) -> str:
    if level == 0:
        return module
    base = current.split(".") if is_package else current.split(".")[:-1]
    base = base[:len(base) - (level - 1)]
    return ".".join(base + ([module] if module else []))


def imports_of(path: Path) -> set[str]:
    """What a source file imports from `cavekit`, anywhere in it (function-level imports included): modules,
    and for `from m import name` the dotted `m.name` (a module or, when `name` is not one, an attribute of m)."""
    current = module_name(path)
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    if path.suffix == ".pyx":
        for relative, names, plain in _PYX_IMPORT.findall(path.read_text(encoding="utf-8")):
            if plain:
                found.add(plain)
                continue
            level = len(relative) - len(relative.lstrip("."))
            base = _resolve(relative.lstrip("."), level, current, is_package)
            found.update(f"{base}.{n.split(' as ')[0].strip()}" for n in names.strip("() ").split(","))
    else:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                base = _resolve(node.module or "", node.level, current, is_package)
                found.update(f"{base}.{alias.name}" for alias in node.names)
            elif isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
    return {name for name in found if name.startswith("cavekit.")}


def import_graph() -> dict[str, set[str]]:
    """Module -> the package modules it imports (names that are attributes, not modules, are dropped)."""
    modules = {module_name(p): p for p in source_files()}
    graph = {}
    for name, path in modules.items():
        targets = set()
        for target in imports_of(path):
            while target not in modules and "." in target:
                target = target.rsplit(".", 1)[0]       # `from .x import name` of an attribute: the module is x
            if target in modules and target != name:
                targets.add(target)
        graph[name] = targets
    return graph


def layer_of(module: str) -> str:
    parts = module.split(".")
    return "cli" if parts[1:3] == ["analysis", "cli"] else parts[1]


def test_imports_go_one_way_through_the_layers():
    graph = import_graph()
    backwards = sorted(f"{a} ({layer_of(a)}) imports {b} ({layer_of(b)})" for a, targets in graph.items()
                       for b in targets if LAYERS.index(layer_of(b)) > LAYERS.index(layer_of(a)))
    assert backwards == []


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components with more than one module (the import cycles)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return cycles


def test_no_module_imports_itself_through_others():
    cycles = strongly_connected(import_graph())
    assert cycles == [], "import cycles:\n" + "\n".join(" <-> ".join(c) for c in cycles)


@pytest.mark.parametrize("graph, expected", [
    ({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}, [["a", "b", "c"]]),
    ({"a": {"b"}, "b": set()}, []),
])
def test_the_cycle_finder_finds_cycles(graph, expected):
    assert strongly_connected(graph) == expected


# ----------------------------------------------------------------------------------------------------
# Private fields

# Public, documented functions whose names start with an underscore.
DOCUMENTED_UNDERSCORED = {("os", "_exit")}


def private_reads_in(path: Path) -> list[str]:
    """Where a file reads a private attribute (`x._name`) of anything but `self` or `cls`."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            owner = node.value
            if isinstance(owner, ast.Name) and (owner.id in ("self", "cls")
                                                or (owner.id, node.attr) in DOCUMENTED_UNDERSCORED):
                continue
            found.append(f"{path.relative_to(ROOT)}:{node.lineno}: .{node.attr}")
    return found


def test_agents_and_analyses_read_no_private_field_of_an_engine():
    files = [p for p in source_files() if p.suffix == ".py" and module_name(p).split(".")[1] in ("search", "analysis")]
    found = [line for path in files for line in private_reads_in(path)]
    assert found == [], "private reads outside the game packages:\n" + "\n".join(found)
