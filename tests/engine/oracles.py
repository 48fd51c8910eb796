"""Independent oracles for the property tests, written from the rule texts, not from the engine.

- :class:`KnowledgeOracle` follows what each seat has legitimately learned, by place (owner, slot),
  fed only by the event stream rendered for ``EVERYONE``.
- :func:`card_value`, :func:`round_scores` and :class:`MatchOracle` score rounds and matches as the
  rules of each preset say (``docs/rules/``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

Place = tuple[int, int]

# -------------------------------------------------------------------------------- knowledge


class KnowledgeOracle:
    """Per seat, the card names it knows at each place of a hand, from public and own events."""

    def __init__(self, players: int, hand_size: int) -> None:
        self.players = players
        self.hand_size = hand_size
        self.occupied: list[set[int]] = []
        self.known: list[dict[Place, str]] = []
        self.held: str | None = None
        self.held_by: set[int] = set()
        self.caller: int | None = None
        self.reset()

    def reset(self) -> None:
        """A new deal: every slot of every hand is full and unknown to all."""
        self.occupied = [set(range(self.hand_size)) for _ in range(self.players)]
        self.known = [{} for _ in range(self.players)]
        self.held = None
        self.held_by = set()
        self.caller = None

    def sit_out(self, seats: Sequence[int]) -> None:
        """A sudden-death round was dealt to the tied alone: these seats hold no cards (which
        seats play it is public: every view names them)."""
        for seat in seats:
            self.occupied[seat] = set()

    # -- helpers
    def _learn(self, seats: Sequence[int], place: Place, name: str) -> None:
        assert place[1] in self.occupied[place[0]], f"{place} holds no card"
        for seat in seats:
            self.known[seat][place] = name

    def _forget_place(self, place: Place) -> None:
        for k in self.known:
            k.pop(place, None)

    def _everyone(self) -> list[int]:
        return list(range(self.players))

    def _hold(self, name: str, seats: set[int]) -> None:
        assert self.held is None, "a second card held at once"
        self.held = name
        self.held_by = seats

    def _release(self) -> None:
        assert self.held is not None, "no card is held"
        self.held = None
        self.held_by = set()

    # -- the event stream
    def feed(self, event: Mapping[str, Any]) -> None:  # noqa: C901 - flat dispatch on the event kind
        kind = event["type"]
        by = event.get("by", -1)
        slots: list[int] = event.get("slots", [])
        seen: list[str] = event.get("seen", [])
        cards: list[str] = event.get("cards", [])
        if kind == "round_started":
            self.reset()
        elif kind == "opening_peeked":
            assert len(seen) == len(slots)
            for slot, name in zip(slots, seen, strict=True):
                self._learn([by], (by, slot), name)
        elif kind == "drew":
            # A draw from the deck is private: only the drawer learns the card.
            self._hold(seen[0], {by})
        elif kind == "took_discard":
            # A card taken from the discard pile is public.
            self._hold(cards[0], set(self._everyone()))
        elif kind == "undid":
            self._release()
        elif kind == "replaced":
            self._replaced(by, slots, seen)
        elif kind == "set_failed":
            # A failed set is shown to all; the cards go back where they were.
            for slot, name in zip(slots, cards, strict=True):
                self._learn(self._everyone(), (by, slot), name)
        elif kind == "kept":
            # keep_taken: the held card joins the hand in a new slot.
            assert self.held is not None
            slot = slots[0]
            assert slot not in self.occupied[by]
            self.occupied[by].add(slot)
            self._forget_place((by, slot))
            name = cards[0] if cards else seen[0]
            assert name == self.held
            self._learn(sorted(self.held_by), (by, slot), name)
            self._release()
        elif kind == "discarded":
            self._release()
        elif kind == "peeked":
            self._learn([by], (by, slots[0]), seen[0])
        elif kind == "spied":
            self._learn([by], (event["target"], event["target_slot"]), seen[0])
        elif kind == "swapped":
            # A blind swap is seen by all: a known card is known where it moves to.
            a: Place = (by, slots[0])
            b: Place = (event["target"], event["target_slot"])
            for k in self.known:
                ka, kb = k.pop(a, None), k.pop(b, None)
                if ka is not None:
                    k[b] = ka
                if kb is not None:
                    k[a] = kb
        elif kind == "tap_hit":
            self._forget_place((by, slots[0]))
            self.occupied[by].discard(slots[0])
        elif kind == "tap_missed":
            # The missed card is shown to all and stays.
            self._learn(self._everyone(), (by, slots[0]), cards[0])
        elif kind == "penalty":
            # An unseen penalty card: nobody knows it.
            slot = slots[0]
            assert slot not in self.occupied[by]
            self.occupied[by].add(slot)
            self._forget_place((by, slot))
        elif kind == "called":
            assert self.caller is None, "a second call in one round"
            self.caller = by
        elif kind in (
            "play_started",
            "turn_started",
            "skipped",
            "passed",
            "reshuffled",  # only pile cards are recycled; nothing known in a hand changes
            "round_over",
            "match_over",
        ):
            pass
        else:
            raise AssertionError(f"unknown event {kind!r}")

    def _replaced(self, by: int, slots: list[int], seen: list[str]) -> None:
        assert self.held is not None
        if seen:
            assert seen == [self.held]
        for slot in slots:
            assert slot in self.occupied[by]
            self._forget_place((by, slot))
        for slot in slots[1:]:
            self.occupied[by].discard(slot)
        # The held card lies in the lowest slot of the set, known to whoever knew it held.
        self._learn(sorted(self.held_by), (by, min(slots)), self.held)
        self._release()


# -------------------------------------------------------------------------------- scoring


def card_value(preset: str, name: str) -> int:
    """A card's value: face value on the 0-13 deck; Boyo: red K -2, Joker -1, A 1, J 11, Q 12."""
    if preset != "boyo":
        return int(name)
    if name == "JK":
        return -1
    rank, suit = name[:-1], name[-1]
    if rank == "K":
        return -2 if suit in ("H", "D") else 13
    return {"A": 1, "J": 11, "Q": 12}.get(rank) or int(rank)


