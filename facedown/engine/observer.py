"""The observer: everything one seat may know now, as one typed, immutable value.

:func:`observe` is the one function that decides what a seat may see.  Its
:class:`Observation` holds the seat's :class:`View` (public information, what this seat is being
shown right now and, where the rules have Recollection, what it has legitimately learned), the
events given to it rendered for that seat (:class:`SeenEvent`), and its legal actions.  Nothing
in it is a card the seat does not know, and nothing gives away the order of the draw pile.

Every value here has one JSON form (``to_json``); the protocol's JSON Schema and the web
client's TypeScript types are generated from these same classes (:mod:`facedown.devtools.wire`).
"""

from __future__ import annotations

import dataclasses
import weakref
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any, ClassVar

from .actions import REPLACE, Action
from .cards import Deck
from .events import EVERYONE, SPECTATOR, Event, EventKind
from .legality import legal_actions, set_size
from .phases import HOLDING, TAKEN, Phase
from .results import RoundResult
from .rules import Ruleset
from .state import EMPTY, State

Names = tuple[str | None, ...]  # card names by place; None: no card there
_NO_KNOWLEDGE: Mapping[str, str] = {}  # shared, never changed (typed read-only)


# Types whose JSON form is the value itself (exact types: a str enum or an int enum goes the
# long way, bool before int there).  The server renders every frame through here: the common
# cases are looked up by type, not found by a chain of isinstance calls.
_AS_IS = frozenset({type(None), bool, int, float, str})


