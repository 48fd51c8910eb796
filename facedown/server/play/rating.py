"""Rating a finished ranked match: its result read back from the stored log (as the match
history reads it), rated with OpenSkill (:mod:`..modes.ratings`), and written with the new
ratings in one write that happens once.

Throwaway accounts (docs/ranked.md): after an early forfeit the match counts only against those
who forfeited, and no opponent raises a rating by more than ``pair_cap`` in ``pair_window``.
"""

from __future__ import annotations

import logging

from ...store import RankedStore, RatingRecord, Store, StoreError
from ..accounts.history import finished_matches
from ..base.clock import Clock
from ..modes import ranked_mode, ratings
from ..modes.matchmaking import RankedConfig
from ..modes.modes import settings_of

log = logging.getLogger(__name__)


async def rate_match(
    tables: Store, store: RankedStore, table_id: str, clock: Clock, config: RankedConfig
) -> bool:
    """Rate a finished ranked match from its stored log, once; True when this did it."""
    match = await store.ranked_match(table_id)
    record = await tables.get_table(table_id)
    if match is None or match.rated_at is not None or record is None:
        return False
    if record.status != "finished":
        return False
    ended = finished_matches(record, await tables.log(table_id))
    if not ended:
        return False
    settings = settings_of(record)
    early = set(ranked_mode.early_forfeits(settings))
    # The engine's places (a sudden-death round among the tied decides their order), the
    # forfeited seats after every other: see finished_matches.
    seat_places = list(ended[0].places)
    users = [s.user_id for s in match.seats]
    known = {r.user_id: r for r in await store.ratings_in(match.queue, users)}
    before = [_skill(known.get(u)) for u in users]
    after = ratings.rate(before, [seat_places[s.seat] for s in match.seats])
    now = clock.now()
    # Throwaway accounts (docs/ranked.md): after an early forfeit the match counts only
    # against those who forfeited.
    counted = [not early or s.seat in early for s in match.seats]
    capped = await _cap(store, match.queue, users, before, after, counted, now, config)
    new = [
        RatingRecord(
            user_id=u,
            queue=match.queue,
            mu=skill.mu,
            sigma=skill.sigma,
            score=skill.score,
            matches=(known[u].matches if u in known else 0) + (1 if counts else 0),
            updated_at=now,
        )
        for u, skill, counts in zip(users, after, counted, strict=True)
    ]
    result = {
        "totals": list(ended[0].scores),
        "winners": list(ended[0].winners),
        "forfeits": ranked_mode.forfeits(settings),
        "no_contest": bool(early),
        "seats": [
            {
                "seat": s.seat,
                "user_id": s.user_id,
                "place": seat_places[s.seat],
                "before": ratings.shown(b.score),
                "after": ratings.shown(a.score),
                "counted": counts,
                "capped": cut,
            }
            for s, b, a, counts, cut in zip(
                match.seats, before, after, counted, capped, strict=True
            )
        ],
    }
    try:
        return await store.rate_match(table_id, now, result, new)
    except StoreError:
        log.exception("ranked match %s: its ratings could not be written", table_id)
        raise


async def _cap(
    store: RankedStore,
    queue: str,
    users: list[str],
    before: list[ratings.Skill],
    after: list[ratings.Skill],
    counted: list[bool],
    now: float,
    config: RankedConfig,
) -> list[bool]:
    """Bound ``after`` in place: a seat the match does not count for keeps its rating, and no
    opponent raises a rating by more than ``pair_cap`` in ``pair_window`` (docs/ranked.md).
    Returns, per seat, whether its rise was cut."""
    capped = [False] * len(users)
    for i, user_id in enumerate(users):
        if not counted[i]:
            after[i] = before[i]
            continue
        if after[i].score <= before[i].score:
            continue
        given = await _given_lately(store, user_id, queue, now, config.pair_window)
        taken = max((given.get(u, 0) for u in users if u != user_id), default=0)
        bounded = ratings.capped(before[i], after[i], config.pair_cap - taken)
        capped[i] = bounded != after[i]
        after[i] = bounded
    return capped


async def _given_lately(
    store: RankedStore, user_id: str, queue: str, now: float, window: float
) -> dict[str, int]:
    """Shown points each opponent has raised ``user_id``'s rating in ``queue`` by within
    the last ``pair_window`` seconds (a match's rise counts for every opponent in it)."""
    given: dict[str, int] = {}
    since = now - window
    for match in await store.rated_matches(user_id, queue, since):
        seats = (match.result or {}).get("seats", [])
        mine = next((s for s in seats if s.get("user_id") == user_id), None)
        if mine is None:
            continue
        rise = int(mine.get("after", 0)) - int(mine.get("before", 0))
        if rise <= 0:
            continue
        for other in seats:
            if other.get("user_id") != user_id:
                key = str(other.get("user_id"))
                given[key] = given.get(key, 0) + rise
    return given


def _skill(record: RatingRecord | None) -> ratings.Skill:
    return ratings.new_skill() if record is None else ratings.Skill(record.mu, record.sigma)
