"""A table's mode, kept in its settings under ``"mode"``: what kind of table it is, and what
each mode turns on or off, as one :class:`TableMode` value.

Absent means a Live Private table (everyone at the table now, timers of seconds).
``turn_based`` is a table that lives for days (players act when it is their turn, from any
device; a move deadline of hours).  ``pass_and_play`` is one device passed around a real table:
nobody there is remote, so its turns are not timed and no stand-in bot plays a seat whose player
is "away" (a device put to sleep or reloaded leaves every seat away, and the round waits for
it).  ``ranked`` is a table the ranked matchmaker made (:mod:`.ranked_mode`).

The mode is read once from a table's record (:func:`table_mode`); the rest of the server reads
the fields of that value and never compares mode names.  The stored data is only the name.

The settings themselves, every key, are a :class:`TableSettings`: the JSON object stored with a
table, read from its record by :func:`settings_of` and written back by :func:`stored`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final, TypedDict, cast

from ...store import TableRecord
from ..base.testhooks import DealJson

MODE: Final = "mode"  # the settings key
TURN_BASED: Final = "turn_based"
PASS_AND_PLAY: Final = "pass_and_play"  # noqa: S105 - a mode's name, no password
RANKED: Final = "ranked"


class MomentOver(TypedDict):
    """The seats whose moment is over (they said ``ready``) and the seq they said it at: an
    entry of a seq the table has moved on from is stale, and ignored (``play.tablelog``)."""

    seq: int
    seats: list[int]


class _Kept(TypedDict, total=False):
    """The keys of a table's settings besides its timers (:class:`TableSettings`)."""

    # The kind of table (:data:`MODE`): "turn_based", "pass_and_play" or "ranked"; absent at a
    # Live Private table (a name this server does not know is played as one: table_mode).
    mode: str
    # Test hooks only: the stacked first deal of the first match, as it was given
    # (``records.matches.DEAL``).  Never sent to a client.
    deal: DealJson
    # Ranked: the seats whose players forfeited the match, for good (left past their grace
    # period: a stand-in plays on, placed last; ``ranked_mode.FORFEITS``).
    forfeits: list[int]
    # Ranked: those of them that forfeited before the first round was scored (the match is a
    # no-contest for the others; ``ranked_mode.EARLY_FORFEITS``).
    early_forfeits: list[int]
    # The seats whose moment is over (``play.tablelog.MOMENT_OVER``): a restart, or the process
    # that takes the table over, shows them nothing more of that moment.  Never sent to a client.
    moment_over: MomentOver


class TableSettings(_Kept, total=False):
    """A table's settings: the JSON object stored with the table (its record's ``settings``).

    Written when the table is made (by the routes, from the request; by the ranked
    matchmaker), changed by a few of its commands (a ranked forfeit, a moment over), sent to
    its clients in the ``table`` message without the keys that never leave the server.  Every
    key may be absent: a pass-and-play table is made with its mode only, a live one with its
    timers only.
    The store keeps any JSON object: :func:`settings_of` reads a record's as this, and
    :func:`stored` makes the object a record keeps.
    """

    # Seconds of the opening peek's timer, and of each turn's (absent: the server's defaults,
    # :class:`TimedSettings`); at a turn-based table both are its move deadline.
    peek_seconds: float
    turn_seconds: float


class TimedSettings(_Kept):
    """A table's settings with its timers always there: the server's defaults fill in those
    the table does not set (``Table.settings``).  The keys are :class:`TableSettings`'."""

    peek_seconds: float
    turn_seconds: float


def settings_of(record: TableRecord) -> TableSettings:
    """A table's settings, as its record holds them.

    The store keeps any JSON object; this server wrote it as a :class:`TableSettings`
    (:func:`stored`) and reads it back as one, every key kept as stored.  It is not checked
    here: each reader of a key takes a value of another shape as it always did (a mode that is
    not a name: a Live Private table, :func:`mode_of`)."""
    return cast(TableSettings, record.settings)


def stored(settings: TableSettings) -> dict[str, object]:
    """The JSON object a table's record keeps of its settings (:func:`settings_of` reads it)."""
    return dict(settings)


@dataclass(frozen=True)
class TableMode:
    """What one kind of table changes.  One value per mode (:data:`MODES`)."""

    # The mode as the engine's table of modes names it (``facedown.engine.presets.MODES``: what
    # each mode sets in the rules, and which options its host may choose).
    name: str
    # The opening peek, the turns and the reveal have deadlines (not at pass-and-play).
    timed: bool = True
    # A player who leaves is replaced by a bot after a short grace period.  Not at a turn-based
    # table (its players are away most of the time, and the move deadline decides) nor at
    # pass-and-play (the seats wait for the device).
    stand_ins: bool = True
    # Its players are shown what they have learned (Recollection): forced on, and refused at
    # every other kind of table.
    recollection: bool = False
    # Missed move deadlines are counted (in the log), and the third in a match forfeits the seat.
    misses_forfeit: bool = False
    # Players are told (by e-mail) when the table waits for their move.
    notifies: bool = False
    # A stand-in taking a seat forfeits its player's match for good (kept in the settings,
    # placed last: never among the winners).
    leaving_forfeits: bool = False
    # A finished match changes its players' ratings.
    rated: bool = False
    # A lobby that waits for its players for days (a week), not a day.
    long_lobby: bool = False
    # One sitting at one device: started as it is made, and closed a day after it was made
    # whatever its state (a finished one is kept as it ended).
    one_sitting: bool = False


LIVE_TABLE: Final = TableMode("live")
TURN_BASED_TABLE: Final = TableMode(
    TURN_BASED,
    stand_ins=False,
    recollection=True,
    misses_forfeit=True,
    notifies=True,
    long_lobby=True,
)
PASS_AND_PLAY_TABLE: Final = TableMode(
    PASS_AND_PLAY, timed=False, stand_ins=False, one_sitting=True
)
RANKED_TABLE: Final = TableMode(RANKED, leaving_forfeits=True, rated=True)

# The settings' ``mode`` -> its value (no mode: a Live Private table).
MODES: Final[Mapping[str | None, TableMode]] = {
    None: LIVE_TABLE,
    TURN_BASED: TURN_BASED_TABLE,
    PASS_AND_PLAY: PASS_AND_PLAY_TABLE,
    RANKED: RANKED_TABLE,
}


def mode_of(settings: TableSettings) -> str | None:
    """The table's mode as stored, or None for a Live Private table."""
    mode = settings.get(MODE)
    return mode if isinstance(mode, str) else None


def table_mode(settings: TableSettings) -> TableMode:
    """What the table's kind changes, from its settings (a mode this server does not know is
    played as a Live Private table, as it always was)."""
    return MODES.get(mode_of(settings), LIVE_TABLE)
