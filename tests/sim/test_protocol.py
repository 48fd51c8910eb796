"""The third-party bot protocol: Python classes by ``module:Class``, programs by ``cmd:``.

A bad decision (illegal, unreadable, too late) is played by the guard instead and counted as a
fault; a program that exits or goes silent stops the tournament with a clear error.
"""

from __future__ import annotations

import json
import shlex
import sys
import textwrap
from pathlib import Path

import pytest

from facedown.bots import RandomBot, seat_info
from facedown.bots.protocol import (
    BadReply,
    BotError,
    Guard,
    ReactiveGuard,
    guard,
    make_entrant,
    parse_level,
)
from facedown.bots.search import ExpertBot
from facedown.engine import PRESETS, Action, Game, find_preset
from facedown.sim import SimConfig, SimError, run, standings
from tests.sim.sample_bots import Tapper

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "bots" / "random_bot.py"


def command(script: Path) -> str:
    return f"cmd:{shlex.quote(sys.executable)} {shlex.quote(str(script))}"


def program(tmp_path: Path, body: str) -> str:
    """A bot program: ``body`` handles ``message`` (one parsed line) with ``say`` to reply."""
    script = tmp_path / "bot.py"
    script.write_text(
        "import json, sys, time\n"
        "def say(obj):\n"
        "    sys.stdout.write((obj if isinstance(obj, str) else json.dumps(obj)) + '\\n')\n"
        "    sys.stdout.flush()\n"
        "decisions = 0\n"
        "for line in sys.stdin:\n"
        "    message = json.loads(line)\n"
        "    if message['type'] == 'hello':\n"
        "        say({'id': message['id'], 'name': 'test'})\n"
        "        continue\n"
        "    if message['type'] != 'decide':\n"
        "        continue\n"
        "    decisions += 1\n" + textwrap.indent(textwrap.dedent(body), "    "),
        encoding="utf-8",
    )
    return command(script)


def tournament(bot: str, *, games: int = 3, jobs: int = 1, **changes: object) -> SimConfig:
    base: dict[str, object] = {
        "preset": "cabo",
        "players": 2,
        "bots": (bot, "random"),
        "games": games,
        "seed": 11,
    }
    base.update(changes)
    return SimConfig(**base)  # type: ignore[arg-type]


def test_the_example_program_plays_a_tournament() -> None:
    cfg = tournament(command(EXAMPLE), games=6)
    results = run(cfg, jobs=1)
    assert len(results) == 6
    example = standings(results)[0]
    assert example.games == 6
    assert example.faults == 0
    # A program seeded by hello replays too, whatever the number of processes.
    assert run(cfg, jobs=2) == results


def test_malformed_and_illegal_replies_fall_back_and_are_counted(tmp_path: Path) -> None:
    spec = program(
        tmp_path,
        """
        if decisions == 1:
            say("this is not json")
        elif decisions == 2:
            say({"id": message["id"], "act": "draw"})
        elif decisions == 3:
            say({"id": message["id"], "action": {"do": "fly"}})
        elif decisions == 4:
            say({"id": message["id"], "action": {"do": "swap", "slot": 0, "target": 1}})
        elif decisions == 5:
            say({"id": message["id"], "action": None})
        else:
            say({"id": message["id"], "action": message["legal"][0]})
        """,
    )
    results = run(tournament(spec, games=1))
    seat = next(s for s in results[0].seats if s.bot == spec)
    assert seat.faults == 5
    assert seat.fault_notes[0].startswith("reply is not a JSON object")
    assert "no 'action'" in seat.fault_notes[1]
    assert "unknown action 'fly'" in seat.fault_notes[2]
    assert "needs a 'target_slot'" in seat.fault_notes[3]
    assert seat.fault_notes[4] == "null action where the seat must act"


def test_an_action_in_text_form_is_accepted(tmp_path: Path) -> None:
    # The reply may give the action's canonical text without the seat: "draw", "replace 0 1".
    spec = program(
        tmp_path,
        """
        legal = message["legal"]
        texts = {"draw": "draw", "call": "call", "take_discard": "take_discard"}
        first = legal[0]
        if first["do"] in texts:
            say({"id": message["id"], "action": texts[first["do"]]})
        else:
            say({"id": message["id"], "action": first})
        """,
    )
    assert standings(run(tournament(spec, games=2)))[0].faults == 0