def to_plain(value: Any) -> Any:
    """The JSON form of an observer value (dataclasses, actions, enums, tuples, mappings)."""
    kind = type(value)
    if kind in _AS_IS:
        return value
    if kind is tuple or kind is list:
        return [item if type(item) in _AS_IS else to_plain(item) for item in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, Action):  # a NamedTuple: before the tuples
        return value.to_json()
    if isinstance(value, (tuple, list)):
        return [to_plain(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): to_plain(v) for k, v in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _dataclass_json(value)
    raise TypeError(f"no JSON form for {type(value).__name__}")


_JSON_FIELDS: dict[type, tuple[tuple[str, ...], bool]] = {}


def _json_fields(cls: type) -> tuple[tuple[str, ...], bool]:
    """The fields of a class's JSON form, and whether it leaves empty ones out (read once per
    class: the server renders every frame through here)."""
    found = _JSON_FIELDS.get(cls)
    if found is None:
        names = tuple(f.name for f in dataclasses.fields(cls) if f.metadata.get("json", True))
        found = _JSON_FIELDS[cls] = (names, bool(getattr(cls, "OMIT_EMPTY", False)))
    return found


def _dataclass_json(value: Any) -> dict[str, Any]:
    names, omit_empty = _json_fields(type(value))
    out: dict[str, Any] = {}
    for name in names:
        item = getattr(value, name)
        if omit_empty and (item is None or item == ()):
            continue
        out[name] = item if type(item) in _AS_IS else to_plain(item)
    return out


def place(owner: int, slot: int) -> str:
    """The text form of a place on the table: ``"owner:slot"``."""
    return f"{owner}:{slot}"


@dataclass(frozen=True, slots=True)
class Reveal:
    """A round's reveal: every hand by card name, the scores and why, the totals after it."""

    round: int
    hands: tuple[Names, ...]
    hand_totals: tuple[int, ...]
    round_scores: tuple[int, ...]
    totals: tuple[int, ...]
    caller: int | None
    reasons: tuple[tuple[str, ...], ...]

    @classmethod
    def of(cls, result: RoundResult, deck: Deck) -> Reveal:
        names = deck.names
        return cls(
            round=result.round_no,
            hands=tuple(tuple(names[c] if c >= 0 else None for c in h) for h in result.hands),
            hand_totals=result.hand_totals,
            round_scores=result.round_scores,
            totals=result.totals,
            caller=result.caller if result.caller >= 0 else None,
            reasons=result.reasons,
        )

    def to_json(self) -> dict[str, Any]:
        return _dataclass_json(self)


# Each round result's reveal in its JSON form, with the deck names it was made with, by the
# result's id while it lives (a weak reference drops the entry when it goes).  A round's reveal
# is in every view of the round after it (``last_round``) and every round's in a snapshot.
_REVEALS: dict[int, tuple[weakref.ref[RoundResult], tuple[str, ...], dict[str, Any]]] = {}


def reveal_json(result: RoundResult, deck: Deck) -> dict[str, Any]:
    """``Reveal.of(result, deck).to_json()``, made once for a result (and deck) and the same
    object after: the caller must not change it (the server encodes it and changes none)."""
    key = id(result)
    kept = _REVEALS.get(key)
    if kept is not None and kept[0]() is result and kept[1] is deck.names:
        return kept[2]
    made = Reveal.of(result, deck).to_json()
    _REVEALS[key] = (weakref.ref(result, partial(_forget_reveal, key)), deck.names, made)
    return made


def _forget_reveal(key: int, _gone: weakref.ref[RoundResult]) -> None:
    _REVEALS.pop(key, None)


@dataclass(frozen=True, slots=True)
class View:
    """What one seat (or a spectator: ``seat`` None) may see of the table now."""

    seat: int | None
    preset: str
    players: int
    round: int
    phase: Phase
    to_act: int | None = field(metadata={"doc": "whose turn it is; null outside play"})
    first: int
    hands: tuple[tuple[bool, ...], ...] = field(metadata={"doc": "which places hold a card"})
    top_discard: str | None
    discard_size: int
    draw_size: int
    caller: int | None
    final_turns_left: int | None
    totals: tuple[int, ...]
    peeked: tuple[bool, ...] = field(metadata={"doc": "who has taken the opening look"})
    sudden_death: tuple[int, ...] = field(
        metadata={
            "doc": "in a sudden-death round, the seats tied for the lowest total that play it "
            "(the others watch: no cards, no actions); empty in every other round"
        },
    )
    holding: bool = field(metadata={"doc": "the turn player holds a drawn or taken card"})
    held: str | None = field(
        metadata={"doc": "the held card: for its holder, or for all when taken from the discard"}
    )
    held_value: int | None = field(
        metadata={"doc": "what the held card is worth, wherever its face is given in held"}
    )
    held_powers: tuple[str, ...] = field(
        metadata={
            "doc": "the powers the held card gives (a card drawn from the deck; none for one "
            "taken from the discard pile), wherever its face is given in held"
        }
    )
    powers: tuple[str, ...] = field(metadata={"doc": "powers the seat may use now"})
    shown: Mapping[str, str] = field(
        metadata={"doc": "cards this seat is being shown now, by place (or 'held')"}
    )
    last_round: Reveal | None
    winners: tuple[int, ...] = field(metadata={"doc": "the winners once the match is over"})
    knowledge: Mapping[str, str] | None = field(
        metadata={"doc": "every card this seat knows, by place (Recollection tables, bots)"}
    )

    def to_json(self) -> dict[str, Any]:
        return _dataclass_json(self)


@dataclass(frozen=True, slots=True)
class SeenEvent:
    """One event as one viewer may see it; fields that do not apply are left out."""

    OMIT_EMPTY: ClassVar[bool] = True

    type: EventKind
    by: int | None = None
    slots: tuple[int, ...] = ()
    target: int | None = None
    target_slot: int | None = None
    cards: Names = field(default=(), metadata={"doc": "cards shown to everyone"})
    seen: Names = field(default=(), metadata={"doc": "cards shown to this viewer alone"})
    round: int | None = None
    draw_size: int | None = None
    result: Reveal | None = None
    winners: tuple[int, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return _dataclass_json(self)


@dataclass(frozen=True, slots=True)
class Observation:
    """Everything ``seat`` may know now: its view, the events given, its legal actions."""

    seat: int = field(metadata={"json": False})  # SPECTATOR (-1) for a spectator
    view: View
    legal: tuple[Action, ...]
    sets: int = field(
        metadata={
            "doc": "the most cards you may replace as one set now (0: none); sets are not "
            "listed in legal: any 2 to that many of your own cards make one"
        }
    )
    events: tuple[SeenEvent, ...]
    rules: Ruleset = field(metadata={"json": False})

    def allows(self, action: Action) -> bool:
        """Whether ``action`` is legal now: listed, or a set replace of 2 up to ``sets`` of the
        seat's own cards (each one it may replace alone), in any order."""
        if action in self.legal:
            return True
        slots = action.slots
        if (
            action.kind != REPLACE
            or not 2 <= len(slots) <= self.sets
            or len(set(slots)) != len(slots)
            or action.player != self.seat
            or action.target != -1
            or action.target_slot != -1
        ):
            return False
        singles = {a.slots[0] for a in self.legal if a.kind == REPLACE}
        return all(s in singles for s in slots)

    @property
    def knowledge(self) -> Mapping[str, str]:
        """What the seat knows, by place (empty when it was not asked for or not allowed)."""
        return self.view.knowledge or _NO_KNOWLEDGE

    def to_json(self) -> dict[str, Any]:
        return _dataclass_json(self)


def card_names(deck: Deck, cards: tuple[int, ...]) -> Names:
    names = deck.names
    return tuple([names[c] if c >= 0 else None for c in cards])


def seen_event(event: Event, deck: Deck, viewer: int = SPECTATOR) -> SeenEvent:
    """``event`` as ``viewer`` may see it (a seat, ``SPECTATOR`` or ``EVERYONE``): the
    private cards only for the player who was shown them."""
    player = event.player
    private = event.private
    result = event.result
    return SeenEvent(
        type=event.kind,
        by=player if player >= 0 else None,
        slots=event.slots,
        target=event.target if event.target >= 0 else None,
        target_slot=event.target_slot if event.target_slot >= 0 else None,
        cards=card_names(deck, event.public) if event.public else (),
        seen=card_names(deck, private) if private and viewer in (player, EVERYONE) else (),
        round=event.round_no if event.kind is EventKind.ROUND_STARTED else None,
        draw_size=event.draw_size if event.draw_size >= 0 else None,
        result=Reveal.of(result, deck) if result is not None else None,
        winners=event.winners,
    )


def knowledge_of(game: State, seat: int) -> Mapping[str, str]:
    """What ``seat`` knows, by place, as card names."""
    names = game.deck.names
    return {place(o, s): names[c] for (o, s), c in game.knowledge(seat).items()}


def view(game: State, seat: int = SPECTATOR, *, knowledge: bool | None = None) -> View:
    """What ``seat`` may see now (``SPECTATOR`` for public information only).

    ``knowledge``: include what the seat knows by place; by default only where the ruleset has
    Recollection (a bot asks for it always, and then models its own forgetting).
    """
    names = game.deck.names
    rules = game.rules
    top = game.top_discard
    mine = seat >= 0
    holding = game.phase is HOLDING or game.phase is TAKEN
    # Everyone sees that a card is held; its face only when it came from the discard pile.
    held = (
        names[game.held]
        if holding and (game.held_from_discard or (mine and seat == game.turn))
        else None
    )
    deck = game.deck
    held_value = deck.values[game.held] if held is not None else None
    held_powers = deck.powers[game.held] if held is not None and not game.held_from_discard else ()
    shown: Mapping[str, str] = _NO_KNOWLEDGE
    if game.shown is not None and mine and game.shown[0] in (seat, EVERYONE):
        shown = {(place(o, s) if o != EMPTY else "held"): names[c] for o, s, c in game.shown[1]}
    wants = rules.recollection if knowledge is None else knowledge
    return View(
        seat=seat if mine else None,
        preset=rules.name,
        players=game.players,
        round=game.round_no,
        phase=game.phase,
        to_act=game.to_act,
        first=game.first,
        hands=tuple(tuple(c >= 0 for c in hand) for hand in game.hands),
        top_discard=names[top] if top >= 0 else None,
        discard_size=len(game.discard_pile),
        draw_size=len(game.draw_pile),
        caller=game.caller if game.caller >= 0 else None,
        final_turns_left=game.finals_left if game.caller >= 0 else None,
        totals=tuple(game.totals),
        peeked=tuple(game.peeked),
        sudden_death=game.sudden_seats(),
        holding=holding,
        held=held,
        held_value=held_value,
        held_powers=held_powers,
        powers=game.pending if mine and seat == game.turn else (),
        shown=shown,
        last_round=Reveal.of(game.history[-1], game.deck) if game.history else None,
        winners=game.winners if game.is_match_over else (),
        knowledge=knowledge_of(game, seat) if mine and wants else None,
    )


def observe(
    game: State,
    seat: int = SPECTATOR,
    events: Iterable[Event] = (),
    *,
    knowledge: bool | None = None,
) -> Observation:
    """Everything ``seat`` (``SPECTATOR``: a spectator) may know now.

    ``events``: what happened since the caller last observed (the events :meth:`Game.apply`
    returned), rendered for this seat.  ``knowledge``: as for :func:`view`.
    """
    deck = game.deck
    return Observation(
        seat=seat,
        view=view(game, seat, knowledge=knowledge),
        legal=legal_actions(game, seat) if seat >= 0 else (),
        sets=set_size(game, seat) if seat >= 0 else 0,
        events=tuple(seen_event(e, deck, seat) for e in events),
        rules=game.rules,
    )
