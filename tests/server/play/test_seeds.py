"""Table seeds from 128 bits of the system's randomness (issue 32 §7), through a real server on
SQLite: every table made (live, pass-and-play) stores a seed of up to 128 bits, its match is
seeded with 128 bits one way from it (what a seat could search for), a restart deals the same,
and the test hook still takes a chosen seed (now of up to 128 bits)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from facedown.engine import Game, Ruleset
from facedown.records.matches import ONE_WAY, SEEDING, match_seed
from facedown.server.edge.settings import ServerSettings
from facedown.server.play.context import TableConfig
from facedown.store import TableRecord, open_store

from ..harness import NO_ADDRESS_LIMITS, create_table, run_server, seated, start

TABLES = 12


def _settings(tmp_path: Path, **changes: object) -> ServerSettings:
    return ServerSettings(
        data_dir=tmp_path,
        secret="seeds",
        table=TableConfig(bot_delay=600),
        clients=NO_ADDRESS_LIMITS,
        **changes,  # type: ignore[arg-type]
    )


def _stored(tmp_path: Path, codes: list[str]) -> list[TableRecord]:
    async def read() -> list[TableRecord]:
        store = await open_store(f"sqlite+aiosqlite:///{(tmp_path / 'facedown.db').resolve()}")
        try:
            found = [await store.find_by_code(code) for code in codes]
            return [r for r in found if r is not None]
        finally:
            await store.close()

    return asyncio.run(read())


def test_every_table_draws_a_128_bit_seed_and_deals_from_128_bits(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    with run_server(settings) as server, server.http() as http:
        codes = [create_table(server, "cabo", 2, bots=["easy"])[0] for _ in range(TABLES - 2)]
        for _ in range(2):
            r = http.post("/api/tables/pass-and-play", json={"names": ["Maya", "Bo"]})
            assert r.status_code == 200, r.text
            codes.append(r.json()["code"])
        code, [token] = create_table(server, "kivo", 2, bots=["easy"])
        asyncio.run(start(server, code, token))

        async def first_look() -> Any:
            async with seated(server, code, [token]) as [ann]:
                return ann.view["top_discard"]

        before = asyncio.run(first_look())
    records = _stored(tmp_path, [*codes, code])
    assert len(records) == TABLES + 1
    seeds = [r.seed for r in records]
    assert all(0 <= s < 2**128 for s in seeds)
    assert len(set(seeds)) == len(seeds)
    # Twelve draws of 48 bits would all be below 2**48; of 128 bits, all but about 2**-80 of
    # the time some are above 2**120.
    assert max(s.bit_length() for s in seeds) > 120
    played = next(r for r in records if r.code == code)

    async def log() -> list[tuple[str, dict[str, Any]]]:
        store = await open_store(f"sqlite+aiosqlite:///{(tmp_path / 'facedown.db').resolve()}")
        try:
            return [(e.kind, dict(e.payload)) for e in await store.log(played.id)]
        finally:
            await store.close()

    [(kind, payload), *_] = asyncio.run(log())
    assert kind == "start"
    assert payload[SEEDING] == ONE_WAY
    seed = match_seed(played.seed, 1)
    assert seed.bit_length() > 64  # the shuffles' seed: wider than any 64-bit search
    # The server dealt what the engine deals from that seed (checked after a restart too).
    dealt = Game(Ruleset.from_json(played.rules), 2, seed)
    with run_server(settings) as server:
        after = asyncio.run(first_look())
    assert before == after == dealt.deck.names[dealt.discard_pile[-1]]


@pytest.mark.parametrize("seed", [0, 2**48, 2**128 - 1])
def test_the_seed_test_hook_takes_up_to_128_bits(tmp_path: Path, seed: int) -> None:
    with run_server(_settings(tmp_path, test_hooks=True)) as server, server.http() as http:
        body = {"preset": "cabo", "seats": 2, "name": "Ann", "bots": ["easy"], "seed": seed}
        r = http.post("/api/tables", json=body)
        assert r.status_code == 200, r.text
        code = r.json()["code"]
        r = http.post("/api/tables", json={**body, "seed": 2**128})
        assert r.status_code == 422, r.text
    [record] = _stored(tmp_path, [code])
    assert record.seed == seed
