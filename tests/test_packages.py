"""The server's packages and the arrows between them, read from the imports (``ast``).

``facedown/server`` is grouped by feature (docs/server.md, "Where the code lives").  Each package
may import only the packages the table below names for it, so the packages stand in layers and
no two lean on each other.  ``if TYPE_CHECKING:`` imports count: a type is a dependency too.
The app (``server/app.py``) is the one module above them all: it wires every package together,
and no package imports it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "facedown"
SERVER = PACKAGE / "server"

# package -> the packages it may import (directly), lowest layer first.
ALLOWED: dict[str, set[str]] = {
    "base": set(),
    "cluster": set(),
    "transport": {"base"},
    "modes": {"base"},
    "accounts": {"base", "modes"},
    "play": {"base", "cluster", "transport", "modes", "accounts"},
    "edge": {"base", "cluster", "transport", "modes", "accounts", "play"},
    "api": {"base", "cluster", "transport", "modes", "accounts", "play", "edge"},
}
# The modules of facedown/server itself, outside any package: the app, which wires them all.
ROOT_MODULES = {"__init__", "app"}


def packages(server: Path = SERVER) -> list[str]:
    return sorted(p.name for p in server.iterdir() if (p / "__init__.py").is_file())


def imports(path: Path, root: Path = ROOT) -> Iterator[tuple[str, int]]:
    """Each module ``path`` imports, absolute, with its line."""
    module = path.relative_to(root).with_suffix("").parts
    package = list(module[:-1])
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            target = ".".join([*base, *([node.module] if node.module else [])])
            if node.module:
                yield target, node.lineno
            else:  # ``from .. import x`` imports the module (or package) x
                for alias in node.names:
                    yield f"{target}.{alias.name}", node.lineno


def server_package(module: str, server: Path = SERVER) -> str | None:
    """The server package a dotted module name lies in (``ROOT`` for the app), or None."""
    parts = module.split(".")
    if parts[:2] != ["facedown", "server"] or len(parts) < 3:
        return None
    if (server / parts[2] / "__init__.py").is_file():
        return parts[2]
    if parts[2] in ROOT_MODULES:
        return "ROOT"
    return None


def arrows(root: Path = ROOT) -> Iterator[tuple[str, str, str]]:
    """(from package, to package, file:line) for each import that crosses between packages."""
    server = root / "facedown" / "server"
    for name in packages(server):
        for path in sorted((server / name).rglob("*.py")):
            for module, line in imports(path, root):
                target = server_package(module, server)
                if target is not None and target != name:
                    yield name, target, f"{path.relative_to(root)}:{line}"


def not_allowed(root: Path = ROOT) -> list[str]:
    return [
        f"{where}: {source} imports {target}"
        for source, target, where in arrows(root)
        if target not in ALLOWED.get(source, set())
    ]


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    done: set[str] = set()

    def visit(node: str, path: list[str]) -> list[str] | None:
        if node in path:
            return [*path[path.index(node) :], node]
        if node in done:
            return None
        for nxt in sorted(graph.get(node, set())):
            cycle = visit(nxt, [*path, node])
            if cycle:
                return cycle
        done.add(node)
        return None

    for node in sorted(graph):
        cycle = visit(node, [])
        if cycle:
            return cycle
    return None


def test_the_table_names_every_package_and_has_no_cycle() -> None:
    assert set(ALLOWED) == set(packages())
    assert all(targets <= set(ALLOWED) for targets in ALLOWED.values())
    assert find_cycle(ALLOWED) is None


def test_each_import_between_packages_is_allowed() -> None:
    wrong = not_allowed()
    assert not wrong, "arrows the table in tests/test_packages.py does not allow:\n" + "\n".join(
        wrong
    )


def test_the_server_holds_only_packages_and_the_app() -> None:
    loose = sorted(p.stem for p in SERVER.glob("*.py") if p.stem not in ROOT_MODULES)
    assert loose == [], "a server module belongs in one of the packages"


def test_the_imports_between_packages_have_no_cycle() -> None:
    graph: dict[str, set[str]] = {}
    for source, target, _ in arrows():
        graph.setdefault(source, set()).add(target)
    assert find_cycle(graph) is None


def test_the_checks_catch_what_they_should(tmp_path: Path) -> None:
    # The test of the tests: a cycle is found, and a backwards import is named with its line.
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    server = tmp_path / "facedown" / "server"
    for name in ("base", "play"):
        (server / name).mkdir(parents=True)
        (server / name / "__init__.py").write_text('"""A package."""\n')
    (server / "play" / "table.py").write_text("from ..base import text\n")
    (server / "base" / "text.py").write_text('"""Text."""\n\nfrom ..play.table import Table\n')
    assert not_allowed(tmp_path) == ["facedown/server/base/text.py:3: base imports play"]
    assert server_package("facedown.server.play.table") == "play"
    assert server_package("facedown.server.app") == "ROOT"
    assert server_package("facedown.engine") is None
    found = {module for module, _ in imports(SERVER / "play" / "table.py")}
    assert {"facedown.server.play.context", "facedown.server.base.errors"} <= found


def folders() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*") if p.is_dir() and "__pycache__" not in p.parts)


@pytest.mark.parametrize("folder", folders(), ids=lambda p: str(p.relative_to(ROOT)))
def test_each_folder_is_a_package_that_says_what_it_is(folder: Path) -> None:
    init = folder / "__init__.py"
    if not any(folder.rglob("*.py")):
        pytest.skip("no Python in it")
    assert init.is_file(), f"{folder.relative_to(ROOT)} has no __init__.py"
    doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))
    assert doc, f"{init.relative_to(ROOT)} says nothing of what it is for"


def test_the_homes_of_the_former_loose_modules_keep_their_place() -> None:
    # records/ is built on the engine alone; nothing but the command line imports the terminal
    # game or the developers' tools (devtools/ writes the web client's types from the server's
    # messages: it stands above the server, never under it).
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).parts
        for module, line in imports(path):
            where = f"{path.relative_to(ROOT)}:{line}"
            top = module.split(".")[1] if module.startswith("facedown.") else None
            if rel[0] == "records" and top not in (None, "engine", "records"):
                found.append(f"{where}: records imports {module}")
            if top in ("devtools", "terminal", "cli") and rel[0] not in (
                top,
                "cli",  # the command line, a package of one module per command
                "__main__.py",
            ):
                found.append(f"{where}: imports {module}")
    assert not found, "\n".join(found)
