"""What a ruleset's cards are worth, by card name: the one table bots read values from.

Knowledge and views name cards (``"7"``, ``"KH"``); the deck (``rules.deck_cards``) is by card
id.  A :class:`CardBook` turns the deck into per-name tables once per ruleset.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from ..engine import Ruleset


@dataclass(frozen=True)
class CardBook:
    """Value, rank and powers of every card name of a deck, and how many of each it holds."""

    values: dict[str, int]
    ranks: dict[str, str]
    powers: dict[str, tuple[str, ...]]
    counts: Counter[str]
    mean: float

    def value(self, name: str) -> int:
        return self.values[name]


_BOOKS: dict[str, CardBook] = {}


def card_book(rules: Ruleset) -> CardBook:
    """The card book of ``rules`` (memoised by the ruleset's fingerprint)."""
    key = rules.fingerprint
    book = _BOOKS.get(key)
    if book is None:
        deck = rules.deck_cards
        values = dict(zip(deck.names, deck.values, strict=True))
        ranks = dict(zip(deck.names, deck.ranks, strict=True))
        powers = dict(zip(deck.names, deck.powers, strict=True))
        book = CardBook(
            values, ranks, powers, Counter(deck.names), sum(deck.values) / len(deck.values)
        )
        _BOOKS[key] = book
    return book
