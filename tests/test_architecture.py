"""The layers hold: the engine alone decides who acts and what a seat sees.

These tests read the source (``ast``), so they fail on the line that breaks a rule, not on a
symptom somewhere else.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

import facedown.engine

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "facedown"
ENGINE = PACKAGE / "engine"

# Engine modules that code outside the engine may import by name: vocabularies and data.
# Everything else (game, state, legality, transitions, deal, snapshot, interning, scoring,
# arbiter, observe, events, results) is reached through ``facedown.engine`` alone.
PUBLIC_ENGINE_MODULES = {"actions", "cards", "errors", "phases", "presets", "rules"}

# The players of a table: each asks the engine's arbiter who acts, and works out nothing itself.
TERMINAL = sorted(p for p in (PACKAGE / "terminal").glob("*.py") if p.name != "__init__.py")
PLAYERS = [
    PACKAGE / "bots" / "driver.py",
    *TERMINAL,
    *sorted((PACKAGE / "rl").glob("*.py")),
    *sorted(p for p in (PACKAGE / "server").rglob("*.py") if p.name != "__init__.py"),
]
ASKS_THE_ARBITER = [
    PACKAGE / "bots" / "driver.py",
    PACKAGE / "terminal" / "terminal.py",
    PACKAGE / "rl" / "env.py",
    PACKAGE / "server" / "play" / "scheduler.py",
    PACKAGE / "server" / "play" / "table.py",
]
# The state fields that say whose move it is: reading them off a game is deciding who acts.
TURN_FIELDS = {"turn", "peeked", "phase", "to_act", "finals_left"}
GAME_NAMES = {"game", "g", "after", "current", "state", "sampled"}


def python_files(*folders: Path) -> Iterator[Path]:
    for folder in folders:
        yield from sorted(folder.rglob("*.py"))


def tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), str(path))


def where(path: Path, node: ast.AST) -> str:
    return f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', '?')}"


def imported_engine_modules(path: Path) -> Iterator[tuple[str, ast.AST]]:
    """Each ``facedown.engine.<module>`` a file outside the engine imports, by module name."""
    package = path.relative_to(ROOT).with_suffix("").parts[:-1]
    for node in ast.walk(tree(path)):
        if isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolve against the file's package
                base = package[: len(package) - node.level + 1]
                name = ".".join([*base, *(node.module.split(".") if node.module else [])])
            else:
                name = node.module or ""
            names = [name] + [f"{name}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        for full in names:
            parts = full.split(".")
            if parts[:2] == ["facedown", "engine"] and len(parts) > 2:
                module = parts[2]
                if (ENGINE / f"{module}.py").exists():
                    yield module, node


def test_nothing_outside_the_engine_imports_its_internals() -> None:
    found = []
    for path in python_files(PACKAGE, ROOT / "tests", ROOT / "benchmarks"):
        if ENGINE in path.parents:
            continue
        for module, node in imported_engine_modules(path):
            if module not in PUBLIC_ENGINE_MODULES:
                found.append(f"{where(path, node)} imports facedown.engine.{module}")
    assert not found, "\n".join(found)


def is_game(node: ast.expr) -> bool:
    if isinstance(node, ast.Name):
        return node.id in GAME_NAMES
    return isinstance(node, ast.Attribute) and node.attr == "game"


@pytest.mark.parametrize("path", PLAYERS, ids=lambda p: str(p.relative_to(ROOT)))
def test_only_the_engine_decides_who_acts(path: Path) -> None:
    # A player of a table never reads whose turn it is, who has peeked or the phase off a game:
    # the arbiter (Game.awaiting) says who must act, who may tap, and which timer runs.
    found = [
        f"{where(path, node)} reads .{node.attr} of a game"
        for node in ast.walk(tree(path))
        if isinstance(node, ast.Attribute) and node.attr in TURN_FIELDS and is_game(node.value)
    ]
    assert not found, "\n".join(found)


@pytest.mark.parametrize("path", ASKS_THE_ARBITER, ids=lambda p: str(p.relative_to(ROOT)))
def test_each_player_asks_the_arbiter(path: Path) -> None:
    calls = [
        node
        for node in ast.walk(tree(path))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "awaiting"
    ]
    assert calls, f"{path.relative_to(ROOT)} does not ask Game.awaiting() who acts"


def is_view(node: ast.expr) -> bool:
    if isinstance(node, ast.Name):
        return node.id in {"view", "v", "seen"}
    return isinstance(node, ast.Attribute) and node.attr == "view"


@pytest.mark.parametrize(
    "path",
    [*python_files(PACKAGE / "bots", PACKAGE / "rl"), *TERMINAL],
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_no_string_keyed_view_access(path: Path) -> None:
    # Views are typed values: bots, rl and the terminal read attributes, never view["key"].
    found = []
    for node in ast.walk(tree(path)):
        if (
            isinstance(node, ast.Subscript)
            and is_view(node.value)
            and isinstance(node.slice, ast.Constant)
            and isinstance(node.slice.value, str)
        ):
            found.append(f"{where(path, node)} reads a view by the key {node.slice.value!r}")
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "get"
            and is_view(node.func.value)
        ):
            found.append(f"{where(path, node)} reads a view with .get()")
    assert not found, "\n".join(found)


def runtime_imports(path: Path) -> set[str]:
    """The engine modules ``path`` imports when it runs (``if TYPE_CHECKING:`` left out)."""
    out: set[str] = set()

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                continue
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                if node.module:
                    out.add(node.module.split(".")[0])
                else:
                    out.update(alias.name for alias in node.names)
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.stmt):
                    visit([child])

    visit(tree(path).body)
    return {m for m in out if (ENGINE / f"{m}.py").exists()}


def test_the_engine_has_no_import_cycle() -> None:
    graph = {p.stem: runtime_imports(p) for p in ENGINE.glob("*.py") if p.stem != "__init__"}
    done: set[str] = set()

    def visit(module: str, path: list[str]) -> None:
        if module in path:
            cycle = [*path[path.index(module) :], module]
            pytest.fail(f"import cycle: {' -> '.join(cycle)}")
        if module in done:
            return
        for imported in sorted(graph[module]):
            visit(imported, [*path, module])
        done.add(module)

    for module in sorted(graph):
        visit(module, [])


def test_the_server_never_applies_unchecked() -> None:
    # Game.apply_trusted skips the legality check: for simulations that take their actions from
    # the legal lists.  Everything the server applies comes from outside, so it uses apply.
    found = [
        where(path, node)
        for path in python_files(PACKAGE / "server")
        for node in ast.walk(tree(path))
        if (isinstance(node, ast.Attribute) and node.attr == "apply_trusted")
        or (isinstance(node, ast.Name) and node.id == "apply_trusted")
        or (isinstance(node, ast.Constant) and node.value == "apply_trusted")
    ]
    assert not found, f"the server uses the unchecked apply: {found}"


def test_game_py_holds_only_the_game() -> None:
    # The engine is split by concern: game.py puts the pieces together and holds no rules.
    lines = (ENGINE / "game.py").read_text(encoding="utf-8").count("\n")
    assert lines < 200, f"engine/game.py has {lines} lines"


# The engine's public surface, as a newcomer reads it in facedown/engine/__init__.py.  A change
# here is a change of the API: update docs/engine.md with it.
PUBLIC_SURFACE = [
    "EMPTY",
    "EVERYONE",
    "MAX_PLAYERS",
    "MAX_SET",
    "MIN_PLAYERS",
    "PLAY_PHASES",
    "PRESETS",
    "SPECTATOR",
    "Action",
    "ActionFormatError",
    "Awaiting",
    "CallNotAllowed",
    "Deck",
    "Event",
    "EventKind",
    "Game",
    "IllegalAction",
    "InvalidSlot",
    "InvalidTarget",
    "NotAllowedByRules",
    "NotYourTurn",
    "Observation",
    "PaperRound",
    "Phase",
    "Placement",
    "PowerUnavailable",
    "Reveal",
    "RoundResult",
    "Ruleset",
    "RulesetError",
    "ScoredRound",
    "SeenEvent",
    "StackedDeal",
    "Tally",
    "TallyError",
    "Timer",
    "View",
    "WrongPhase",
    "actions",
    "find_preset",
    "make_ruleset",
    "observe",
    "observe_json",
    "place",
    "public_json",
    "reveal_json",
    "seen_event",
    "shuffle_rng",
    "tally",
    "view",
]


def test_the_engines_public_surface_is_pinned() -> None:
    assert sorted(facedown.engine.__all__) == sorted(PUBLIC_SURFACE)
    for name in PUBLIC_SURFACE:
        assert hasattr(facedown.engine, name), name
    # The arbiter and the observer are what a newcomer meets first.
    doc = facedown.engine.__doc__ or ""
    assert doc.index("awaiting") < doc.index("observe") < doc.index(":class:`Action`")
