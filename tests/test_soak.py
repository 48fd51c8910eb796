"""The soak (benchmarks/soak.py): a short run through the real server finds nothing, and its
oracle does find a card a seat may not know when one is put in a frame."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from benchmarks import soak
from benchmarks.oracle import Findings, TableOracle, check_frame
from facedown.engine import SPECTATOR, Action, Event, Game, make_ruleset, observe
from facedown.records.matches import ONE_WAY, SEEDING
from facedown.server.play.table import match_seed

SEED = 12345


def test_a_short_soak_with_kills_and_fuzz_finds_no_leak_and_loses_nothing(
    tmp_path: Path,
) -> None:
    run = [
        "--games",
        "24",
        "--tables",
        "4",
        "--kill-every",
        "2",
        "--fuzz",
        "0.1",
        "--seconds",
        "45",
        "--seed",
        "5",
    ]
    args = soak.parse_args([*run, "--data-root", str(tmp_path)])
    tally, _ = soak.run_soak(args)
    assert tally.kills >= 1
    assert tally.games > 0
    assert tally.findings.frames > 100  # the oracle saw the games: no vacuous pass
    assert sum(tally.fuzz.values()) > 0
    assert tally.findings.leaks == 0, tally.findings.examples
    assert tally.findings.mismatches == 0, tally.findings.examples
    assert tally.lost == []
    assert tally.acks > 0
    assert not tally.failures, tally.failure_examples


# ------------------------------------------------------------------ the oracle on its own


def _frame(game: Game, seat: int, events: list[Event], seq: int) -> dict[str, Any]:
    """A frame as the server would send it (built with the engine's observer here, in the
    test only: the oracle itself never uses it)."""
    seen = observe(game, seat if seat >= 0 else SPECTATOR, events)
    return {
        "type": "event",
        "seq": seq,
        "view": seen.view.to_json(),
        "legal": [a.to_json() for a in seen.legal],
        "sets": seen.sets,
        "deadline": None,
        "now": 0.0,
        "events": [e.to_json() for e in seen.events],
    }


def _played() -> tuple[Game, Game, list[Event], list[Action]]:
    """A 3-seat cabo match after the opening peeks and one draw: (before, after, events of the
    draw, every action)."""
    game = Game(make_ruleset("cabo"), 3, match_seed(SEED, 1))
    actions = [a for seat in range(3) for a in game.legal_actions(seat)[:1]]
    for action in actions:
        game.apply(action)
    before = game.clone()
    draw = next(a for a in game.legal_actions(game.turn) if a.kind == "draw")
    events = game.apply(draw)
    return before, game, events, [*actions, draw]


def test_the_oracle_passes_honest_frames_and_flags_cards_a_seat_may_not_know() -> None:
    before, game, events, _ = _played()
    mover = game.turn
    other = (mover + 1) % 3
    for seat in (mover, other, SPECTATOR):
        honest = _frame(game, seat, events, 5)
        assert check_frame(honest, None if seat < 0 else seat, game, before) == []
    names = game.deck.names
    unknown = next(
        (o, s)
        for (o, s) in ((o, s) for o in range(3) for s in range(4))
        if o != other and (o, s) not in game.knowledge(other)
    )
    leaky = _frame(game, other, events, 5)
    leaky["view"]["shown"] = {
        f"{unknown[0]}:{unknown[1]}": names[game.hands[unknown[0]][unknown[1]]]
    }
    assert any(p.startswith("leak: shown") for p in check_frame(leaky, other, game, before))
    # The drawn card, shown to a seat that did not draw it: in its view, and in the event.
    leaky = _frame(game, other, events, 5)
    leaky["view"]["held"] = names[game.held]
    assert any(p.startswith("leak: held") for p in check_frame(leaky, other, game, before))
    leaky = _frame(game, other, events, 5)
    leaky["events"][0]["seen"] = [names[game.held]]
    assert any("saw" in p for p in check_frame(leaky, other, game, before))
    # A reveal before any round is over, and a field the protocol does not have.
    leaky = _frame(game, mover, events, 5)
    leaky["view"]["last_round"] = {"hands": [[names[c] for c in h] for h in game.hands]}
    leaky["view"]["draw_pile"] = []
    problems = check_frame(leaky, mover, game, before)
    assert any("last_round before any round is over" in p for p in problems)
    assert any("server internals" in p for p in problems)


def _log_file(path: Path, actions: list[Action], ids: dict[int, str]) -> None:
    """The two tables of the server's schema the oracle reads, holding one table's log."""
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE tables (id TEXT, code TEXT, rules TEXT, seed INTEGER)")
        db.execute("CREATE TABLE table_log (table_id TEXT, seq INTEGER, kind TEXT, payload TEXT)")
        rules = json.dumps(make_ruleset("cabo").to_json())
        db.execute("INSERT INTO tables VALUES ('t1', 'CODE', ?, ?)", (rules, SEED))
        start = {"match": 1, "players": 3, "deadline": None, SEEDING: ONE_WAY}
        db.execute("INSERT INTO table_log VALUES ('t1', 1, 'start', ?)", (json.dumps(start),))
        for seq, action in enumerate(actions, start=2):
            payload: dict[str, Any] = {"action": action.to_json(), "deadline": None}
            if seq in ids:
                payload["id"] = ids[seq]
            else:
                payload["auto"] = True
            db.execute(
                "INSERT INTO table_log VALUES ('t1', ?, 'action', ?)", (seq, json.dumps(payload))
            )


def test_the_table_oracle_replays_the_log_and_finds_an_injected_leak_and_a_lost_ack(
    tmp_path: Path,
) -> None:
    before, game, events, actions = _played()
    seq = len(actions) + 1  # the start is seq 1
    db = tmp_path / "facedown.db"
    _log_file(db, actions, {seq: "a-draw", 2: "fz-applied"})
    oracle = TableOracle(db, "CODE")
    other = (game.turn + 1) % 3
    honest = [(s, _frame(game, s, events, seq)) for s in range(3)]
    leaky = _frame(game, other, events, seq)
    leaky["view"]["held"] = game.deck.names[game.held]
    findings = Findings()
    oracle.check([*honest, (other, leaky), (None, _frame(game, -1, events, seq))], findings)
    assert findings.frames == 5
    assert findings.leaks == 1
    assert findings.mismatches == 0
    assert "held card" in findings.examples[0]
    lost = oracle.lost({"a-draw": (game.turn, seq), "never-logged": (0, 3)})
    assert len(lost) == 1
    assert "never-logged" in lost[0]
    assert any("fuzzed action fz-applied was applied" in p for p in oracle.problems)
    assert oracle.states[seq].held == game.held  # the replay is the game
    assert before.held != game.held
