"""The observer's JSON forms, made directly: what the server sends every seat after every action.

The server sends a fresh view to every seat after every action.  It builds their JSON forms
here, without the :class:`~.observer.View`, :class:`~.observer.SeenEvent` and
:class:`~.observer.Observation` values in between, and the parts of a view that are the same for
every seat once per state (:func:`public_json`).  The decisions are those of
:func:`~.observer.view` and :func:`~.observer.seen_event`, made the same way:
tests/engine/test_observer_json.py checks ``observe_json(...) == observe(...).to_json()`` for
every seat over random games.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .cards import Deck
from .events import EVERYONE, SPECTATOR, Event, EventKind
from .legality import legal_actions, set_size
from .observer import card_names, knowledge_of, place, reveal_json
from .phases import HOLDING, TAKEN
from .state import EMPTY, State


def public_json(game: State) -> dict[str, Any]:
    """The parts of every seat's view (and a spectator's) that do not depend on the seat, in
    their JSON form: one for all the views of a state (see :func:`observe_json`)."""
    names = game.deck.names
    top = game.top_discard
    caller = game.caller
    history = game.history
    return {
        "preset": game.rules.name,
        "players": game.players,
        "round": game.round_no,
        "phase": game.phase,
        "to_act": game.to_act,
        "first": game.first,
        "hands": [[c >= 0 for c in hand] for hand in game.hands],
        "top_discard": names[top] if top >= 0 else None,
        "discard_size": len(game.discard_pile),
        "draw_size": len(game.draw_pile),
        "caller": caller if caller >= 0 else None,
        "final_turns_left": game.finals_left if caller >= 0 else None,
        "totals": list(game.totals),
        "peeked": list(game.peeked),
        "sudden_death": list(game.sudden_seats()),
        "holding": game.phase is HOLDING or game.phase is TAKEN,
        "last_round": reveal_json(history[-1], game.deck) if history else None,
        "winners": list(game.winners) if game.is_match_over else [],
    }


def _shown_json(names: tuple[str, ...], cards: Iterable[tuple[int, int, int]]) -> dict[str, str]:
    return {(place(o, s) if o != EMPTY else "held"): names[c] for o, s, c in cards}


def view_json(
    game: State,
    seat: int = SPECTATOR,
    *,
    knowledge: bool | None = None,
    public: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """``view(game, seat, knowledge=knowledge).to_json()``, made directly; ``public`` is
    :func:`public_json` of ``game`` when the caller has it."""
    if public is None:
        public = public_json(game)
    deck = game.deck
    names = deck.names
    mine = seat >= 0
    turn = mine and seat == game.turn
    held: str | None = None
    held_value: int | None = None
    held_powers: list[str] = []
    # Everyone sees that a card is held; its face only when it came from the discard pile.
    if public["holding"] and (game.held_from_discard or turn):
        card = game.held
        held = names[card]
        held_value = deck.values[card]
        if not game.held_from_discard:
            held_powers = list(deck.powers[card])
    shown = game.shown
    wants = game.rules.recollection if knowledge is None else knowledge
    return {
        "seat": seat if mine else None,
        "preset": public["preset"],
        "players": public["players"],
        "round": public["round"],
        "phase": public["phase"],
        "to_act": public["to_act"],
        "first": public["first"],
        "hands": public["hands"],
        "top_discard": public["top_discard"],
        "discard_size": public["discard_size"],
        "draw_size": public["draw_size"],
        "caller": public["caller"],
        "final_turns_left": public["final_turns_left"],
        "totals": public["totals"],
        "peeked": public["peeked"],
        "sudden_death": public["sudden_death"],
        "holding": public["holding"],
        "held": held,
        "held_value": held_value,
        "held_powers": held_powers,
        "powers": list(game.pending) if turn else [],
        "shown": (
            _shown_json(names, shown[1])
            if shown is not None and mine and shown[0] in (seat, EVERYONE)
            else {}
        ),
        "last_round": public["last_round"],
        "winners": public["winners"],
        "knowledge": dict(knowledge_of(game, seat)) if mine and wants else None,
    }


def _event_places(event: Event) -> dict[str, Any]:
    """An event's kind, and who and which places it names (no card)."""
    out: dict[str, Any] = {"type": event.kind}
    if event.player >= 0:
        out["by"] = event.player
    if event.slots:
        out["slots"] = list(event.slots)
    if event.target >= 0:
        out["target"] = event.target
    if event.target_slot >= 0:
        out["target_slot"] = event.target_slot
    return out


def seen_event_json(event: Event, deck: Deck, viewer: int = SPECTATOR) -> dict[str, Any]:
    """``seen_event(event, deck, viewer).to_json()``, made directly: the fields that apply,
    the private cards only for the player who was shown them."""
    kind = event.kind
    player = event.player
    out = _event_places(event)
    if event.public:
        out["cards"] = list(card_names(deck, event.public))
    if event.private and viewer in (player, EVERYONE):
        out["seen"] = list(card_names(deck, event.private))
    if kind is EventKind.ROUND_STARTED:
        out["round"] = event.round_no
    if event.draw_size >= 0:
        out["draw_size"] = event.draw_size
    if event.result is not None:
        out["result"] = reveal_json(event.result, deck)
    if event.winners:
        out["winners"] = list(event.winners)
    return out


def observe_json(
    game: State,
    seat: int = SPECTATOR,
    events: Iterable[Event] = (),
    *,
    knowledge: bool | None = None,
    public: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """``observe(game, seat, events, knowledge=knowledge).to_json()``, made directly (the
    view, the legal actions, the set size, the events as ``seat`` sees them); ``public`` as
    for :func:`view_json`."""
    mine = seat >= 0
    return {
        "view": view_json(game, seat, knowledge=knowledge, public=public),
        "legal": [a.to_json() for a in legal_actions(game, seat)] if mine else [],
        "sets": set_size(game, seat) if mine else 0,
        "events": _events_json(events, game.deck, seat),
    }


def _events_json(events: Iterable[Event], deck: Deck, viewer: int) -> list[dict[str, Any]]:
    # A helper of its own: a comprehension in observe_json would make its locals cells.
    return [seen_event_json(e, deck, viewer) for e in events]
