"""Bot tournaments: many matches (or single rounds) between bots, in parallel, from one seed.

Game ``i`` of a tournament takes its deal seed and every bot's seed from ``(seed, i)`` alone, and
results are put back in game order, so a tournament is the same whatever the number of processes.
Seats rotate: in game ``i`` the bot listed ``k``-th sits at seat ``(k - i) mod players``, so over
``players`` consecutive games every bot sits once in every seat.

With ``duplicate`` (as in duplicate bridge) those ``players`` consecutive games are dealt the same
cards: every bot plays every seat of every deal, and the luck of the deal cancels out of the
comparison between bots.  The games of one deal are not independent, so a confidence interval
of a difference between bots takes the deal as its unit (:func:`deal_means`).

A game's *winners* are the match winners (``--unit match``) or the seats with the lowest round
score (``--unit round``); ``k`` winners each take a share of ``1/k``.  A bot's win rate is its
shares over its games, with a 95% Wilson score interval.

The package: ``play`` plays (the configuration, the games, the processes); ``report`` says what
they came to (standings and intervals, CSV and JSON files, the progress bar).  Import from
``facedown.sim``.
"""

from .play import (
    UNITS,
    GameResult,
    SeatResult,
    SimConfig,
    SimError,
    Unit,
    check,
    derive_seed,
    play_chunk,
    play_game,
    run,
    split_bots,
)
from .report import (
    CSV_FIELDS,
    Z95,
    ProgressBar,
    Standing,
    deal_means,
    format_standings,
    mean_interval,
    results_json,
    standings,
    wilson,
    write_csv,
    write_results,
)

__all__ = [
    "CSV_FIELDS",
    "UNITS",
    "Z95",
    "GameResult",
    "ProgressBar",
    "SeatResult",
    "SimConfig",
    "SimError",
    "Standing",
    "Unit",
    "check",
    "deal_means",
    "derive_seed",
    "format_standings",
    "mean_interval",
    "play_chunk",
    "play_game",
    "results_json",
    "run",
    "split_bots",
    "standings",
    "wilson",
    "write_csv",
    "write_results",
]
