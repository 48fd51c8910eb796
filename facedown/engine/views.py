"""Per-seat views: the one function that decides what a seat may see.

A view holds public information (hand sizes, the top discard, pile sizes, whose turn, the call,
totals), what this seat is being shown right now (a drawn card, a peeked or spied card, a card shown
to everyone), and, when the ruleset has Recollection, what this seat has legitimately learned.
It never holds a card the seat does not know, and never the order of the draw pile.
"""

from __future__ import annotations

from typing import Any

from .events import EVERYONE, SPECTATOR
from .game import EMPTY, HOLDING, PHASES, TAKEN, Game


def place(owner: int, slot: int) -> str:
    """The text form of a place on the table: ``"owner:slot"``."""
    return f"{owner}:{slot}"


def knowledge_json(game: Game, seat: int) -> dict[str, str]:
    """What ``seat`` knows, by place, as card names."""
    names = game.deck.names
    return {place(o, s): names[c] for (o, s), c in game.knowledge(seat).items()}


def view(game: Game, seat: int = SPECTATOR, *, recollection: bool | None = None) -> dict[str, Any]:
    """What ``seat`` may see now (``SPECTATOR`` for public information only)."""
    names = game.deck.names
    rules = game.rules
    top = game.top_discard
    out: dict[str, Any] = {
        "seat": seat if seat >= 0 else None,
        "preset": rules.name,
        "players": game.players,
        "round": game.round_no,
        "phase": PHASES[game.phase],
        "to_act": game.to_act,
        "first": game.first,
        "hands": [[c >= 0 for c in hand] for hand in game.hands],
        "top_discard": names[top] if top >= 0 else None,
        "discard_size": len(game.discard_pile),
        "draw_size": len(game.draw_pile),
        "caller": game.caller if game.caller >= 0 else None,
        "final_turns_left": game.finals_left if game.caller >= 0 else None,
        "totals": list(game.totals),
        "peeked": list(game.peeked),
    }
    if game.phase in (HOLDING, TAKEN):
        # Everyone sees that a card is held; its face only when it came from the discard pile.
        out["held"] = names[game.held] if game.held_from_discard or seat == game.turn else None
    if seat >= 0 and seat == game.turn and game.pending:
        out["powers"] = list(game.pending)
    shown = game.shown
    if shown is not None and seat >= 0 and shown[0] in (seat, EVERYONE):
        out["shown"] = {(place(o, s) if o != EMPTY else "held"): names[c] for o, s, c in shown[1]}
    if game.history:
        out["last_round"] = game.history[-1].to_json(game.deck)
    if game.is_match_over:
        out["winners"] = list(game.winners)
    if seat >= 0 and (rules.recollection if recollection is None else recollection):
        out["knowledge"] = knowledge_json(game, seat)
    return out
