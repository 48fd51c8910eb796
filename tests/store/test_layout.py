"""The store's modules: one per concern, none too long, no import circle among them, and nothing
of Facedown above them imported (the server least of all).

These tests read the source (``ast``), imports inside functions too: a circle hidden in a
function (the SQL store's ranked part once imported the table writes of the module that
imported it) is still a circle.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.test_packages import imports

ROOT = Path(__file__).resolve().parent.parent.parent
STORE = ROOT / "facedown" / "store"
MAX_LINES = 500
# What the store may import of Facedown besides itself, migrations included: the look-alike
# names, whose skeletons revision 0011 fills in (``facedown/names.py``, under the store and the
# server alike).
STORE_MAY_IMPORT = {"store", "names"}


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


def imports_from_above(root: Path) -> list[str]:
    """Each import of the store's files (its migrations too) of Facedown outside what it may
    import (``STORE_MAY_IMPORT``), with its file and line; and any of ``facedown/names.py``,
    which imports nothing of Facedown."""
    found = []
    for path in sorted((root / "facedown" / "store").rglob("*.py")):
        for module, line in imports(path, root):
            parts = module.split(".")
            if parts[0] == "facedown" and (len(parts) < 2 or parts[1] not in STORE_MAY_IMPORT):
                found.append(f"{path.relative_to(root).as_posix()}:{line}: imports {module}")
    names = root / "facedown" / "names.py"
    if names.is_file():
        for module, line in imports(names, root):
            if module.split(".")[0] == "facedown":
                found.append(f"facedown/names.py:{line}: imports {module}")
    return found


def test_the_store_imports_nothing_above_it() -> None:
    wrong = imports_from_above(ROOT)
    assert not wrong, "the store stands under the server and beside the rest:\n" + "\n".join(wrong)


def test_an_import_from_above_is_named_with_its_line(tmp_path: Path) -> None:
    # The test of the test: a migration that imports the server (as revision 0011 once did), a
    # relative import that climbs out of the store and an import of the bots are named with
    # their lines, the store's own modules and the names module pass; and the names module
    # itself may import nothing of Facedown, not even inside a function.
    store = tmp_path / "facedown" / "store"
    (store / "migrations" / "versions").mkdir(parents=True)
    (store / "sql").mkdir()
    (store / "migrations" / "versions" / "0099_x.py").write_text(
        '"""A revision."""\n\nfrom facedown.server.accounts.accounts import Accounts\n'
    )
    (store / "sql" / "rows.py").write_text("from ...server.base import text\nfrom .. import base\n")
    (store / "records.py").write_text("from ..names import name_skeleton\nimport facedown.bots\n")
    (tmp_path / "facedown" / "names.py").write_text(
        "def f() -> None:\n    import facedown.server\n"
    )
    assert imports_from_above(tmp_path) == [
        "facedown/store/migrations/versions/0099_x.py:3: imports facedown.server.accounts.accounts",
        "facedown/store/records.py:2: imports facedown.bots",
        "facedown/store/sql/rows.py:1: imports facedown.server.base",
        "facedown/names.py:2: imports facedown.server",
    ]
