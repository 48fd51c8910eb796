"""Snapshots: the complete state as plain data, and back (server recovery, search from a sample).

A snapshot holds the deck order: it is for the server's eyes only, never for a player.
"""

from __future__ import annotations

from typing import Any, TypeVar

from .deal import new_rng
from .interning import tables_for
from .phases import PLAY_PHASES, Phase
from .results import RoundResult
from .rules import Ruleset
from .state import NO_LIMIT, State

S = TypeVar("S", bound=State)


def snapshot(g: State) -> dict[str, Any]:
    """Every field of ``g`` as plain data."""
    return {
        "rules": g.rules.to_json(),
        "players": g.players,
        "seed": g.seed,
        "round": g.round_no,
        "first": g.first,
        "phase": g.phase.value,
        "turn": g.turn,
        "hands": [list(h) for h in g.hands],
        "draw_pile": list(g.draw_pile),
        "discard_pile": list(g.discard_pile),
        "held": g.held,
        "held_from_discard": g.held_from_discard,
        "pending": list(g.pending),
        "caller": g.caller,
        "finals_left": g.finals_left,
        "passes": g.passes,
        "peeked": list(g.peeked),
        "known": list(g.known),
        "public": g.public,
        "reshuffles": g.reshuffles,
        "round_actions": g.round_actions,
        "totals": list(g.totals),
        "hundred_used": list(g.hundred_used),
        "history": [r.to_data() for r in g.history],
        "winners": list(g.winners),
        "sudden_death_played": g.sudden_death_played,
    }


def restore(cls: type[S], data: dict[str, Any]) -> S:
    """A state of class ``cls`` rebuilt from :func:`snapshot` output.

    Raises ValueError when the snapshot does not hold every card of the deck exactly once.
    """
    rules = Ruleset.from_json(data["rules"])
    g = cls.__new__(cls)
    g.rules = rules
    g.deck = rules.deck_cards
    g.players = players = int(data["players"])
    g.seed = int(data["seed"])
    g.round_no = int(data["round"])
    g.first = int(data["first"])
    g.phase = Phase(data["phase"])
    g.is_match_over = g.phase is Phase.MATCH_OVER
    g.turn = int(data["turn"])
    g.hands = [list(h) for h in data["hands"]]
    g.occ = [tuple(s for s, c in enumerate(h) if c >= 0) for h in g.hands]
    g.draw_pile = list(data["draw_pile"])
    g.discard_pile = list(data["discard_pile"])
    g.held = int(data["held"])
    g.held_from_discard = bool(data["held_from_discard"])
    g.pending = tuple(data["pending"])
    g.caller = int(data["caller"])
    g.finals_left = int(data["finals_left"])
    g.passes = int(data["passes"])
    g.peeked = [bool(x) for x in data["peeked"]]
    g.known = [int(x) for x in data["known"]]
    g.public = int(data["public"])
    g.reshuffles = int(data["reshuffles"])
    g.totals = [int(x) for x in data["totals"]]
    g.hundred_used = [bool(x) for x in data["hundred_used"]]
    g.history = [RoundResult.from_data(r) for r in data["history"]]
    g.winners = tuple(data["winners"])
    g.sudden_death_played = bool(data["sudden_death_played"])
    g._showing = None
    g.version = 0
    counted = int(data.get("round_actions", 0))  # 0: a snapshot from before the bound
    if g.phase in PLAY_PHASES:
        g.begin_play()
        g._play_from -= counted  # as if its actions had been made before this version
        g._limit_at -= counted
    else:
        g._play_from = -counted  # the count stays as it is (State.round_actions)
        g._limit_at = NO_LIMIT
    g._tables = tables_for(players, rules)
    g._legal_cache = {}
    g._rng = new_rng()
    g._events = []
    cards = sorted(
        [c for h in g.hands for c in h if c >= 0]
        + g.draw_pile
        + g.discard_pile
        + ([g.held] if g.held >= 0 else [])
    )
    if cards != list(range(len(g.deck))):
        raise ValueError("a snapshot must hold every card of the deck exactly once")
    return g
