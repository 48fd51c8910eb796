"""Every error code the server sends, in one place: on the WebSocket (``{"type": "error",
"code": ...}``) and in HTTP answers (``{"detail": {"code": ..., "message": ...}}``).

The codes are stable; the messages beside them are for people and may change.  The web client
has a text of its own, in each of its languages, for every code listed here (``ERROR_CODES`` is
generated into ``web/src/lib/wire.ts``; a client test fails on a code without one), and a test
of the server fails on a code it sends that is not listed.
"""

from __future__ import annotations

from ...engine import errors as engine_errors

# Refusals of a table that the engine or the bots cannot play: the request was well formed, so
# the HTTP answer is 422 (any other refusal is a 400).
UNPROCESSABLE = frozenset({"bad_seats", "bad_bot_level"})


class TableError(Exception):
    """A command the table refuses; ``code`` is stable, the message readable."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


ILLEGAL = "illegal:"  # the prefix of the engine's refusals: illegal:<the engine's code>

# code -> when the server sends it
SERVER_CODES: dict[str, str] = {
    # the WebSocket's frames
    "frame_too_large": "a frame longer than the protocol allows",
    "malformed_json": "a frame (or an HTTP request body) that is not JSON, or nested too deeply",
    "malformed_message": "a frame that is not a JSON object",
    "unknown_type": "a message of a type the protocol does not have",
    "invalid_message": "a message whose fields do not fit its type",
    "no_hello": "a message before the connection said hello",
    "already_hello": "a second hello on one connection",
    "hello_timeout": "no hello in time: the connection is closed",
    "idle": "a spectator that sent nothing (not even a ping) for a while: closed",
    "rate_limited": "too many messages, connections, tables, joins or unknown codes from one "
    "connection or address: wait, then try again",
    # tables and seats
    "unknown_table": "no table has this code",
    "table_closed": "the table was closed (a lobby that never started expires)",
    "table_unavailable": "the table could not be restored from storage and is not served",
    "table_full": "every seat is taken",
    "table_started": "the match started: seats are taken in the lobby only",
    "too_many_spectators": "the table has as many spectators as it allows",
    "bad_token": (
        "the session token is not valid (forged, expired, rotated away, old format; an"
        " account's: its session ended, or another table's)"
    ),
    "not_host": "only the host may do this",
    "not_seated": "a spectator may not act",
    "host_seat": "the host's own seat cannot be removed",
    "no_open_seat": "no seat is open for a bot",
    "no_such_seat": "the table has no such seat",
    "open_seats": "the match starts once every seat is taken",
    "too_few_seats": "a table needs more seats than would be left",
    "match_running": "a rematch comes after the match is over",
    "not_playing": "no match is being played",
    "stale": "the table moved on before the action arrived: a snapshot follows",
    "bad_action": "an action the engine cannot read",
    "seat_forfeited": "the seat was forfeited (three missed deadlines at a turn-based table, or "
    "a ranked match left past its grace period): a bot plays it",
    "no_seat": "the signed-in account holds no seat at this table",
    # creating a table
    "bad_rules": "a ruleset option that is unknown or out of bounds",
    "bad_seats": "more or fewer seats (or bots) than the rules allow",
    "bad_bot_level": "a bot level that does not exist",
    "bad_deal": "a stacked deal that does not fit the table (test hooks)",
    "bad_rounds": "a number of rounds the game's rules do not allow (kivo: 1, 3 or 5)",
    "bad_deadline": "a turn-based move deadline that is not one of the listed ones",
    "turn_based_only": "Recollection asked for at a table that is not turn-based",
    "test_hooks_off": "a seed or a deal on a server without test hooks",
    # HTTP
    "invalid_request": "a request body or path that does not validate (a body's types are "
    'strict: "4" is not a number)',
    "too_large": "a request body, or a request line with its headers, over the size limit",
    "not_found": "no such route or file",
    "method_not_allowed": "an HTTP method the route does not take (the Allow header lists its own)",
    "store_unavailable": "the database did not take a write: try again",
    # a cluster of processes (docs/server.md)
    "cluster_unavailable": "the table is held by another server process that cannot be reached "
    "now (Redis is down, or the table is moving): reconnect in a moment",
    # accounts
    "cross_site": "a request from another site tried to use the session cookie",
    "bad_credentials": "a sign-in whose name or password is wrong (the same for both)",
    "signed_out": "a request that needs a signed-in account without one",
    "no_session": "a session to end that the account does not have",
    "bad_password": "a password change whose current password is wrong",
    "bad_email": "an e-mail address the server will not send to",
    "name_taken": "a sign-up with a name another account has (or looks like)",
    "mail_limit": "more e-mails to one account or address in an hour than allowed",
    # replays
    "not_a_player": "a replay of a match asked for by someone who did not play it",
    "bad_key": "a replay's share link that is not valid",
    "unreadable": "a table's log that cannot be read into a replay",
    "unknown_match": "a replay of a match the table does not have",
    "replay_too_large": "a match too long to replay",
    "bad_seat": "a replay through a seat the match does not have",
    "bad_step": "a step of a replay that the match does not have",
    "not_exportable": "a match the server cannot export",
    # scoreboards
    "unknown_board": "no scoreboard has this link",
    "bad_board": "a scoreboard's players or preset that cannot be kept",
    "bad_round": "a round of a scoreboard that the rules cannot score",
    "no_round": "an edit of a round the scoreboard does not have",
    "revision_conflict": "an edit made on an older version of the scoreboard (the answer "
    "gives the revision now)",
    # ranked play
    "account_required": "ranked play needs a signed-in account (a guest cannot queue)",
    "bad_queue": "no ranked queue has this preset and player count",
    "in_ranked_match": "the account is in a ranked match being played: it cannot queue",
    "account_too_new": "the account is too new for ranked play: it may queue once old enough",
}


def _illegal_codes() -> dict[str, str]:
    """``illegal:<code>`` for the engine's refusal and each kind of it."""
    base = engine_errors.IllegalAction
    kinds: list[type[engine_errors.IllegalAction]] = [base, *base.__subclasses__()]
    return {
        f"{ILLEGAL}{kind.code}": (kind.__doc__ or "").strip().split("\n")[0].rstrip(".")
        for kind in kinds
    }


ERROR_CODES: dict[str, str] = {**SERVER_CODES, **_illegal_codes()}
