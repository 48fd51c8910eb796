"""A modest population of accounts of known strength (bots of three levels), playing through
the real queue and real tables, ends up rated in the order of their strength
(benchmarks/ranked_population.py runs bigger ones and reports how many matches it takes)."""

from __future__ import annotations

import asyncio

from benchmarks.ranked_population import simulate


def test_ratings_put_the_levels_in_order() -> None:
    report = asyncio.run(
        simulate(["random", "easy", "medium"], per_level=2, max_matches=200, settle=10)
    )
    assert report.settled_at is not None, f"never in order after {report.matches}: {report.ratings}"
    assert report.order == ["medium", "medium", "easy", "easy", "random", "random"]
