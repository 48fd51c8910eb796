"""The paper scoreboard: rounds played with real cards, scored by the engine's own rules.

A paper round is what the players read off the table at the reveal: each hand's total, who
called, and who (if anyone) shot the moon (two 12s and two 13s: one tap, no cards to type).
:func:`tally` scores a whole evening from its rounds with :func:`~.scoring.score_totals` and
:func:`~.scoring.match_end`, the same functions that score the engine's own rounds, so a preset's
scoreboard can never drift from its digital table.

A board scores either by the preset's totals (lowest total wins, the match ends as the preset
says) or by placement points: each round the players are placed by their round score under the
preset's rules (lowest is 1st; a tie shares the better place, the next place is skipped),
place k earns ``points[k - 1]``, the match is a fixed number of rounds and the most points win.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .rules import Ruleset
from .scoring import match_end, score_among, score_totals
from .state import MAX_PLAYERS, MIN_PLAYERS

MAX_HAND_TOTAL = 999  # a hand total's size at most (either sign): no paper hand comes near it
MAX_PLACE_POINTS = 1000  # a place's points at most (either sign)
MAX_PLACEMENT_ROUNDS = 100


class TallyError(ValueError):
    """A paper round or a placement does not fit the board; the message says what and why."""


@dataclass(frozen=True)
class PaperRound:
    """One round as entered: each hand's total, the caller and the moon (-1: nobody)."""

    hand_totals: tuple[int, ...]
    caller: int = -1
    moon: int = -1


@dataclass(frozen=True)
class Placement:
    """Placement points: ``points[k]`` for place k + 1, over a fixed number of rounds."""

    points: tuple[int, ...]
    rounds: int


@dataclass(frozen=True)
class ScoredRound:
    """A paper round with its scores: ``round_scores`` as the preset scores the round,
    ``places`` (placement boards only, 1 is first), ``points`` what the round adds to each
    total, ``totals`` the totals after it (the 100 rule applied), and each player's reasons."""

    number: int
    paper: PaperRound
    round_scores: tuple[int, ...]
    places: tuple[int, ...] | None
    points: tuple[int, ...]
    totals: tuple[int, ...]
    reasons: tuple[tuple[str, ...], ...]
    sudden_death: bool


@dataclass(frozen=True)
class Tally:
    """A board scored: every round, the totals, and whether (and by whom) the match is won."""

    players: int
    rounds: tuple[ScoredRound, ...]
    totals: tuple[int, ...]
    over: bool
    winners: tuple[int, ...]  # empty while the match goes on; several share a tie
    next_sudden_death: bool  # the next round is the sudden-death round of a tie


def check_placement(placement: Placement, players: int) -> None:
    """Raise :class:`TallyError` unless ``placement`` fits a board of ``players``."""
    if len(placement.points) != players:
        raise TallyError(f"placement needs points for each of the {players} places")
    if any(abs(p) > MAX_PLACE_POINTS for p in placement.points):
        raise TallyError(
            f"a place's points must be between -{MAX_PLACE_POINTS} and {MAX_PLACE_POINTS}"
        )
    if not 1 <= placement.rounds <= MAX_PLACEMENT_ROUNDS:
        raise TallyError(f"placement rounds must be between 1 and {MAX_PLACEMENT_ROUNDS}")


def check_round(rules: Ruleset, players: int, paper: PaperRound) -> None:
    """Raise :class:`TallyError` unless ``paper`` is a round a board of ``players`` can score."""
    if len(paper.hand_totals) != players:
        raise TallyError(f"a round needs a hand total for each of the {players} players")
    if any(abs(t) > MAX_HAND_TOTAL for t in paper.hand_totals):
        raise TallyError(f"a hand total must be between -{MAX_HAND_TOTAL} and {MAX_HAND_TOTAL}")
    if not -1 <= paper.caller < players:
        raise TallyError(f"the caller must be a player (0 to {players - 1}) or -1 for nobody")
    if not -1 <= paper.moon < players:
        raise TallyError(f"the moon must be a player (0 to {players - 1}) or -1 for nobody")
    if paper.moon >= 0 and not rules.shoot_the_moon:
        raise TallyError(f"{rules.name} has no shooting the moon")


def places(scores: Sequence[int]) -> tuple[int, ...]:
    """Each player's place by round score, lowest first; a tie shares the better place."""
    return tuple(1 + sum(1 for other in scores if other < s) for s in scores)


def tally(
    rules: Ruleset,
    players: int,
    rounds: Sequence[PaperRound],
    placement: Placement | None = None,
) -> Tally:
    """Score ``rounds`` in order under ``rules`` (and ``placement``, when given).

    Raise :class:`TallyError` for a board or round that does not fit, and for a round after
    the match is over.
    """
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise TallyError(f"a board has {MIN_PLAYERS} to {MAX_PLAYERS} players")
    if placement is not None:
        check_placement(placement, players)
    totals = [0] * players
    used = [False] * players
    sudden, winners = False, None
    tied: tuple[int, ...] = ()
    scored: list[ScoredRound] = []
    for number, paper in enumerate(rounds, start=1):
        if winners is not None:
            raise TallyError(f"round {number}: the match was over after round {number - 1}")
        check_round(rules, players, paper)
        moon = [paper.moon] if paper.moon >= 0 else []
        if placement is None and sudden:  # the tied alone play it; the others keep theirs
            scores, totals, reasons, used = score_among(
                rules, tied, paper.hand_totals, paper.caller, moon, totals, used
            )
            placed, points = None, tuple(scores)
            winners, granted = match_end(rules, totals, number, sudden, tied)
        elif placement is None:
            scores, totals, reasons, used = score_totals(
                rules, paper.hand_totals, paper.caller, moon, totals, used
            )
            placed, points = None, tuple(scores)
            winners, granted = match_end(rules, totals, number, sudden, tied)
        else:
            scores, _, reasons, _ = score_totals(
                rules, paper.hand_totals, paper.caller, moon, [0] * players, [True] * players
            )
            placed = places(scores)
            points = tuple(placement.points[p - 1] for p in placed)
            totals = [t + p for t, p in zip(totals, points, strict=True)]
            winners, granted = _placement_end(placement, totals, number), False
        scored.append(
            ScoredRound(
                number=number,
                paper=paper,
                round_scores=tuple(scores),
                places=placed,
                points=points,
                totals=tuple(totals),
                reasons=tuple(tuple(r) for r in reasons),
                sudden_death=sudden,
            )
        )
        if granted and not sudden:  # the tied for the lowest total play the extra round
            tied = tuple(p for p, t in enumerate(totals) if t == min(totals))
        sudden = granted
    return Tally(
        players=players,
        rounds=tuple(scored),
        totals=tuple(totals),
        over=winners is not None,
        winners=winners or (),
        next_sudden_death=sudden and winners is None,
    )


def _placement_end(
    placement: Placement, totals: Sequence[int], number: int
) -> tuple[int, ...] | None:
    """After the placement's rounds: the most points win (ties share)."""
    if number < placement.rounds:
        return None
    best = max(totals)
    return tuple(p for p, t in enumerate(totals) if t == best)
