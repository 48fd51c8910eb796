"""Pass-and-play tables: one device on a real table, passed from player to player.

A table's mode is the ``mode`` key of its settings; a pass-and-play table has
``"mode": "pass_and_play"`` (no mode: a live private table).  It seats 2 to 8 people whose names
are typed in on the device, plays a single round of any preset (``rounds`` 1, no score limit,
no sudden death) with no memory aid (``recollection`` off), and starts when it is made.  The
round runs on the server like any other table's, and every seat has its own session token, so
the server still sends each seat only its own view; the one device holds all of the tokens.

Its mode turns off the timers and the stand-in bots (:mod:`.modes`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from fastapi import APIRouter
from pydantic import BaseModel, Field, field_validator

from ...engine.presets import mode_options
from ...records.matches import TABLE_SEED_BITS
from ..base import examples
from ..base.bodies import RequestBody
from ..base.errors import UNPROCESSABLE, TableError
from ..base.examples import body as body_of
from ..base.limits import MAX_PLAYERS, MIN_PLAYERS
from ..base.testhooks import StackedDealSpec, refuse_test_hooks
from ..base.text import Name
from ..edge.state import ServerState
from ..modes.modes import MODE, PASS_AND_PLAY
from ..transport.protocol import TableInfo
from .deps import Address, State, refused

# What the mode sets in the ruleset, whatever the preset (the engine's table of modes): one
# round, no memory aid.
ONE_ROUND: dict[str, Any] = mode_options("cabo", "pass_and_play")


def one_round_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """The ruleset options of a pass-and-play table: ``options`` with :data:`ONE_ROUND` set.

    Raises ValueError when ``options`` asks for something else for one of those fields (more
    rounds, a score limit, a memory aid): the mode decides them."""
    for key, wanted in ONE_ROUND.items():
        if key in options and options[key] != wanted:
            raise ValueError(
                f"{key}: a pass-and-play table plays one round without a memory aid "
                f"({key} is {_json(wanted)} there)"
            )
    return {**options, **ONE_ROUND}


def _json(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


PlayerName = Annotated[Name, Field(description="a player's name, as the device shows it")]


class CreatePassPlay(RequestBody):
    """A pass-and-play table: the preset, ruleset changes, and the players in seat order."""

    preset: str = Field("cabo", max_length=32, description="boyo, cabo, kivo or kaboom")
    # Free-form on purpose: the engine's ruleset checks these fields (RulesetError: 400).
    options: dict[str, Any] = Field(
        default_factory=dict,
        max_length=64,
        description="ruleset fields to change (rounds, score_limit, sudden_death and "
        "recollection are the mode's: one round, no memory aid)",
    )
    names: list[PlayerName] = Field(
        min_length=MIN_PLAYERS,
        max_length=MAX_PLAYERS,
        description="the players around the device, in seat order (play order)",
    )

    seed: int | None = Field(
        None, ge=0, lt=2**TABLE_SEED_BITS, description="test hooks only: the table's secret seed"
    )
    deal: StackedDealSpec | None = Field(
        None, description="test hooks only: the first deal of the first match"
    )

    @field_validator("names")
    @classmethod
    def _different(cls, names: list[str]) -> list[str]:
        """The device says "pass to Maya": two players of one name could not tell whose turn."""
        seen = [n.casefold() for n in names]
        if len(set(seen)) != len(seen):
            raise ValueError("every player needs a name of their own (two are the same)")
        return names


class PassSeat(BaseModel):
    seat: int
    name: str
    token: str = Field(description="this seat's session token (the device keeps every seat's)")


class PassPlayTable(BaseModel):
    code: str
    link: str
    seats: list[PassSeat]
    table: TableInfo


router = APIRouter()


@router.post("/api/tables/pass-and-play", response_model=PassPlayTable)
async def create_pass_and_play(
    body: Annotated[CreatePassPlay, body_of(examples.CREATE_PASS_PLAY)],
    state: State,
    address: Address,
) -> PassPlayTable:
    """Make the table, start its round, answer every seat's token."""
    if not state.limits.creates.allow(address):
        message = "too many tables created from your address: try again later"
        raise refused(429, "rate_limited", message)
    made = False
    try:
        answer = await _create(state, body)
        made = True
        return answer
    finally:
        if not made:  # a refused creation does not count against the address
            state.limits.creates.refund(address)


async def _create(state: ServerState, body: CreatePassPlay) -> PassPlayTable:
    refuse_test_hooks(state.settings.test_hooks, body.seed, body.deal)
    try:
        options = one_round_options(body.options)
    except ValueError as e:
        raise refused(400, "bad_rules", str(e)) from None
    issued = [state.tokens.issue(name, None) for name in body.names]
    guests = [guest for guest, _ in issued]
    players = [(g.player_id, name) for g, name in zip(guests, body.names, strict=True)]
    try:
        table = await state.lobby().create_started(
            players,
            body.preset,
            options,
            {MODE: PASS_AND_PLAY},
            seed=body.seed,
            deal=body.deal.model_dump() if body.deal is not None else None,
        )
    except TableError as e:
        raise refused(422 if e.code in UNPROCESSABLE else 400, e.code, e.message) from None
    code = table.record.code
    seats = [
        PassSeat(seat=i, name=name, token=token)
        for i, ((_, token), name) in enumerate(zip(issued, body.names, strict=True))
    ]
    info = TableInfo.model_validate(table.table_info())
    return PassPlayTable(code=code, link=state.link(code), seats=seats, table=info)
