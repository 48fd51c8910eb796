"""The tree stays readable: every module of the package under 500 lines, and the server's map
(docs/server.md) under 500 lines too.  A module that grows past it is split along a seam of
its own (docs/architecture.md), not cut in the middle."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LIMIT = 500  # lines: a module, or the server's map, has fewer


def lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def test_every_module_is_under_500_lines() -> None:
    long = {
        str(path.relative_to(ROOT)): n
        for path in sorted((ROOT / "facedown").rglob("*.py"))
        if (n := lines(path)) >= LIMIT
    }
    assert not long, f"modules of {LIMIT} lines or more: {long}"


def test_the_servers_map_is_under_500_lines() -> None:
    assert lines(ROOT / "docs" / "server.md") < LIMIT


def test_the_table_and_the_lobby_are_thin() -> None:
    # The two actors of play keep to their own work (log replay, fan-out, deadlines, seat
    # commands, creation, claims and the rest each have a module in server/play/).
    for name in ("table.py", "lobby.py"):
        assert lines(ROOT / "facedown" / "server" / "play" / name) < 300, name
