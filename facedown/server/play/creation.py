"""Making a table: its rules checked against its seats, bots, stacked deal and mode; its seats;
its record stored under a fresh code (the lobby then serves it).

Every refusal is a :class:`~..base.errors.TableError` whose code the client shows (``bad_seats``,
``bad_bot_level``, ``bad_deal``, ``bad_rules``, ``bad_rounds``, ``turn_based_only``).
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Sequence
from typing import Any, Protocol

from ...engine import Ruleset, make_ruleset
from ...engine.presets import ModeError, check_mode
from ...records.matches import new_table_seed
from ...store import Lease, SeatRecord, Store, StoreError, TableExists, TableRecord
from ..base.errors import TableError
from ..base.limits import check_bot_level, check_options, check_players
from ..base.testhooks import DEAL, DealJson, stacked_deal
from ..modes.modes import TableSettings, stored, table_mode

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O or 1/I to misread
CODE_LENGTH = 6
CODE_TRIES = 20  # 32**6 codes: twenty collisions in a row mean something else


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def checked_rules(
    preset: str,
    options: dict[str, Any],
    seats: int,
    bots: Sequence[str | None],
    deal: DealJson | None,
    settings: TableSettings,
) -> Ruleset:
    """The table's rules, once the seats, the bots and the stacked deal fit them.  ``options``:
    the ruleset fields the host changes, as the request gave them (the engine checks them)."""
    rules = _seated_rules(preset, options, seats, settings)
    if len(bots) > seats - 1:
        raise TableError("bad_seats", "too many bots for the seats")
    for named in bots:
        if named is None:
            continue
        try:
            check_bot_level(named)
        except ValueError as e:
            raise TableError("bad_bot_level", str(e)) from None
    if deal is not None:
        try:
            stacked_deal(rules, seats, deal)
        except ValueError as e:
            raise TableError("bad_deal", str(e)) from None
    return rules


# The rules tables were made with, by what they were made of (preset, options, seats, mode): a
# ruleset is immutable, so the tables of the same making share one, made and checked once, and
# the engine's work on it is done once too (its fingerprint, its deck: a fifth of a creation's
# CPU otherwise).  Only rules that passed every check are kept; many custom rulesets empty it.
_SEATED: dict[tuple[str, str, int, bool, str], Ruleset] = {}
SEATED_KEPT = 256
# The JSON a table's record keeps of its rules, by the rules' fingerprint (``to_json`` walks
# every field of the ruleset: as costly as checking it).
_RULES_JSON: dict[str, str] = {}


def _seated_rules(
    preset: str, options: dict[str, Any], seats: int, settings: TableSettings
) -> Ruleset:
    """The preset with ``options`` as the table's mode plays it, once the engine has said it
    seats and deals ``seats`` players (kept, see ``_SEATED``)."""
    try:
        made = json.dumps(options, sort_keys=True)
    except (TypeError, ValueError):  # options no request can send: made, not kept
        made = None
    mode = table_mode(settings)
    key = (preset, made or "", seats, mode.recollection, mode.name)
    found = _SEATED.get(key) if made is not None else None
    if found is not None:
        return found
    rules = _moded_rules(preset, options, settings)
    try:
        check_players(rules, seats)  # the engine decides how many it seats and deals
    except ValueError as e:
        raise TableError("bad_seats", str(e)) from None
    if made is not None:
        if len(_SEATED) >= SEATED_KEPT:
            _SEATED.clear()
        _SEATED[key] = rules
    return rules


def rules_json(rules: Ruleset) -> dict[str, Any]:
    """``rules.to_json()``, a new dict each time, made once for equal rules."""
    text = _RULES_JSON.get(rules.fingerprint)
    if text is None:
        if len(_RULES_JSON) >= SEATED_KEPT:
            _RULES_JSON.clear()
        text = _RULES_JSON[rules.fingerprint] = json.dumps(rules.to_json())
    data: dict[str, Any] = json.loads(text)
    return data


def with_deal(settings: TableSettings, deal: DealJson | None) -> TableSettings:
    """The settings, with a stacked first deal (test hooks) kept in them."""
    return settings if deal is None else {**settings, DEAL: deal}


def _moded_rules(preset: str, options: dict[str, Any], settings: TableSettings) -> Ruleset:
    """The preset with ``options``, as the table's mode plays it (the engine's table of modes
    decides which fields a mode sets: Kivo's rounds, score limit and sudden death)."""
    try:
        check_options(preset, options)  # bounds first: the engine's messages quote values
        rules = make_ruleset(preset, options)
    except ModeError as e:
        raise _mode_refusal(e) from None
    except ValueError as e:
        raise TableError("bad_rules", str(e)) from None
    try:
        rules = _with_recollection(rules, settings)
        check_mode(rules, preset, table_mode(settings).name)
    except ModeError as e:
        raise _mode_refusal(e) from None
    return rules


def _mode_refusal(e: ModeError) -> TableError:
    if e.field in ("rounds", "round_choices"):
        return TableError("bad_rounds", str(e))
    return TableError("bad_rules", str(e))


def _with_recollection(rules: Ruleset, settings: TableSettings) -> Ruleset:
    """Recollection is on at the tables whose mode shows it (turn-based), and nowhere else."""
    if table_mode(settings).recollection:
        return rules if rules.recollection else rules.with_options({"recollection": True})
    if rules.recollection:
        raise TableError("turn_based_only", "Recollection is for turn-based tables only")
    return rules


def seat_records(
    host_id: str, host_name: str, seats: int, bots: Sequence[str | None]
) -> list[SeatRecord]:
    """The host in seat 0; then seat by seat, a bot where ``bots`` names a level, an open seat
    for a person where it holds None or has ended."""
    records = [SeatRecord(0, "human", host_name, host_id)]
    for i in range(1, seats):
        level = bots[i - 1] if i - 1 < len(bots) else None
        if level is None:
            records.append(SeatRecord(i, "open"))
        else:
            records.append(SeatRecord(i, "bot", f"Bot ({level})", None, level))
    return records


class Reserving(Protocol):
    """What storing a new table needs of the lobby: a reserved id, and letting it go."""

    store: Store

    async def reserve(self) -> tuple[str, Lease | None]:
        """A new table's id, its lease already taken."""

    def release(self, table_id: str) -> None:
        """A reserved id that was never stored."""


async def store_new(
    lobby: Reserving,
    preset: str,
    rules: Ruleset,
    host_id: str,
    settings: TableSettings,
    seats: Sequence[SeatRecord],
    seed: int | None,
    now: float,
) -> tuple[TableRecord, Lease | None]:
    """Store a new table under a reserved id and a fresh code: its record, and its lease."""
    table_id, lease = await lobby.reserve()
    for attempt in range(CODE_TRIES):
        record = TableRecord(
            id=table_id,
            code=new_code(),
            preset=preset,
            rules=rules_json(rules),
            seed=new_table_seed() if seed is None else seed,
            host_id=host_id,
            settings=stored(settings),
            status="lobby",
            seats=tuple(seats),
            created_at=now,
            updated_at=now,
        )
        try:
            await lobby.store.create_table(record)
            return record, lease
        except TableExists:
            if attempt == CODE_TRIES - 1:
                lobby.release(table_id)
                raise
        except StoreError:
            lobby.release(table_id)
            raise
    raise AssertionError("unreachable")  # (the last try returns or raises)
