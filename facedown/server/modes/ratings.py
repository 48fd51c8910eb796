"""Ratings of ranked play: OpenSkill's Plackett-Luce model, one rating per account and queue.

A rating is a belief about a player's skill: ``mu`` (the estimate) and ``sigma`` (how unsure it
is).  A new player starts at the model's defaults (mu 25, sigma 25/3).  The leaderboard sorts by
the conservative ``score`` = mu - 3 sigma (the model's ordinal: the player is better than that
with about 99.7% certainty), which starts at 0 and rises as results make the rating surer.  What
players read is :func:`shown`, that score on a friendlier scale: 1000 + 40 x score.  A player is
*provisional* for their first :data:`PROVISIONAL_MATCHES` rated matches.

A match's result is each seat's place (1 is best; seats that share a place are a tie, as a
draw is): the lowest match total first, then the others by total, and every seat that forfeited
last of all, whatever its total.  Plackett-Luce rates all the places of a multiplayer match at
once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

PROVISIONAL_MATCHES = 10  # rated matches before a rating stops being provisional
SHOWN_BASE = 1000.0  # what a score of 0 (a new player) reads as
SHOWN_SCALE = 40.0  # shown points per point of score

_MODEL = PlackettLuce()


@dataclass(frozen=True)
class Skill:
    """A rating: the estimate and its uncertainty."""

    mu: float
    sigma: float

    @property
    def score(self) -> float:
        """The conservative rating the leaderboard sorts by (mu - 3 sigma)."""
        return self.mu - 3.0 * self.sigma


def new_skill() -> Skill:
    """A player's rating before their first rated match."""
    rating = _MODEL.rating()
    return Skill(rating.mu, rating.sigma)


def shown(score: float) -> int:
    """The number a player reads for a score."""
    return round(SHOWN_BASE + SHOWN_SCALE * score)


def provisional(matches: int) -> bool:
    return matches < PROVISIONAL_MATCHES


def places(totals: Sequence[int], forfeited: Sequence[int] = ()) -> list[int]:
    """Each seat's place (1 is best, ties share): by ``totals``, lowest first (match totals,
    or the engine's own places after a sudden-death round), and the seats that forfeited
    after every other, among themselves in the same order."""
    gone = set(forfeited)

    def key(seat: int) -> tuple[bool, int]:
        return seat in gone, totals[seat]

    order = sorted(range(len(totals)), key=key)
    result = [0] * len(totals)
    for position, seat in enumerate(order):
        before = order[position - 1] if position else None
        tied = before is not None and key(before) == key(seat)
        result[seat] = result[before] if tied and before is not None else position + 1
    return result


@dataclass(frozen=True)
class Outcome:
    """How a finished match ended for its seats: each one's place (1 is best, ties share) and
    the winning seats (more than one on a shared win)."""

    places: tuple[int, ...]
    winners: tuple[int, ...]


def outcome(
    engine_places: Sequence[int], engine_winners: Sequence[int], forfeited: Sequence[int] = ()
) -> Outcome:
    """A finished match's places and winners, the one place that decides them wherever they
    are shown (the table's last view, a replay, the match history and the rating read it):
    the engine's (``Game.places()``, ``Game.winners``), unless seats forfeited (a ranked
    table's ``forfeits``).  Those are placed after every other, among themselves by the
    engine's places, and are never winners, whatever their totals: the winners are the seats
    in first place once the forfeits are put last."""
    if not forfeited:
        return Outcome(tuple(engine_places), tuple(engine_winners))
    gone = set(forfeited)
    placed = places(engine_places, forfeited)
    winners = tuple(seat for seat, place in enumerate(placed) if place == 1 and seat not in gone)
    return Outcome(tuple(placed), winners)


def capped(before: Skill, after: Skill, allowed: float) -> Skill:
    """``after``, its rise over ``before`` cut to ``allowed`` shown points: the new sigma kept,
    mu lowered until the shown rating has risen by exactly that much (nothing at all when
    nothing is allowed: ``before`` as it was)."""
    rise = (after.score - before.score) * SHOWN_SCALE
    if rise <= allowed:
        return after
    if allowed <= 0:
        return before
    mu = before.score + allowed / SHOWN_SCALE + 3.0 * after.sigma
    return Skill(min(mu, after.mu), after.sigma)


def rate(skills: Sequence[Skill], seat_places: Sequence[int]) -> list[Skill]:
    """The seats' new ratings after a match in which they took ``seat_places``."""
    teams = [[_MODEL.rating(mu=s.mu, sigma=s.sigma)] for s in skills]
    rated = _MODEL.rate(teams, ranks=[float(p) for p in seat_places])
    return [Skill(team[0].mu, team[0].sigma) for team in rated]
