"""The soak's oracle: what each seat may know at each seq, from the table's log, and the frames
that show more.

It reads a table's record and log straight from the server's SQLite file (plain ``sqlite3``,
read-only), replays the log with the rules engine (each match from the seed the server derives
for it), and checks every frame a client received against the engine's *state* at that frame's
seq: the places a seat knows (``Game.knowledge``), whether it knows the held card
(``Game.knows``), and what is public (the discard pile, cards shown to everyone, and every hand
once the round is over).  It never calls the server's renderer or the engine's observer, so a
bug in either shows up as a leak instead of being agreed with.

Card names are checked by place wherever a frame gives one (``view.shown``,
``view.knowledge``, ``view.held``, ``view.top_discard``, the reveals); event cards carry no
place, so each of their names must be one the viewer may know just before or just after the
event's action.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from facedown.engine import Action, Game, IllegalAction, Ruleset
from facedown.records.matches import new_match, start_seed

# What may be in a frame at all (docs/protocol.md): anything else could carry a secret.
VIEW_KEYS = frozenset(
    [
        "seat",
        "preset",
        "players",
        "round",
        "phase",
        "to_act",
        "first",
        "hands",
        "top_discard",
        "discard_size",
        "draw_size",
        "caller",
        "final_turns_left",
        "totals",
        "peeked",
        "holding",
        "held",
        "held_value",
        "held_powers",
        "powers",
        "shown",
        "last_round",
        "winners",
        "knowledge",
        "sudden_death",
    ]
)
EVENT_KEYS = frozenset(
    [
        "type",
        "by",
        "slots",
        "target",
        "target_slot",
        "cards",
        "seen",
        "round",
        "draw_size",
        "result",
        "winners",
    ]
)
FRAME_KEYS = {
    "event": frozenset(
        ["type", "seq", "view", "legal", "sets", "deadline", "now", "events", "timed_out", "ack"]
    ),
    "snapshot": frozenset(["type", "seq", "view", "legal", "sets", "deadline", "now", "rounds"]),
    "missed": frozenset(["type", "seq", "events"]),
}
FORBIDDEN_KEYS = frozenset({"seed", "draw_pile", "deal", "known", "public", "private"})
FUZZ_PREFIX = "fz-"  # ids of the soak's fuzzed actions: none may reach the log


Hands = list[list[str | None]]


@dataclass(frozen=True)
class Sight:
    """What one audience (a seat, or None: a spectator) may know at one seq."""

    places: dict[tuple[int, int], str]  # hand places it knows, with the card there
    held: str | None  # the held card, when it may know it
    top: str | None  # the top of the discard pile
    names: frozenset[str]  # every card name it may know now
    public: frozenset[str]  # every card name shown to everyone now
    reveals: list[Hands]  # the hands of each round over so far


def _hands(result_hands: Iterable[Iterable[int]], names: tuple[str, ...]) -> Hands:
    return [[names[c] if c >= 0 else None for c in hand] for hand in result_hands]


def sight(game: Game, seat: int | None) -> Sight:
    """Derived from the engine's state only: its knowledge masks, piles and round history."""
    names = game.deck.names
    if seat is None:
        mask = game.public
        places = {
            (o, s): names[c]
            for o, hand in enumerate(game.hands)
            for s, c in enumerate(hand)
            if c >= 0 and (mask >> c) & 1
        }
        held_known = game.held >= 0 and bool((mask >> game.held) & 1)
    else:
        places = {p: names[c] for p, c in game.knowledge(seat).items()}
        held_known = game.held >= 0 and game.knows(seat, game.held)
    public_places = {
        names[c]
        for hand in game.hands
        for c in hand
        if c >= 0 and ((game.public >> c) & 1 or game.is_round_over)
    }
    pile = {names[c] for c in game.discard_pile}
    held = names[game.held] if held_known else None
    public = public_places | pile
    if game.held >= 0 and game.held_from_discard:
        public.add(names[game.held])
    reveals = [_hands(r.hands, names) for r in game.history]
    for hands in reveals:
        public.update(n for hand in hands for n in hand if n is not None)
    known = public | set(places.values()) | ({held} if held else set())
    top = names[game.discard_pile[-1]] if game.discard_pile else None
    return Sight(places, held, top, frozenset(known), frozenset(public), reveals)


