"""Who plays whom: close ratings first, a window that widens with waiting time, the longest
waiter first; the expected wait; the places a result gives and what rating makes of them."""

from __future__ import annotations

import math

from facedown.server.modes import ratings
from facedown.server.modes.matchmaking import Window, expected_wait, groups, reach
from facedown.store import QueueEntry

WINDOW = Window(base=3.0, widen=0.1, open_after=120.0)


def entry(user: str, joined: float, mu: float | None) -> QueueEntry:
    return QueueEntry(user, "cabo-2", joined, joined, mu, None if mu is None else 5.0)


def ids(made: list[list[QueueEntry]]) -> list[list[str]]:
    return [[e.user_id for e in group] for group in made]


def test_the_window_widens_with_waiting_time_and_opens() -> None:
    assert reach(0.0, WINDOW) == 3.0
    assert reach(30.0, WINDOW) == 6.0
    assert reach(119.9, WINDOW) < 15.0
    assert reach(120.0, WINDOW) == math.inf


def test_close_ratings_are_matched_and_far_ones_wait() -> None:
    queue = [entry("strong", 0.0, 40.0), entry("weak", 1.0, 20.0), entry("weak2", 2.0, 21.0)]
    # At once: the strong player has nobody within 3; the two weak ones meet.
    assert ids(groups(queue, 2, now=2.0, window=WINDOW)) == [["weak", "weak2"]]
    # After 200 seconds anyone will do: the longest waiter gets the nearest of the others.
    assert ids(groups(queue, 2, now=200.0, window=WINDOW)) == [["strong", "weak2"]]
    # The strong one's window reaches 19 below after (19 - 3) / 0.1 = 160 s... but it opens at
    # 120 s: at 100 s it reaches 13, still too short.
    assert ids(groups(queue[:2], 2, now=100.0, window=WINDOW)) == []


def test_the_longest_waiter_takes_the_nearest_ratings_of_its_window() -> None:
    queue = [
        entry("a", 0.0, 25.0),
        entry("b", 1.0, 29.0),
        entry("c", 2.0, 24.0),
        entry("d", 3.0, 26.5),
        entry("e", 4.0, None),  # never rated: a new player's estimate, 25
    ]
    made = groups(queue, 4, now=10.0, window=WINDOW)  # a reaches 4: b (4 away) is in reach
    assert ids(made) == [["a", "e", "c", "d"]]  # the three nearest: 0, 1, 1.5 away
    assert ids(groups(queue, 2, now=10.0, window=WINDOW)) == [["a", "e"], ["b", "d"]]
    assert groups(queue[:1], 2, now=500.0, window=WINDOW) == []


def test_the_expected_wait_is_the_median_of_recent_waits() -> None:
    assert expected_wait([]) is None
    assert expected_wait([3.0, 1.0, 50.0]) == 3.0
    assert expected_wait([2.0, 4.0]) == 3.0


def test_places_rank_by_total_with_forfeits_last() -> None:
    assert ratings.places([10, 4, 7]) == [3, 1, 2]
    assert ratings.places([5, 5, 9, 1]) == [2, 2, 4, 1]
    assert ratings.places([5, 5]) == [1, 1]  # a draw
    assert ratings.places([2, 30, 8], forfeited=[0]) == [3, 2, 1]  # lowest total, but gone
    assert ratings.places([2, 30, 8, 1], forfeited=[0, 3]) == [4, 2, 1, 3]


def test_rating_follows_the_places_and_a_new_player_is_provisional() -> None:
    new = ratings.new_skill()
    assert round(new.score, 9) == 0.0
    assert ratings.shown(new.score) == 1000
    first, second, third = ratings.rate([new, new, new], [1, 2, 3])
    assert first.mu > second.mu > third.mu
    assert all(s.sigma < new.sigma for s in (first, second, third))
    drawn = ratings.rate([new, new], [1, 1])
    assert drawn[0] == drawn[1]
    assert ratings.provisional(ratings.PROVISIONAL_MATCHES - 1)
    assert not ratings.provisional(ratings.PROVISIONAL_MATCHES)


def test_a_rise_is_cut_to_what_is_allowed() -> None:
    before = ratings.new_skill()
    [after, _] = ratings.rate([before, ratings.new_skill()], [1, 2])
    rise = ratings.shown(after.score) - ratings.shown(before.score)
    assert rise > 100
    assert ratings.capped(before, after, rise + 1) == after  # within the allowance
    cut = ratings.capped(before, after, 40)
    assert ratings.shown(cut.score) == ratings.shown(before.score) + 40
    assert cut.sigma == after.sigma
    assert cut.mu < after.mu
    assert ratings.capped(before, after, 0) == before  # nothing allowed: as it was
    assert ratings.capped(before, after, -5) == before
    [loser_after] = ratings.rate([after, before], [2, 1])[:1]
    assert ratings.capped(after, loser_after, 0) == loser_after  # a fall is never cut
