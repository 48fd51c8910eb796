"""Password hashes: argon2id through argon2-cffi, off the event loop, with a bounded appetite.

A hash costs ``memory_kib`` of memory and ``time_cost`` passes over it, so at most ``parallel``
hashes run at a time (in threads: argon2-cffi releases the GIL while it hashes) and everything
else waits its turn.  Checking a password against an account that does not exist verifies it
against a dummy hash made with the same parameters: the answer and the work are the same as
for a wrong password.  A stored hash whose parameters differ from today's is reported by
:meth:`Passwords.needs_rehash`, and redone at the next successful sign-in.
"""

from __future__ import annotations

import asyncio
import secrets
from dataclasses import dataclass

from argon2 import PasswordHasher, Type
from argon2.exceptions import InvalidHashError, VerificationError


@dataclass(frozen=True)
class PasswordCost:
    """argon2id parameters; the defaults are RFC 9106's second recommendation (64 MiB, t=3)."""

    time_cost: int = 3
    memory_kib: int = 64 * 1024
    parallelism: int = 4
    parallel: int = 2  # hashes computed at the same time, at most


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
        self._dummy: str | None = None

    async def hash(self, password: str) -> str:
        async with self._slots:
            return await asyncio.to_thread(self._hasher.hash, password)

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
        async with self._slots:
            return await asyncio.to_thread(self._matches, stored, password)

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
