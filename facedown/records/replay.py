"""Replays: a finished match again, step by step, face up or through one seat's eyes.

A :class:`Replay` plays a :class:`~facedown.records.matches.MatchLog` (a match from a table's action
log, or from an exported file) through the rules engine and keeps every step: step 0 is the
deal, step ``n`` the table after the match's ``n``-th action.  It goes forward, back and to the
start of any round.  At each step it shows either

- everything face up (:class:`FaceUp`): the public view, every card in every hand, the held
  card and the events with every card they showed anyone; or
- exactly what one seat knew: the engine's observer, :func:`facedown.engine.observe`, for that
  seat with that step's events, the very value the server rendered into the frame it sent
  the seat live.

The server (``/api/replays``) and the terminal (``facedown replay``) share this module; it does
no I/O.  An exported replay (:func:`export`, :func:`load_export`) is the match's rules, seat
names, own seed, stacked deal (if any) and actions, as JSON.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..engine import (
    EVERYONE,
    SPECTATOR,
    Action,
    ActionFormatError,
    Event,
    Game,
    IllegalAction,
    Observation,
    Reveal,
    Ruleset,
    RulesetError,
    SeenEvent,
    View,
    observe,
    seen_event,
    view,
)
from ..engine.phases import HOLDING, TAKEN
from .matches import MatchLog

FORMAT = "facedown-replay"
VERSION = 1
MAX_ACTIONS = 100_000  # actions an exported file may hold
MAX_NAME = 40

Names = tuple[str | None, ...]


class ReplayError(ValueError):
    """A replay that cannot be built: a malformed file, or a log the engine refuses."""


@dataclass(frozen=True, slots=True)
class FaceUp:
    """One step with every card face up: the public view, each hand by card name (None: no
    card there), the card held (if any), the top of the draw pile and the step's events with
    every card they showed anyone."""

    view: View
    hands: tuple[Names, ...]
    held: str | None
    draw_top: str | None
    events: tuple[SeenEvent, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "view": self.view.to_json(),
            "hands": [list(h) for h in self.hands],
            "held": self.held,
            "draw_top": self.draw_top,
            "events": [e.to_json() for e in self.events],
        }


@dataclass(frozen=True, slots=True)
class Step:
    """One step of a replay, as one viewer watches it (``seat`` None: face up)."""

    step: int
    round: int
    action: Action | None  # the action that led here (None: the deal)
    seat: int | None
    face_up: FaceUp | None
    seen: Observation | None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "step": self.step,
            "round": self.round,
            "action": self.action.to_json() if self.action is not None else None,
            "text": self.action.text() if self.action is not None else None,
            "seat": self.seat,
        }
        if self.face_up is not None:
            out.update(self.face_up.to_json())
        if self.seen is not None:
            out["view"] = self.seen.view.to_json()
            out["legal"] = [a.to_json() for a in self.seen.legal]
            out["sets"] = self.seen.sets
            out["events"] = [e.to_json() for e in self.seen.events]
        return out


class Replay:
    """A match played again from its log; ``position`` is the step being watched."""

    def __init__(self, match: MatchLog) -> None:
        self.match = match
        try:
            game = match.game()
        except ValueError as e:
            raise ReplayError(f"match {match.match_id} cannot be dealt: {e}") from None
        self._states: list[Game] = [game.clone()]
        self._events: list[tuple[Event, ...]] = [()]
        self._rounds: dict[int, int] = {game.round_no: 0}
        for n, action in enumerate(match.actions, 1):
            try:
                events = game.apply(action)
            except (IllegalAction, ValueError) as e:
                raise ReplayError(f"action {n} ({action.text()}) is refused: {e}") from None
            self._states.append(game.clone())
            self._events.append(tuple(events))
            self._rounds.setdefault(game.round_no, n)
        self.position = 0

    # ------------------------------------------------------------------ the match
    @property
    def finished(self) -> bool:
        """The match is over (only a finished match is ever shown to anyone)."""
        return self._states[-1].is_match_over

    @property
    def players(self) -> int:
        return self.match.players

    @property
    def rules(self) -> Ruleset:
        return self.match.rules

    def __len__(self) -> int:
        """The number of steps: the deal and one per action."""
        return len(self._states)

    @property
    def rounds(self) -> dict[int, int]:
        """Each round's number and the step it starts at (its deal)."""
        return dict(self._rounds)

    @property
    def winners(self) -> tuple[int, ...]:
        return self._states[-1].winners

    @property
    def places(self) -> list[int]:
        """Each seat's place at the end (1 is best, ties share), sudden death included."""
        return self._states[-1].places()

    def results(self) -> tuple[Reveal, ...]:
        """Every round's reveal, in order."""
        last = self._states[-1]
        return tuple(Reveal.of(r, last.deck) for r in last.history)

    def round_at(self, step: int) -> int:
        return self._states[self._check(step)].round_no

    # ------------------------------------------------------------------ moving
    def forward(self, steps: int = 1) -> int:
        """Move on (no further than the last step); the new position."""
        self.position = min(len(self) - 1, self.position + steps)
        return self.position

    def back(self, steps: int = 1) -> int:
        """Move back (no further than the deal); the new position."""
        self.position = max(0, self.position - steps)
        return self.position

    def seek(self, step: int) -> int:
        self.position = self._check(step)
        return self.position

    def jump(self, round_no: int) -> int:
        """Go to the deal of round ``round_no``."""
        start = self._rounds.get(round_no)
        if start is None:
            raise ReplayError(f"the match has no round {round_no} (it had {len(self._rounds)})")
        self.position = start
        return start

    # ------------------------------------------------------------------ watching
    def step(
        self, seat: int | None = None, step: int | None = None, *, knowledge: bool | None = None
    ) -> Step:
        """Step ``step`` (default: the position) face up (``seat`` None) or through ``seat``'s
        eyes; ``knowledge`` as for :func:`facedown.engine.observe` (default: what the table
        showed live, Recollection only where the rules have it)."""
        at = self.position if step is None else self._check(step)
        game = self._states[at]
        action = self.match.actions[at - 1] if at > 0 else None
        if seat is None:
            return Step(at, game.round_no, action, None, self._face_up(at), None)
        if not 0 <= seat < self.players:
            raise ReplayError(
                f"there is no seat {seat} in this match (seats 0 to {self.players - 1})"
            )
        seen = observe(game, seat, self._events[at], knowledge=knowledge)
        return Step(at, game.round_no, action, seat, None, seen)

    def observation(self, seat: int, step: int, *, knowledge: bool | None = None) -> Observation:
        """What ``seat`` was shown at ``step``: the observer's value for the frame sent live."""
        return observe(
            self._states[self._check(step)], seat, self._events[step], knowledge=knowledge
        )

    def _face_up(self, at: int) -> FaceUp:
        game = self._states[at]
        names = game.deck.names
        hands = tuple(tuple(names[c] if c >= 0 else None for c in hand) for hand in game.hands)
        holding = game.held >= 0 and game.phase in (HOLDING, TAKEN)
        return FaceUp(
            view=view(game, SPECTATOR),
            hands=hands,
            held=names[game.held] if holding else None,
            draw_top=names[game.draw_pile[-1]] if game.draw_pile else None,
            events=tuple(seen_event(e, game.deck, EVERYONE) for e in self._events[at]),
        )

    def _check(self, step: int) -> int:
        if not 0 <= step < len(self):
            raise ReplayError(f"the match has steps 0 to {len(self) - 1}, not {step}")
        return step