def _moon(hand: Sequence[str]) -> bool:
    return hand.count("12") >= 2 and hand.count("13") >= 2


def round_scores(preset: str, hands: Sequence[Sequence[str]], caller: int | None) -> list[int]:  # noqa: C901 - each preset's text, spelled out
    """One round's scores from the revealed hands, as each preset's text states them."""
    n = len(hands)
    totals = [sum(card_value(preset, c) for c in hand) for hand in hands]
    if preset in ("cabo", "kaboom"):
        # Shooting the Moon / Harakiri: that player 0, everyone else 50, whoever called.
        moon = [p for p in range(n) if _moon(hands[p])]
        if moon:
            return [0 if p in moon else 50 for p in range(n)]
    lowest = min(totals)
    if preset == "boyo":
        return totals
    if preset == "cabo":
        tied = [p for p in range(n) if totals[p] == lowest]
        if caller is not None and caller in tied:
            # The caller among the tied scores 0; the others tied score their total.
            return [0 if p == caller else totals[p] for p in range(n)]
        scores = [0 if p in tied else totals[p] for p in range(n)]
        if caller is not None:
            scores[caller] = totals[caller] + 5
        return scores
    if preset == "kivo":
        scores = list(totals)
        if caller is not None and totals[caller] > lowest:
            scores[caller] += 10
        return scores
    if preset == "kaboom":
        scores = list(totals)
        if caller is not None:
            others = min(totals[p] for p in range(n) if p != caller)
            scores[caller] = 0 if totals[caller] < others else 2 * totals[caller]
        return scores
    raise AssertionError(f"no scoring for {preset!r}")


class MatchOracle:
    """Match totals, the 100 rule, the end of the match and who starts, from the texts."""

    def __init__(
        self,
        preset: str,
        players: int,
        rounds: int | None,
        sudden_death: bool,
        first_player: str,
    ) -> None:
        self.preset = preset
        self.players = players
        self.rounds = rounds
        self.sudden_death = sudden_death
        self.first_player = first_player
        self.totals = [0] * players
        self.hundred_used = [False] * players
        self.rounds_played = 0
        self.sudden_death_played = False
        self.tied: list[int] = []  # who plays the sudden-death round: the tied alone
        self.last_scores: list[int] = []

    def score_round(self, hands: Sequence[Sequence[str]], caller: int | None) -> list[int]:
        if self.sudden_death_played:
            # The sudden-death round is scored among the tied as if they were the whole table;
            # the others score nothing (docs/rules/README.md).
            tied = self.tied
            mine = round_scores(
                self.preset,
                [hands[p] for p in tied],
                tied.index(caller) if caller in tied else None,
            )
            scores = [0] * self.players
            for i, p in enumerate(tied):
                scores[p] = mine[i]
        else:
            scores = round_scores(self.preset, hands, caller)
        self.last_scores = scores
        self.rounds_played += 1
        for p in range(self.players):
            total = self.totals[p] + scores[p]
            if total == 100 and self.preset == "kaboom":
                total = 50  # "wird seine Punktzahl auf 50 halbiert" (no limit stated)
            elif total == 100 and self.preset == "cabo" and not self.hundred_used[p]:
                total = 50  # "only be used once per player per game"
                self.hundred_used[p] = True
            self.totals[p] = total
        return scores

    def winners(self) -> list[int] | None:
        """The winners (ties share) when the match is over, else None."""
        if self.sudden_death_played:  # the sudden-death round is over: the lowest of the tied
            low = min(self.totals[p] for p in self.tied)
            return [p for p in self.tied if self.totals[p] == low]
        lowest = min(self.totals)
        leaders = [p for p, t in enumerate(self.totals) if t == lowest]
        if self.preset in ("cabo", "kaboom") and max(self.totals) > 100:
            return leaders
        if self.rounds is not None and self.rounds_played >= self.rounds:
            if self.sudden_death and len(leaders) > 1 and not self.sudden_death_played:
                self.sudden_death_played = True
                self.tied = leaders
                return None
            return leaders
        return None

    def next_first(self, first: int) -> int:
        """Who starts the next round: the next seat, or the last round's winner; a
        sudden-death round starts with the first of the tied from that seat on."""
        if self.first_player == "rotate":
            starter = (first + 1) % self.players
        else:
            order = [(first + i) % self.players for i in range(self.players)]
            starter = min(order, key=lambda p: self.last_scores[p])
        if self.sudden_death_played:
            while starter not in self.tied:
                starter = (starter + 1) % self.players
        return starter
