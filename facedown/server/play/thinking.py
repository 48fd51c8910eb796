"""Where a bot chooses its move: a thread for the quick ones, a process pool for long thinkers.

A heuristic bot answers in a fraction of a millisecond, and a thread keeps it off the event loop.
A search bot (the expert) uses its whole budget of CPU, and a thread of the serving process
would hold the GIL that long: every socket of the process waits.  So a bot whose class says
``thinks_long`` is sent, with what its seat may know, to a worker process
(:class:`concurrent.futures.ProcessPoolExecutor`, started lazily, processes spawned rather than
forked from a process with threads), and comes back with its move and itself: the bot's memory
and random state as they are after choosing, so a match plays the same wherever it thinks.
"""

from __future__ import annotations

import asyncio
import multiprocessing
from concurrent.futures import ProcessPoolExecutor

from ...bots import Bot, SeatInfo
from ...engine import Action

DEFAULT_WORKERS = 1  # worker processes for long thinkers (facedown serve --bot-processes)


def thinks_long(bot: Bot) -> bool:
    """The bot's class says it searches (``thinks_long = True``)."""
    return bool(getattr(type(bot), "thinks_long", False))


def choose_in_worker(bot: Bot, info: SeatInfo) -> tuple[Action, Bot]:
    """In a worker process: the move, and the bot as it is after choosing it."""
    return bot.choose(info), bot


class Thinker:
    """Chooses bots' moves off the event loop (see the module docstring)."""

    def __init__(self, workers: int = DEFAULT_WORKERS) -> None:
        self.workers = workers  # 0: long thinkers use a thread too
        self._pool: ProcessPoolExecutor | None = None

    def pool(self) -> ProcessPoolExecutor:
        if self._pool is None:
            context = multiprocessing.get_context("spawn")
            self._pool = ProcessPoolExecutor(self.workers, mp_context=context)
        return self._pool

    async def choose(self, bot: Bot, info: SeatInfo) -> tuple[Action, Bot]:
        """The bot's move and the bot to keep (a copy that thought in a worker process, or the
        same bot)."""
        if self.workers > 0 and thinks_long(bot):
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(self.pool(), choose_in_worker, bot, info)
        return await asyncio.to_thread(bot.choose, info), bot

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