def test_a_late_reply_is_a_fault_and_is_then_ignored(tmp_path: Path) -> None:
    # The first decision answers 0.2 s after its 1 s timeout; that answer must not be taken for
    # the next decision, whose own answer follows at once (well inside its timeout).
    spec = program(
        tmp_path,
        """
        if decisions == 1:
            time.sleep(1.2)
            say({"action": message["legal"][-1]})
        else:
            say({"action": message["legal"][0]})
        """,
    )
    results = run(tournament(spec, games=1, timeout=1.0))
    seat = next(s for s in results[0].seats if s.bot == spec)
    assert seat.faults == 1
    assert seat.fault_notes == ("no reply within 1 s",)


def test_a_program_that_exits_stops_the_tournament(tmp_path: Path) -> None:
    spec = program(
        tmp_path,
        """
        sys.stderr.write("out of ideas\\n")
        sys.exit(3)
        """,
    )
    with pytest.raises(SimError, match=r"(?s)stopped \(exit code 3\).*out of ideas"):
        run(tournament(spec, games=2))


def test_a_silent_program_stops_the_tournament(tmp_path: Path) -> None:
    spec = program(tmp_path, "time.sleep(30)\n")
    with pytest.raises(SimError, match=r"did not answer 3 requests in a row within 0\.1 s"):
        run(tournament(spec, games=1, timeout=0.1))


def test_a_program_that_reacts_is_offered_taps(tmp_path: Path) -> None:
    # Boyo has TAP: a program that says "react": true gets optional decisions (taps only),
    # and passes them with a null action.
    count = tmp_path / "optional.txt"
    script = tmp_path / "tapper.py"
    script.write_text(
        textwrap.dedent(
            f"""
            import json, sys
            optional = 0
            for line in sys.stdin:
                m = json.loads(line)
                if m["type"] == "hello":
                    print(json.dumps({{"id": m["id"], "react": True}}), flush=True)
                elif m["type"] == "decide":
                    if m["optional"]:
                        optional += 1
                        assert all(a["do"] == "tap" for a in m["legal"])
                    action = None if m["optional"] else m["legal"][0]
                    print(json.dumps({{"id": m["id"], "action": action}}), flush=True)
                elif m["type"] == "bye":
                    open({str(count)!r}, "w").write(str(optional))
            """
        ),
        encoding="utf-8",
    )
    rules = find_preset("boyo")
    entrant = make_entrant(command(script))
    try:
        bot = entrant.new_bot(seat=0, players=2, rules=rules, seed=1, game=0)
        assert isinstance(guard(bot, 0), ReactiveGuard)
    finally:
        entrant.close()
    results = run(tournament(command(script), preset="boyo", games=1))
    assert standings(results)[0].faults == 0
    assert int(count.read_text()) > 0


def test_a_program_is_told_what_happened_since_its_last_message(tmp_path: Path) -> None:
    # Each decide (and the over) carries the events since the seat's last message, as the seat
    # saw them: its own private cards, nobody else's; the round's end comes with the over.
    told = tmp_path / "told.jsonl"
    script = tmp_path / "listener.py"
    script.write_text(
        textwrap.dedent(
            f"""
            import json, sys
            out = open({str(told)!r}, "a")
            for line in sys.stdin:
                m = json.loads(line)
                if m["type"] == "hello":
                    print(json.dumps({{"id": m["id"]}}), flush=True)
                elif m["type"] in ("decide", "over"):
                    out.write(json.dumps([m["type"], m["seat"], m["events"]]) + "\\n")
                    out.flush()
                    if m["type"] == "decide":
                        reply = {{"id": m["id"], "action": m["legal"][0]}}
                        print(json.dumps(reply), flush=True)
            """
        ),
        encoding="utf-8",
    )
    results = run(tournament(command(script), games=1, unit="round"))
    assert standings(results)[0].faults == 0
    messages = [json.loads(line) for line in told.read_text().splitlines()]
    (seat,) = {s for _, s, _ in messages}
    events = [e for _, _, batch in messages for e in batch]
    assert messages[0][2] == []  # its first decision, its opening peek: nothing happened yet
    assert messages[-1][0] == "over"
    assert events[-1]["type"] == "round_over"
    assert [e["type"] for e in events].count("round_over") == 1  # each event once
    mine = [e for e in events if e.get("by") == seat and e["type"] == "opening_peeked"]
    assert len(mine) == 1
    assert len(mine[0]["seen"]) == 2  # the two cards it looked at
    assert any(e.get("by") == 1 - seat for e in events)  # the other seat's moves too
    assert not any("seen" in e for e in events if e.get("by") != seat)


