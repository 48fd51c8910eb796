"""``facedown replay``: a match from a server's database or an exported file, in the terminal."""

from __future__ import annotations

import asyncio
import json
import random
import re
from pathlib import Path

import pytest

from facedown.cli import main
from facedown.engine import Action, Game, make_ruleset
from facedown.records.matches import ONE_WAY, SEEDING, match_seed
from facedown.store import LogEntry, SeatRecord, TableRecord
from facedown.store.sql import open_store

TABLE_ID = "ab12cd34ef56ab12cd34ef56ab12cd34"
SEED = 4243  # its match 1 runs to three rounds (the --round test asks for round 2)


def _database(data: Path, *, finish: bool = True) -> Game:
    """A server database holding one table whose match 1 was played (to its end, or partly);
    the game as it was dealt."""
    rules = make_ruleset("cabo", {"score_limit": 30})
    game = Game(rules, 2, match_seed(SEED, 1))
    dealt = game.clone()
    rng = random.Random(2)
    actions: list[Action] = []
    while not game.is_match_over and (finish or len(actions) < 8):
        action = rng.choice(game.all_legal_actions())
        game.apply(action)
        actions.append(action)
    record = TableRecord(
        id=TABLE_ID,
        code="REPLAY",
        preset="cabo",
        rules=rules.to_json(),
        seed=SEED,
        host_id="p0",
        status="finished" if finish else "playing",
        seats=(SeatRecord(0, "human", "Ann", "p0"), SeatRecord(1, "human", "Bob", "p1")),
    )

    async def write() -> None:
        store = await open_store(f"sqlite:///{(data / 'facedown.db').resolve()}")
        await store.create_table(record)
        await store.append(
            TABLE_ID, LogEntry(1, "start", {"match": 1, "players": 2, SEEDING: ONE_WAY})
        )
        for seq, action in enumerate(actions, 2):
            await store.append(TABLE_ID, LogEntry(seq, "action", {"action": action.to_json()}))
        await store.close()

    data.mkdir(parents=True, exist_ok=True)
    asyncio.run(write())
    return dealt


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        code = main(args)
    except SystemExit as e:
        code = int(e.code or 0)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_a_match_prints_face_up_and_through_a_seats_eyes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dealt = _database(tmp_path)
    names = dealt.deck.names
    code, out, err = _run(["replay", f"{TABLE_ID}/1", "--data", str(tmp_path)], capsys)
    assert code == 0, err
    assert f"{TABLE_ID}/1: cabo, 2 players, face up" in out
    assert "step 0  round 1  the deal" in out
    for seat, name in enumerate(("Ann", "Bob")):  # the true deal, face up
        hand = " ".join(names[c] for c in dealt.hands[seat])
        assert re.search(rf"^[ *]{name}\s+{hand}\s", out, re.MULTILINE), hand
    assert "winners:" in out
    code, eyes, err = _run(
        ["replay", f"{TABLE_ID}/1", "--data", str(tmp_path), "--seat", "1"], capsys
    )
    assert code == 0, err
    assert "through Bob's eyes" in eyes
    assert "?? ?? ?? ??" in eyes  # step 0: Bob has seen nothing yet
    code, one, _ = _run(
        [
            "replay",
            f"{TABLE_ID}/1",
            "--database-url",
            f"sqlite:///{tmp_path / 'facedown.db'}",
            "--round",
            "2",
        ],
        capsys,
    )
    assert code == 0
    assert "round 2" in one
    assert "step 0  round 1" not in one


def test_an_exported_file_prints_the_same(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _database(tmp_path)
    file = tmp_path / "match.json"
    code, _, err = _run(
        ["replay", "--export", f"{TABLE_ID}/1", "-o", str(file), "--data", str(tmp_path)], capsys
    )
    assert code == 0, err
    assert str(SEED) not in file.read_text(encoding="utf-8").replace(str(match_seed(SEED, 1)), "")
    for seat in ([], ["--seat", "0"]):
        _, stored, _ = _run(["replay", f"{TABLE_ID}/1", "--data", str(tmp_path), *seat], capsys)
        code, printed, err = _run(["replay", str(file), *seat], capsys)
        assert code == 0, err
        assert printed == stored


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["replay", "nonsense"], "not a match id"),
        (["replay", f"{TABLE_ID}/1", "--data", "{tmp}/none"], "there is no database"),
        (["replay", f"{'f' * 32}/1", "--data", "{tmp}"], "no table"),
        (["replay", f"{TABLE_ID}/2", "--data", "{tmp}"], "has no match 2"),
        (["replay", f"{TABLE_ID}/1", "--data", "{tmp}", "--seat", "5"], "no seat 5"),
        (["replay", "--export", f"{TABLE_ID}/1", "--data", "{tmp}"], "needs -o"),
        (["replay", "{tmp}/bad.json"], "not JSON"),
        (["replay", "{tmp}/other.json"], "not a Facedown replay"),
        (["replay", f"{TABLE_ID}/1", "--seat", "x"], "not a whole number"),
    ],
)
def test_bad_input_is_one_line_and_exit_status_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    _database(tmp_path)
    (tmp_path / "bad.json").write_text("{", encoding="utf-8")
    (tmp_path / "other.json").write_text(json.dumps({"format": "zip"}), encoding="utf-8")
    code, _, err = _run([a.replace("{tmp}", str(tmp_path)) for a in args], capsys)
    assert code == 2
    # One line says what is wrong (argparse puts its usage above it).
    last = err.strip().splitlines()[-1]
    assert last.startswith("facedown replay: "), err
    assert message in last
    assert "Traceback" not in err


def test_a_match_still_being_played_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _database(tmp_path, finish=False)
    for args in (["--seat", "0"], [], ["--export", "-o", str(tmp_path / "x.json")]):
        code, out, err = _run(["replay", f"{TABLE_ID}/1", "--data", str(tmp_path), *args], capsys)
        assert code == 2
        assert "still being played" in err
        assert out == ""
    assert not (tmp_path / "x.json").exists()