# ---------------------------------------------------------------------- exported files
def export(match: MatchLog) -> dict[str, Any]:
    """The file form of a finished match (JSON): everything needed to replay it, no more."""
    if not match.exportable:
        raise ReplayError(
            f"match {match.match_id} was seeded before replays could leave the server"
        )
    out: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "match": match.match_id,
        "rules": match.rules.to_json(),
        "players": match.players,
        "names": list(match.names),
        "seed": match.seed,
        "actions": [a.to_json() for a in match.actions],
    }
    if match.deal is not None:
        out["deal"] = dict(match.deal)
    return out


def load_export(data: object) -> MatchLog:
    """The match an exported file holds; :class:`ReplayError` names what is wrong with it."""
    if not isinstance(data, Mapping) or data.get("format") != FORMAT:
        raise ReplayError(f'not a Facedown replay file (no "format": "{FORMAT}")')
    if data.get("version") != VERSION:
        raise ReplayError(f"replay file version {data.get('version')!r} is not {VERSION}")
    table_id, match_no = parse_match_id(_field(data, "match", str))
    try:
        rules = Ruleset.from_json(_field(data, "rules", dict))
    except (RulesetError, ValueError, TypeError, KeyError) as e:
        raise ReplayError(f"the file's rules are not valid: {e}") from None
    players = _field(data, "players", int)
    seed = _field(data, "seed", int)
    actions = _field(data, "actions", list)
    if len(actions) > MAX_ACTIONS:
        raise ReplayError(f"the file holds {len(actions)} actions, more than {MAX_ACTIONS}")
    names = _names(data.get("names", []), players)
    deal = data.get("deal")
    if deal is not None and not isinstance(deal, dict):
        raise ReplayError("the file's deal is not an object")
    return MatchLog(table_id, match_no, rules, players, seed, deal, _actions(actions), names)


def _field(data: Mapping[str, Any], key: str, kind: type) -> Any:
    value = data.get(key)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise ReplayError(f"the file's {key!r} is missing or not {kind.__name__}")
    return value


def _names(raw: object, players: int) -> tuple[str, ...]:
    if not isinstance(raw, list) or len(raw) > players:
        raise ReplayError("the file's names are not a list of one name per seat")
    return tuple(str(n)[:MAX_NAME] for n in raw)


def _actions(raw: Sequence[object]) -> tuple[Action, ...]:
    out = []
    for n, item in enumerate(raw, 1):
        if not isinstance(item, dict):
            raise ReplayError(f"action {n} in the file is not an object")
        try:
            out.append(Action.from_json(item))
        except ActionFormatError as e:
            raise ReplayError(f"action {n} in the file is malformed: {e}") from None
    return tuple(out)


def parse_match_id(text: str) -> tuple[str, int]:
    """``<table_id>/<match_no>`` as its parts; :class:`ReplayError` when it is not one."""
    table_id, _, number = text.strip().partition("/")
    if not (table_id and len(table_id) <= 64 and table_id.isalnum() and number.isdigit()):
        raise ReplayError(f"{text!r} is not a match id (<table id>/<match number>, e.g. ab12/1)")
    match_no = int(number)
    if not 1 <= match_no <= 1_000_000:
        raise ReplayError(f"match numbers count from 1, not {match_no}")
    return table_id, match_no
