"""Test hooks: tables dealt the way a test says, for browser and end-to-end tests.

A server started with test hooks (``facedown serve --test-hooks`` or ``FACEDOWN_TEST_HOOKS=1``)
lets ``POST /api/tables`` choose the table's seed and stack the first deal of its first match.
Without them those fields are refused: on a real server nobody may know the deck order.

A stacked deal is stored as it was given, card names and all (in the table's settings, which
never reach a client, and in the log entry that starts the match), so a table rebuilt from its
log after a restart is dealt exactly the same cards.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..engine import Game, Ruleset, StackedDeal

DEAL = "deal"  # the settings key (and start-entry key) of a stacked deal


def stacked_deal(rules: Ruleset, players: int, spec: Mapping[str, Any]) -> StackedDeal:
    """The deal ``spec`` describes, checked against the table: ``hands`` (one list of card names
    per seat, ``hand_size`` cards each), ``discard`` (the first card of the discard pile),
    ``draw`` (the top of the draw pile, first drawn first) and ``first`` (the seat that starts).

    A name stands for the next physical card of that name not dealt yet.  Raises ValueError
    with a readable message when the deal does not fit the table.
    """
    hands_spec: Sequence[Sequence[object]] = spec.get("hands") or []
    if len(hands_spec) != players:
        raise ValueError(f"the deal gives {len(hands_spec)} hands for {players} seats")
    size = rules.hand_size
    for seat, hand in enumerate(hands_spec):
        if len(hand) != size:
            raise ValueError(f"the deal gives seat {seat} {len(hand)} cards, not {size}")
    first = spec.get("first")
    if first is not None and not (isinstance(first, int) and 0 <= first < players):
        raise ValueError(f"first player {first!r} is not a seat")
    return StackedDeal.from_names(
        rules.deck_cards, hands_spec, spec.get("discard"), spec.get("draw") or (), first
    )


def new_match(rules: Ruleset, players: int, seed: int, deal: Mapping[str, Any] | None) -> Game:
    """A match shuffled from ``seed``, its first round stacked when ``deal`` is given."""
    if deal is None:
        return Game(rules, players, seed)
    return Game(rules, players, seed, deal=stacked_deal(rules, players, deal))