def test_class_bots_are_constructed_per_game_with_a_seed_when_they_take_one() -> None:
    first = make_entrant("tests.sim.sample_bots:FirstLegal")
    rules = find_preset("cabo")
    bot = first.new_bot(seat=0, players=2, rules=rules, seed=42, game=0)
    assert getattr(bot, "seed", None) == 42
    bare = make_entrant("tests.sim.sample_bots:Seedless")
    assert bare.new_bot(seat=0, players=2, rules=rules, seed=42, game=0) is not None


def test_an_illegal_class_bot_is_played_by_the_guard() -> None:
    results = run(tournament("tests.sim.sample_bots:Cheater", games=2))
    cheater = standings(results)[0]
    assert cheater.faults > 0
    assert cheater.fault_notes[0] == "illegal action '99 draw'"


def test_a_reactive_class_bot_taps_and_hears_the_end() -> None:
    Tapper.ended = 0
    results = run(tournament("tests.sim.sample_bots:Tapper", preset="boyo", games=2))
    assert standings(results)[0].faults == 0
    assert Tapper.ended == 2


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("no_such_module_xyz:Bot", "cannot import 'no_such_module_xyz'"),
        ("tests.sim.sample_bots:Missing", "has no 'Missing'"),
        ("tests.sim.sample_bots:NotABot", "no choose"),
        ("expertest", "unknown bot 'expertest'"),
        ("expert(budget=3)", "unexpected keyword argument 'budget'"),
        ("hard(noise)", "write each option as name=value"),
        ("hard(noise=1, noise=2)", "option 'noise' given twice"),
        ("hard(noise=1", "must end with"),
        ("random(noise=1)", "the random level takes no options"),
    ],
)
def test_bad_specs_say_what_is_wrong(spec: str, message: str) -> None:
    with pytest.raises(BotError, match=message):
        make_entrant(spec)


def test_guard_accepts_replace_slots_in_any_order() -> None:
    class Backwards:
        def choose(self, info: object) -> Action:
            return Action(0, "replace", (1, 0))

    game = Game(find_preset("cabo"), 2, 1)
    for s in range(2):
        game.apply(game.legal_actions(s)[0])  # the opening peeks
    game.apply(Action(game.turn, "draw"))
    assert game.turn == 0
    info = seat_info(game, 0)
    assert info.sets == 4  # cabo replaces sets: a rule, not listed in info.legal
    bot = Guard(Backwards(), 0)
    assert bot.choose(info) == Action(0, "replace", (0, 1))
    assert bot.faults == 0


def test_guard_turns_a_bad_reply_into_a_random_legal_action() -> None:
    class Broken:
        def choose(self, info: object) -> Action:
            raise BadReply("garbled")

    game = Game(find_preset("cabo"), 2, 1)
    info = seat_info(game, 0)
    bot = Guard(Broken(), 0)
    assert bot.choose(info) in info.legal
    assert (bot.faults, bot.notes) == (1, ["garbled"])
    assert not isinstance(guard(RandomBot(1), 0), ReactiveGuard)


def test_level_options_are_read_as_json_values() -> None:
    assert parse_level("hard") == ("hard", {})
    assert parse_level(" expert( budget_ms=0, iterations=12, horizon_turns=null ) ") == (
        "expert",
        {"budget_ms": 0, "iterations": 12, "horizon_turns": None},
    )
    assert parse_level('expert(search_phases=["powers", "holding"], x="a,b")') == (
        "expert",
        {"search_phases": ["powers", "holding"], "x": "a,b"},
    )
    assert parse_level("medium(noise=0.5, track_pile=true)") == (
        "medium",
        {"noise": 0.5, "track_pile": True},
    )


def test_a_level_with_options_plays_with_them() -> None:
    entrant = make_entrant("expert(budget_ms=0, iterations=3)")
    bot = entrant.new_bot(seat=0, players=2, rules=PRESETS["cabo"], seed=1, game=0)
    assert isinstance(bot, ExpertBot)
    assert bot.iterations == 3
    assert bot.budget == 0
