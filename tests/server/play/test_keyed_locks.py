"""The lobby's claim locks: one claim of a table at a time, and no lock kept once nobody holds
or waits for it (the lobby would otherwise keep a lock for every table it ever claimed)."""

from __future__ import annotations

import asyncio

from facedown.server.play.locks import KeyedLocks


def test_one_holder_per_key_and_nothing_kept_after() -> None:
    async def main() -> None:
        locks = KeyedLocks()
        order: list[str] = []
        inside = {"a": 0}
        most = {"a": 0}

        async def claim(key: str, name: str) -> None:
            async with locks.hold(key):
                inside[key] = inside.get(key, 0) + 1
                most[key] = max(most.get(key, 0), inside[key])
                order.append(f"{name} in")
                await asyncio.sleep(0.01)
                order.append(f"{name} out")
                inside[key] -= 1

        await asyncio.gather(claim("a", "1"), claim("a", "2"), claim("a", "3"), claim("b", "4"))
        assert most == {"a": 1, "b": 1}  # never two holders of one key
        assert order.index("1 out") < order.index("2 in") < order.index("2 out")
        assert order.index("2 out") < order.index("3 in")
        assert order.index("4 in") < order.index("1 out")  # another key does not wait
        assert len(locks) == 0

    asyncio.run(main())


def test_a_waiter_keeps_the_lock_and_a_failure_releases_it() -> None:
    async def main() -> None:
        locks = KeyedLocks()
        entered = asyncio.Event()
        release = asyncio.Event()

        async def first() -> None:
            async with locks.hold("t"):
                entered.set()
                await release.wait()
                raise RuntimeError("the claim failed")

        async def second() -> str:
            async with locks.hold("t"):
                return "second held it"

        one = asyncio.create_task(first())
        await entered.wait()
        two = asyncio.create_task(second())
        await asyncio.sleep(0)
        assert len(locks) == 1  # held by the first, waited for by the second
        release.set()
        results = await asyncio.gather(one, two, return_exceptions=True)
        assert isinstance(results[0], RuntimeError)
        assert results[1] == "second held it"
        assert len(locks) == 0

    asyncio.run(main())
