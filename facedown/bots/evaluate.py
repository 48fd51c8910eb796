"""What each option is worth to a bot, in points off its expected hand total.

Worths are relative to doing nothing: replacing a card is worth the expected value that leaves
minus the value that comes in; a swap also counts what the opponent gains; looking at a card is
worth a fixed amount while the round goes on and nothing in its final turn.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from itertools import groupby

from ..engine import Ruleset
from ..engine import actions as A
from .belief import Belief
from .memory import Place
from .profiles import Profile

MAX_SET = 4


@dataclass(frozen=True)
class Replace:
    """Replacing ``slots`` (one, or a set of equal cards) with a card, worth ``gain``."""

    gain: float
    slots: tuple[int, ...]


@dataclass(frozen=True)
class Swap:
    """Swapping own ``slot`` with ``target``'s ``target_slot``, worth ``gain``."""

    gain: float
    slot: int
    target: int
    target_slot: int


class Evaluator:
    """Worths of a seat's options, from its belief."""

    def __init__(self, belief: Belief, rules: Ruleset, profile: Profile) -> None:
        self.belief = belief
        self.rules = rules
        self.profile = profile
        self.final = belief.caller is not None  # our last turn: only the hand total counts
        mine = belief.mine()
        self._singles = [
            (belief.est(p), p[1], not belief.is_known(p)) for p in mine
        ]  # (worth, slot, unknown)
        # The best known set of each rank: (total value, slots).
        self.sets = self._known_sets(mine) if rules.set_replace else []
        self._swap: Swap | None = None
        self._swap_done = False

    # ------------------------------------------------------------------ replacing
    def _known_sets(self, mine: list[Place]) -> list[tuple[float, tuple[int, ...]]]:
        """The best set of each rank among the own cards the bot knows (2 to 4 cards)."""
        b = self.belief
        known = sorted(
            ((b.book.ranks[b.known[p]], b.value(b.known[p]), p[1]) for p in mine if b.is_known(p)),
            key=lambda t: (t[0], -t[1]),
        )
        out = []
        for _, group in groupby(known, key=lambda t: t[0]):
            cards = list(group)[:MAX_SET]
            best: tuple[float, tuple[int, ...]] | None = None
            total = 0.0
            for k, (_, value, _) in enumerate(cards, 1):
                total += value
                if k >= 2 and (best is None or total > best[0]):
                    best = (total, tuple(sorted(s for _, _, s in cards[:k])))
            if best is not None:
                out.append(best)
        return out

    def best_replace(self, value: float) -> Replace | None:
        """The best own slot (or known set) to replace with a card of ``value``."""
        bonus = 0.0 if self.final else self.profile.know_bonus
        best: Replace | None = None
        for worth, slot, unknown in self._singles:
            gain = worth - value + (bonus if unknown else 0.0)
            if best is None or gain > best.gain:
                best = Replace(gain, (slot,))
        for total, slots in self.sets:
            gain = total - value
            if best is None or gain > best.gain:
                best = Replace(gain, slots)
        return best

    # ------------------------------------------------------------------ powers
    def best_swap(self) -> Swap | None:
        """The swap that lowers our total most against an opponent's (None: no gain)."""
        if self._swap_done:
            return self._swap
        b = self.belief
        relative = 1.0 + 1.0 / max(1, b.players - 1)
        mine = sorted(b.mine(), key=b.est, reverse=True)[:2]
        best: Swap | None = None
        for owner in b.others:
            for place in b.theirs(owner):
                theirs = b.est(place)
                for own in mine:
                    gain = (b.est(own) - theirs) * relative
                    if gain > 0 and (best is None or gain > best.gain):
                        best = Swap(gain, own[1], owner, place[1])
        self._swap, self._swap_done = best, True
        return best

    def power_worth(self, power: str) -> float:
        b = self.belief
        if power == A.SWAP:
            swap = self.best_swap()
            return swap.gain if swap is not None and swap.gain >= self.profile.swap_min else 0.0
        if self.final:
            return 0.0
        if power == A.PEEK:
            return self.profile.peek_value if b.unknown_mine() else 0.0
        if any(b.unknown_count(o) for o in b.others):  # spy
            return self.profile.spy_value
        return 0.0

    def powers_worth(self, powers: tuple[str, ...] | list[str]) -> float:
        return sum(self.power_worth(p) for p in powers)

    # ------------------------------------------------------------------ drawing
    def draw_worth(self, with_powers: bool = True) -> float:
        """Expected worth of drawing: the best of keeping, or discarding (with its powers)."""
        b = self.belief
        if not b.pool:
            return 0.0
        holding = self.rules.power_timing == "holding"
        total = 0.0
        for name, count in Counter(b.pool).items():
            keep = self.best_replace(b.value(name))
            keep_gain = keep.gain if keep is not None else 0.0
            powers = self.powers_worth(b.book.powers[name]) if with_powers else 0.0
            if holding:
                total += count * (max(keep_gain, 0.0) + powers)
            else:
                total += count * max(keep_gain, powers, 0.0)
        return total / len(b.pool)