def _walk_keys(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for k, v in value.items():
            yield k
            yield from _walk_keys(v)
    elif isinstance(value, list):
        for v in value:
            yield from _walk_keys(v)


def _place(text: str) -> tuple[int, int] | None:
    owner, _, slot = text.partition(":")
    if owner.isdigit() and slot.isdigit():
        return int(owner), int(slot)
    return None


def _check_places(what: str, shown: dict[str, str], now: Sight) -> Iterator[str]:
    for where, name in shown.items():
        if where == "held" and what == "shown":
            if name != now.held:
                yield f"leak: {what} held card {name} (may know {now.held})"
            continue
        spot = _place(where)
        if spot is None or now.places.get(spot) != name:
            yield f"leak: {what} {name} at {where} (may know {now.places.get(spot or (-1, -1))})"


def _check_reveal(what: str, reveal: Any, hands: Hands | None) -> Iterator[str]:
    if hands is None:
        yield f"leak: {what} before any round is over"
    elif not isinstance(reveal, dict) or reveal.get("hands") != hands:
        yield f"leak: {what} hands differ from the round's cards"


def check_view(view: dict[str, Any], seat: int | None, game: Game, now: Sight) -> Iterator[str]:
    """The frame's view against the state at its seq."""
    extra = set(view) - VIEW_KEYS
    if extra:
        yield f"leak: unknown view fields {sorted(extra)}"
    if view.get("seat") != seat:
        yield f"mismatch: view of seat {view.get('seat')} sent to seat {seat}"
    facts = (view.get("phase"), view.get("draw_size"), view.get("discard_size"))
    state = (game.phase.value, len(game.draw_pile), len(game.discard_pile))
    if facts != state:
        yield f"mismatch: phase, draw and discard sizes {facts}, the log says {state}"
    sudden = list(view.get("sudden_death") or [])
    if sudden != list(game.sudden_seats()):
        yield f"mismatch: sudden_death {sudden}, the log says {list(game.sudden_seats())}"
    yield from _check_places("shown", view.get("shown") or {}, now)
    yield from _check_places("knowledge", view.get("knowledge") or {}, now)
    held = view.get("held")
    if held is not None and held != now.held:
        yield f"leak: held card {held} (may know {now.held})"
    if held is None and (view.get("held_value") is not None or view.get("held_powers")):
        yield "leak: the held card's value or powers without its face"
    if view.get("top_discard") != now.top:
        yield f"leak: top discard {view.get('top_discard')} (it is {now.top})"
    if view.get("last_round") is not None:
        last = now.reveals[-1] if now.reveals else None
        yield from _check_reveal("last_round", view["last_round"], last)


def check_event(event: dict[str, Any], seat: int | None, sights: list[Sight]) -> Iterator[str]:
    """One event: its cards public, its private cards the viewer's own, its reveal a real one."""
    kind = event.get("type")
    extra = set(event) - EVENT_KEYS
    if extra:
        yield f"leak: unknown fields {sorted(extra)} in a {kind} event"
    public = frozenset().union(*(s.public for s in sights))
    for name in event.get("cards") or []:
        if name is not None and name not in public:
            yield f"leak: {kind} event shows {name} to everyone"
    seen = [n for n in event.get("seen") or [] if n is not None]
    if seen and (seat is None or event.get("by") != seat):
        yield f"leak: seat {seat} saw {seen} in seat {event.get('by')}'s {kind} event"
    known = frozenset().union(*(s.names for s in sights))
    for name in seen:
        if name not in known:
            yield f"leak: {kind} event shows {name} to seat {seat}"
    if event.get("result") is not None:
        last = sights[-1].reveals[-1] if sights[-1].reveals else None
        yield from _check_reveal(f"{kind} result", event["result"], last)


@dataclass
class Findings:
    """What the oracle found: counts and the first few problems in words."""

    frames: int = 0  # frames checked
    unchecked: int = 0  # frames whose seq the oracle no longer (or never) had
    leaks: int = 0
    mismatches: int = 0
    examples: list[str] = field(default_factory=list)

    def add(self, problem: str, where: str) -> None:
        if problem.startswith("leak"):
            self.leaks += 1
        else:
            self.mismatches += 1
        if len(self.examples) < 20:
            self.examples.append(f"{where}: {problem}")


def check_frame(
    frame: dict[str, Any], seat: int | None, game: Game, before: Game | None
) -> list[str]:
    """Every problem of one frame (``event``, ``snapshot`` or ``missed``) for ``seat`` (None: a
    spectator), given the replayed state at its seq and the state just before (None at a
    match's start)."""
    kind = frame.get("type")
    problems = []
    forbidden = set(_walk_keys(frame)) & FORBIDDEN_KEYS
    if forbidden:
        problems.append(f"leak: server internals {sorted(forbidden)} in a frame")
    extra = set(frame) - FRAME_KEYS.get(str(kind), frozenset())
    if extra:
        problems.append(f"leak: unknown fields {sorted(extra)} in a {kind} frame")
    problems += _check_timed_out(frame.get("timed_out"))
    now = sight(game, seat)
    sights = [now] if before is None else [sight(before, seat), now]
    if "view" in frame:
        problems += check_view(frame["view"], seat, game, now)
    for r, reveal in enumerate(frame.get("rounds") or []):
        hands = now.reveals[r] if r < len(now.reveals) else None
        problems += _check_reveal(f"rounds[{r}]", reveal, hands)
    for event in frame.get("events") or []:
        problems += check_event(event, seat, sights)
    return problems


TIMED_OUT_ACTION_KEYS = frozenset(["by", "do", "slots", "slot", "target", "target_slot"])


def _check_timed_out(timed_out: Any) -> list[str]:
    """A move a timer played, named in an event frame: the seat, and an action of that seat
    (an action's fields only: no card)."""
    if timed_out is None:
        return []
    if not isinstance(timed_out, dict) or set(timed_out) != {"seat", "action"}:
        return [f"leak: a timed_out of unknown shape {timed_out!r}"]
    action = timed_out["action"]
    if not isinstance(action, dict) or set(action) - TIMED_OUT_ACTION_KEYS:
        return [f"leak: unknown fields in a timed-out action {action!r}"]
    if action.get("by") != timed_out["seat"]:
        return [f"a timed-out action {action!r} is not seat {timed_out['seat']}'s"]
    return []


@dataclass
class LoggedId:
    seq: int
    by: int


class TableOracle:
    """One table's log replayed as it grows: the state at each recent seq, and its action ids.

    ``keep`` states are kept back from the newest, for frames that arrive late (a client behind,
    or events resent on reconnection)."""

    def __init__(self, db: Path, code: str, keep: int = 600) -> None:
        self.db = db
        self.code = code
        self.keep = keep
        self.table_id: str | None = None
        self.rules: Ruleset | None = None
        self.seed = 0
        self.seq = 0
        self.states: dict[int, Game] = {}
        self.starts: set[int] = set()  # seqs of match starts: no "before" state there
        self.ids: dict[str, LoggedId] = {}
        self.games = 0  # matches played to their end in the log
        self.problems: list[str] = []  # the log itself does not replay, or holds fuzz

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(f"file:{self.db}?mode=ro", uri=True, timeout=30)

    def advance(self) -> None:
        """Read and replay the entries logged since the last call."""
        with self._connect() as db:
            if self.table_id is None:
                row = db.execute(
                    "SELECT id, rules, seed FROM tables WHERE code = ?", (self.code,)
                ).fetchone()
                if row is None:
                    return
                self.table_id, self.rules, self.seed = (
                    row[0],
                    Ruleset.from_json(json.loads(row[1])),
                    int(row[2]),
                )
            rows = db.execute(
                "SELECT seq, kind, payload FROM table_log WHERE table_id = ? AND seq > ? "
                "ORDER BY seq",
                (self.table_id, self.seq),
            ).fetchall()
        for seq, kind, payload in rows:
            self._replay(int(seq), str(kind), json.loads(payload))
        for old in [s for s in self.states if s < self.seq - self.keep]:
            del self.states[old]

    def _replay(self, seq: int, kind: str, payload: dict[str, Any]) -> None:
        if seq != self.seq + 1:
            self.problems.append(f"log seq {seq} follows {self.seq}")
        self.seq = seq
        if kind == "start":
            if self.rules is None:
                raise RuntimeError("replay before the table's record was read")
            players = int(payload["players"])
            seed = start_seed(self.seed, payload)
            game = new_match(self.rules, players, seed, payload.get("deal"))
            self.starts.add(seq)
            self.states[seq] = game
            return
        if kind == "action":
            self._replay_action(seq, payload)

    def _replay_action(self, seq: int, payload: dict[str, Any]) -> None:
        previous = self.states.get(seq - 1)
        if previous is None:
            self.problems.append(f"log seq {seq}: an action with no state before it")
            return
        action = Action.from_json(payload["action"])
        game = previous.clone()
        try:
            game.apply(action)
        except IllegalAction as e:
            self.problems.append(f"log seq {seq}: {action.text()} does not replay: {e}")
            return
        self.states[seq] = game
        if game.is_match_over and not previous.is_match_over:
            self.games += 1
        action_id = payload.get("id")
        if action_id is None and not payload.get("auto"):
            self.problems.append(f"log seq {seq}: an action with neither a client id nor auto")
        elif action_id is not None:
            if str(action_id).startswith(FUZZ_PREFIX):
                self.problems.append(f"log seq {seq}: fuzzed action {action_id} was applied")
            self.ids[str(action_id)] = LoggedId(seq, action.player)

    def check(
        self, frames: Iterable[tuple[int | None, dict[str, Any]]], findings: Findings
    ) -> None:
        """Check ``(seat, frame)`` pairs, reading the log further first when a frame is newer."""
        frames = list(frames)
        if any(f["seq"] > self.seq for _, f in frames):
            self.advance()
        for seat, frame in frames:
            recent = frame.get("recent")
            if frame.get("type") == "snapshot" and recent is not None:
                # A page loaded afresh gets the latest changes for its log: each must be the
                # change as a spectator saw it, whoever the seat is.
                frame = {k: v for k, v in frame.items() if k != "recent"}
                for batch in recent:
                    self.check([(None, {"type": "missed", **batch})], findings)
            seq = frame["seq"]
            game = self.states.get(seq)
            if game is None:
                findings.unchecked += 1
                continue
            before = None if seq in self.starts else self.states.get(seq - 1)
            where = f"table {self.code} seat {seat} seq {seq}"
            for problem in check_frame(frame, seat, game, before):
                findings.add(problem, where)
            if frame.get("ack") is not None:  # only the acting seat's event answers its action
                logged = self.ids.get(str(frame["ack"]))
                if logged is None or (logged.seq, logged.by) != (seq, seat):
                    findings.add(f"leak: ack {frame['ack']!r}, not this seat's action here", where)
            findings.frames += 1

    def lost(self, acks: dict[str, tuple[int, int]]) -> list[str]:
        """Acknowledged actions (id -> (seat, seq)) that the log does not hold as acknowledged."""
        self.advance()
        out = []
        for action_id, (seat, seq) in acks.items():
            logged = self.ids.get(action_id)
            if logged is None or (logged.seq, logged.by) != (seq, seat):
                found = "missing" if logged is None else f"at seq {logged.seq} by {logged.by}"
                out.append(f"table {self.code}: {action_id} acked at seq {seq}: {found}")
        return out
