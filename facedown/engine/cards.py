"""Cards and decks.

A card is an ``int`` id into a :class:`Deck`: the deck knows each card's name (its canonical text
form), its rank, its value and the powers it gives.  Ids make the engine's hot path cheap and let
knowledge follow a physical card wherever it is moved.

Names: the 0-13 deck uses ``"0"`` to ``"13"``; standard decks use rank then suit (``"8S"``,
``"10H"``, ``"KD"``) and ``"JK"`` for a Joker.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS = ("S", "H", "D", "C")
JOKER = "JK"
ZERO_TO_THIRTEEN_COUNTS = {0: 2, **{v: 4 for v in range(1, 13)}, 13: 2}


def zero_to_thirteen_names() -> list[str]:
    """The commercial 0-13 deck: two 0s, four each of 1 to 12, two 13s (52 cards)."""
    return [str(v) for v, n in ZERO_TO_THIRTEEN_COUNTS.items() for _ in range(n)]


def standard_names(decks: int, jokers: bool) -> list[str]:
    """One or more 52-card decks, with two Jokers per deck when ``jokers`` is set."""
    one = [rank + suit for suit in SUITS for rank in RANKS]
    if jokers:
        one += [JOKER, JOKER]
    return one * decks


def rank_of(name: str) -> str:
    """The rank of a card name: the suit letter is dropped from standard cards."""
    if len(name) > 1 and name[-1] in SUITS and name[:-1] in RANKS:
        return name[:-1]
    return name


def lookup(table: Mapping[str, object], name: str) -> object | None:
    """Find a card's entry in a ruleset table: by exact name first, then by rank."""
    if name in table:
        return table[name]
    return table.get(rank_of(name))


@dataclass(frozen=True, slots=True)
class Deck:
    """Every physical card of a deck, by id, with its rank, value and powers."""

    names: tuple[str, ...]
    ranks: tuple[str, ...]
    values: tuple[int, ...]
    powers: tuple[tuple[str, ...], ...]

    @classmethod
    def build(
        cls,
        names: Sequence[str],
        values: Mapping[str, int],
        powers: Mapping[str, Sequence[str]],
    ) -> Deck:
        card_values = []
        card_powers = []
        for name in names:
            value = lookup(values, name)
            if not isinstance(value, int):
                raise ValueError(f"no value for card {name!r}")
            card_values.append(value)
            found = lookup(powers, name)
            card_powers.append(tuple(found) if isinstance(found, (list, tuple)) else ())
        return cls(
            tuple(names), tuple(rank_of(n) for n in names), tuple(card_values), tuple(card_powers)
        )

    def __len__(self) -> int:
        return len(self.names)

    def ids_by_name(self) -> dict[str, list[int]]:
        """Card ids grouped by name, in id order (a name can stand for several physical cards)."""
        out: dict[str, list[int]] = {}
        for cid, name in enumerate(self.names):
            out.setdefault(name, []).append(cid)
        return out
