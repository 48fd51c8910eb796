"""Password hashes: argon2id through argon2-cffi, off the event loop, with a bounded appetite.

A hash costs ``memory_kib`` of memory and ``time_cost`` passes over it, so at most ``parallel``
hashes run at a time (in threads: argon2-cffi releases the GIL while it hashes) and at most
``waiting`` more wait their turn: beyond that a hash or a check is refused at once with
:class:`PasswordsBusy` (the server answers 429), since a quick refusal serves an honest user
better than a wait behind hundreds of others.  Checking a password against an account that does
not exist verifies it against a dummy hash made with the same parameters: the answer and the
work are the same as for a wrong password.  A stored hash whose parameters differ from today's
is reported by :meth:`Passwords.needs_rehash`, and redone at the next successful sign-in.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from argon2 import PasswordHasher, Type
from argon2.exceptions import InvalidHashError, VerificationError

T = TypeVar("T")


@dataclass(frozen=True)
class PasswordCost:
    """argon2id parameters; the defaults are RFC 9106's second recommendation (64 MiB, t=3)."""

    time_cost: int = 3
    memory_kib: int = 64 * 1024
    parallelism: int = 4
    parallel: int = 2  # hashes computed at the same time, at most
    waiting: int = 16  # hashes that may wait for one of those; more are refused (PasswordsBusy)


class PasswordsBusy(Exception):
    """As many hashes run and wait as may: this one is refused without waiting."""


class Passwords:
    def __init__(self, cost: PasswordCost) -> None:
        self.cost = cost
        self._hasher = PasswordHasher(
            time_cost=cost.time_cost,
            memory_cost=cost.memory_kib,
            parallelism=cost.parallelism,
            type=Type.ID,
        )
        self._slots = asyncio.Semaphore(cost.parallel)
        self._pending = 0  # hashes running or waiting for a slot
        self._dummy: str | None = None

    async def _run(self, work: Callable[..., T], *args: str) -> T:
        """``work(*args)`` in a worker thread once a slot is free; PasswordsBusy at once when
        ``parallel`` run and ``waiting`` wait already."""
        if self._pending >= self.cost.parallel + self.cost.waiting:
            raise PasswordsBusy("too many password hashes at once")
        self._pending += 1
        try:
            async with self._slots:
                return await asyncio.to_thread(work, *args)
        finally:
            self._pending -= 1

    @property
    def pending(self) -> int:
        """Hashes running or waiting now."""
        return self._pending

    async def hash(self, password: str) -> str:
        return await self._run(self._hasher.hash, password)

    async def verify(self, stored: str | None, password: str) -> bool:
        """Whether ``password`` matches ``stored``; with ``stored`` None (no such account) the
        same work is done against a dummy hash, and the answer is False."""
        # The dummy is made at the first check of either kind, so that even the first answers
        # to a wrong password and to an unknown name take the same work.
        if self._dummy is None:
            self._dummy = await self.hash(secrets.token_urlsafe(18))
        if stored is None:
            await self._check(self._dummy, password)
            return False
        return await self._check(stored, password)

    async def _check(self, stored: str, password: str) -> bool:
        return await self._run(self._matches, stored, password)

    def _matches(self, stored: str, password: str) -> bool:
        try:
            return self._hasher.verify(stored, password)
        except (VerificationError, InvalidHashError):
            return False

    def needs_rehash(self, stored: str) -> bool:
        """The hash was made with other parameters than today's (or is not one of ours)."""
        try:
            return self._hasher.check_needs_rehash(stored)
        except InvalidHashError:
            return True
