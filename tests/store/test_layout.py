"""The store's modules: one per concern, none too long, and no import circle among them.

These tests read the source (``ast``), imports inside functions too: a circle hidden in a
function (the SQL store's ranked part once imported the table writes of the module that
imported it) is still a circle.
"""

from __future__ import annotations

import ast
from pathlib import Path

STORE = Path(__file__).resolve().parent.parent.parent / "facedown" / "store"
MAX_LINES = 500


def store_modules(store: Path) -> dict[str, Path]:
    """The store's modules by dotted name under the store (``sql.tables``), migrations aside."""
    found = {}
    for path in sorted(store.rglob("*.py")):
        parts = path.relative_to(store).with_suffix("").parts
        if parts[0] == "migrations":
            continue
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def imports_of(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The store's modules that the module ``name`` at ``path`` imports, anywhere in it."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    package = [part for part in package if part]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if not isinstance(node, ast.ImportFrom) or not node.level:
            continue
        if node.level - 1 > len(package):
            continue  # outside the store
        base = package[: len(package) - node.level + 1]
        target = ".".join([*base, *(node.module.split(".") if node.module else [])])
        for alias in node.names:  # ``from . import x`` imports the module x
            if f"{target}.{alias.name}".strip(".") in modules:
                out.add(f"{target}.{alias.name}".strip("."))
        if target in modules and target != name:
            out.add(target)
    return out


def import_circle(store: Path) -> list[str] | None:
    """A circle of imports among the store's modules (the package itself aside), or None."""
    modules = store_modules(store)
    graph = {name: imports_of(name, path, modules) - {""} for name, path in modules.items()}
    done: set[str] = set()

    def visit(module: str, path: list[str]) -> list[str] | None:
        if module in path:
            return [*path[path.index(module) :], module]
        if module in done:
            return None
        for imported in sorted(graph[module]):
            found = visit(imported, [*path, module])
            if found:
                return found
        done.add(module)
        return None

    for module in sorted(graph):
        if module:
            found = visit(module, [])
            if found:
                return found
    return None


def test_the_store_has_no_import_circle() -> None:
    circle = import_circle(STORE)
    assert circle is None, "import circle: " + " -> ".join(circle or [])


def test_each_store_module_is_short() -> None:
    lengths = {
        name: path.read_text(encoding="utf-8").count("\n")
        for name, path in store_modules(STORE).items()
    }
    long = [f"{name or '__init__'}: {n} lines" for name, n in lengths.items() if n >= MAX_LINES]
    assert not long, "split by concern: " + ", ".join(long)
