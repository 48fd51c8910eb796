"""A table's matches as its action log records them: how each is seeded, dealt and read back.

The server's table actor and the replays (:mod:`facedown.records.replay`) both rebuild a match from
the same log entries with these functions, so a replay is dealt exactly what was played.

Each match's seed is derived from the table's secret seed one way (SHA-256), so a finished
match's seed, which an exported replay carries, tells nothing about the table's other matches.
It is 128 bits wide (``seeding`` 3): from the cards a seat sees, a search of every possible seed
for the one that deals them is out of reach.  Start entries of ``seeding`` 2 took 48 bits of the
digest (a space a GPU searches in hours); those written before any one-way derivation (no
``seeding`` key) used ``seed * 1000 + match``.  Both are rebuilt as they were; the oldest are
never exported.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Protocol

from ..engine import Action, Game, Ruleset, StackedDeal

DEAL: Final = "deal"  # the settings key (and start-entry key) of a stacked deal
SEEDING: Final = "seeding"  # the start-entry key naming how the match seed was derived
ONE_WAY = 3  # its value for the one-way derivation of :func:`match_seed` (128 bits)
NARROW = 2  # its value for the earlier one-way derivation (48 bits: :func:`narrow_match_seed`)
MATCH_SEED_BYTES = 16  # 128 bits of the digest
TABLE_SEED_BITS = 128  # a table's secret seed: this many bits of the system's randomness


def new_table_seed() -> int:
    """A new table's secret seed, drawn from the operating system's randomness."""
    return secrets.randbits(TABLE_SEED_BITS)


def _digest(seed: int, match_no: int) -> bytes:
    return hashlib.sha256(f"facedown-match:{seed}:{match_no}".encode()).digest()


def match_seed(seed: int, match_no: int) -> int:
    """The seed of a table's match ``match_no``: one way from the table's secret ``seed``, 128
    bits wide."""
    return int.from_bytes(_digest(seed, match_no)[:MATCH_SEED_BYTES], "big")


def narrow_match_seed(seed: int, match_no: int) -> int:
    """How match seeds were derived by start entries of ``seeding`` 2: 48 bits of the digest."""
    return int.from_bytes(_digest(seed, match_no)[:6], "big")


def legacy_match_seed(seed: int, match_no: int) -> int:
    """How match seeds were derived before :func:`match_seed` (it gives the table's seed away)."""
    return seed * 1_000 + match_no


def start_seed(seed: int, payload: Mapping[str, Any]) -> int:
    """The seed of the match a start entry began."""
    match_no = int(payload["match"])
    seeding = payload.get(SEEDING)
    if seeding == ONE_WAY:
        return match_seed(seed, match_no)
    if seeding == NARROW:
        return narrow_match_seed(seed, match_no)
    return legacy_match_seed(seed, match_no)


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


@dataclass(frozen=True)
class MatchLog:
    """One match of a table: what it takes to play it again, action by action.

    ``seed`` is the match's own seed (never the table's); ``exportable`` says whether it may
    leave the server (False for a match seeded the old way, whose seed gives the table's away).
    """

    table_id: str
    match_no: int
    rules: Ruleset
    players: int
    seed: int
    deal: Mapping[str, Any] | None
    actions: tuple[Action, ...]
    names: tuple[str, ...] = ()
    exportable: bool = True

    @property
    def match_id(self) -> str:
        return f"{self.table_id}/{self.match_no}"

    def game(self) -> Game:
        """The match as it was dealt, before its first action."""
        return new_match(self.rules, self.players, self.seed, self.deal)


class Logged(Protocol):
    """A log entry as the store returns it (:class:`facedown.store.LogEntry`)."""

    @property
    def seq(self) -> int: ...
    @property
    def kind(self) -> str: ...
    @property
    def payload(self) -> Mapping[str, Any]: ...


def split_log(
    table_id: str,
    rules: Ruleset,
    table_seed: int,
    entries: Iterable[Logged],
    names: Sequence[str] = (),
) -> list[MatchLog]:
    """Every match in a table's log, in order .  Entries of other kinds are skipped."""
    matches: list[MatchLog] = []
    actions: list[Action] = []
    current: MatchLog | None = None

    def close() -> None:
        if current is not None:
            matches.append(_with_actions(current, actions))

    for entry in entries:
        payload = entry.payload
        if entry.kind == "start":
            close()
            actions = []
            current = MatchLog(
                table_id=table_id,
                match_no=int(payload["match"]),
                rules=rules,
                players=int(payload["players"]),
                seed=start_seed(table_seed, payload),
                deal=payload.get(DEAL),
                actions=(),
                names=tuple(names),
                exportable=payload.get(SEEDING) in (ONE_WAY, NARROW),
            )
        elif entry.kind == "action":
            if current is None:
                raise ValueError(f"log entry {entry.seq}: an action before the match started")
            actions.append(Action.from_json(payload["action"]))
    close()
    return matches


def _with_actions(match: MatchLog, actions: list[Action]) -> MatchLog:
    return MatchLog(
        table_id=match.table_id,
        match_no=match.match_no,
        rules=match.rules,
        players=match.players,
        seed=match.seed,
        deal=match.deal,
        actions=tuple(actions),
        names=match.names,
        exportable=match.exportable,
    )
