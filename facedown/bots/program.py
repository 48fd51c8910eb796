"""Bot programs: a program that speaks JSON lines on its standard input and output.

A ``cmd:COMMAND`` entrant (:class:`CommandEntrant`) starts its program once per worker and tells
it of each new game with ``hello``; each decision of one of its seats is a ``decide`` message
(with the events since the seat's last message) and its reply, the end of a game an ``over``
message, and ``bye`` ends the program (``docs/bots.md`` says what each message holds).  A reply
that cannot be used is a :class:`BadReply`, which the seat's guard
(:mod:`facedown.bots.protocol`) answers with a random legal action; a program that exits or
stops answering is a :class:`BotError`.
"""

from __future__ import annotations

import contextlib
import json
import queue
import shlex
import subprocess
import tempfile
import threading
import time
from typing import IO, Any

from ..engine import Action, ActionFormatError, Ruleset
from .base import Bot, SeatInfo

PROTOCOL_VERSION = 1
DEFAULT_TIMEOUT = 5.0  # seconds a program may take over one decision
HELLO_TIMEOUT = 20.0  # seconds a program may take to start and answer hello
MAX_SILENT = 3  # consecutive timeouts after which a program counts as hung


class BotError(RuntimeError):
    """A bot cannot go on: it could not be loaded, it exited, or it stopped answering."""


class BadReply(ValueError):
    """One reply could not be used (malformed, or too late): the guard plays instead."""


class CommandEntrant:
    """A program speaking JSON lines, started once and told of each new game by ``hello``."""

    def __init__(self, spec: str, timeout: float = DEFAULT_TIMEOUT) -> None:
        self.spec = spec
        command = spec.removeprefix("cmd:").strip()
        argv = shlex.split(command)
        if not argv:
            raise BotError(f"no command in {spec!r}")
        self.process = BotProcess(argv, timeout=timeout, name=spec)

    def new_bot(self, *, seat: int, players: int, rules: Ruleset, seed: int, game: int) -> Bot:
        reply = self.process.hello(
            {
                "type": "hello",
                "protocol": PROTOCOL_VERSION,
                "game": game,
                "seat": seat,
                "players": players,
                "seed": seed,
                "rules": rules.to_json(),
            }
        )
        if reply.get("react") is True:
            return ReactiveCommandBot(self.process, seat)
        return CommandBot(self.process, seat)

    def close(self) -> None:
        self.process.close()


class CommandBot:
    """One seat of a JSON-lines program: each decision is a ``decide`` message and its reply."""

    def __init__(self, process: BotProcess, seat: int) -> None:
        self.process = process
        self.seat = seat

    def choose(self, info: SeatInfo) -> Action:
        action = self.process.decide(info, optional=False)
        if action is None:
            raise BadReply("null action where the seat must act")
        return action

    def game_over(self, info: SeatInfo) -> None:
        self.process.send(
            {
                "type": "over",
                "seat": info.seat,
                "view": info.view.to_json(),
                "knowledge": dict(info.knowledge),
                "events": events_json(info),
            }
        )


class ReactiveCommandBot(CommandBot):
    """A program that said ``"react": true`` in its hello reply: it is offered out-of-turn taps."""

    def react(self, info: SeatInfo) -> Action | None:
        return self.process.decide(info, optional=True)


class BotProcess:
    """A running bot program: JSON lines out on its stdin, replies in from its stdout.

    A reader thread queues the replies, so a wait can time out.  A timed-out request is answered
    by the guard; the program's late answer to it is recognised (by ``id``, or by order when the
    reply has none) and dropped.
    """

    def __init__(self, argv: list[str], *, timeout: float, name: str) -> None:
        self.name = name
        self.timeout = timeout
        self.next_id = 0
        self.late = 0  # replies still owed to requests that timed out
        self.silent = 0  # consecutive timeouts
        # Closed in close(); a file, not a pipe, so a chatty program never blocks on stderr.
        self.stderr: IO[str] = tempfile.TemporaryFile("w+", encoding="utf-8")  # noqa: SIM115
        try:
            self.proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self.stderr,
                text=True,
                encoding="utf-8",
                bufsize=1,
            )
        except OSError as e:
            raise BotError(f"cannot start bot {name!r}: {e}") from e
        self.replies: queue.Queue[str | None] = queue.Queue()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        stdout = self.proc.stdout
        if stdout is None:  # never: the program was started with stdout=PIPE
            raise RuntimeError("the bot's stdout is not a pipe")
        for line in stdout:
            self.replies.put(line)
        self.replies.put(None)

    # -- messages
    def send(self, message: dict[str, Any]) -> None:
        stdin = self.proc.stdin
        if stdin is None:  # never: the program was started with stdin=PIPE
            raise RuntimeError("the bot's stdin is not a pipe")
        try:
            stdin.write(json.dumps(message, separators=(",", ":")) + "\n")
            stdin.flush()
        except (BrokenPipeError, ValueError, OSError):
            raise self._died() from None

    def hello(self, message: dict[str, Any]) -> dict[str, Any]:
        """Announce a new game; the program answers with an object (its ``name``, ``react``)."""
        try:
            return self.request(message, max(self.timeout, HELLO_TIMEOUT))
        except BadReply as e:
            raise BotError(f"bot {self.name!r} did not answer hello properly: {e}") from e

    def decide(self, info: SeatInfo, *, optional: bool) -> Action | None:
        """Ask for a decision; ``None`` is a pass (allowed only when ``optional``)."""
        reply = self.request(
            {
                "type": "decide",
                "seat": info.seat,
                "optional": optional,
                "view": info.view.to_json(),
                "knowledge": dict(info.knowledge),
                "legal": [a.to_json() for a in info.legal],
                "sets": info.sets,
                "events": events_json(info),
            },
            self.timeout,
        )
        if "action" not in reply:
            raise BadReply(f"reply has no 'action': {_short(reply)}")
        raw = reply["action"]
        if raw is None:
            if optional:
                return None
            raise BadReply("null action where the seat must act")
        try:
            if isinstance(raw, str):
                return Action.from_text(f"{info.seat} {raw}")
            return Action.from_json(raw, player=info.seat)
        except ActionFormatError as e:
            raise BadReply(f"unreadable action {_short(raw)}: {e}") from e

    def request(self, message: dict[str, Any], timeout: float) -> dict[str, Any]:
        """Send ``message`` with a fresh ``id`` and wait for its reply (a JSON object)."""
        self.next_id += 1
        want = self.next_id
        self.send({**message, "id": want})
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self.replies.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                self.late += 1
                self.silent += 1
                if self.silent >= MAX_SILENT:
                    self.proc.kill()  # hung: nothing more to say to it
                    raise BotError(
                        f"bot {self.name!r} did not answer {MAX_SILENT} requests in a row "
                        f"within {timeout:g} s"
                    ) from None
                raise BadReply(f"no reply within {timeout:g} s") from None
            if line is None:
                raise self._died()
            try:
                reply = json.loads(line)
            except ValueError:
                reply = None
            got = reply.get("id") if isinstance(reply, dict) else None
            if (got is not None and got != want) or (got is None and self.late):
                # A late answer to an earlier request that timed out: drop it.
                if got is None:
                    self.late -= 1
                continue
            self.silent = 0
            if got == want:
                self.late = 0
            if not isinstance(reply, dict):
                raise BadReply(f"reply is not a JSON object: {_short(line.strip())}")
            return reply

    def _died(self) -> BotError:
        try:
            code = self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            code = None
        self.stderr.seek(0)
        tail = self.stderr.read()[-2000:].strip()
        said = f"; its stderr ends:\n{tail}" if tail else " (nothing on stderr)"
        return BotError(f"bot {self.name!r} stopped (exit code {code}){said}")

    def close(self) -> None:
        """Say ``bye``, end the program if it does not exit by itself, and release its pipes."""
        if self.proc.poll() is None:
            with contextlib.suppress(BotError):
                self.send({"type": "bye"})
        stdin = self.proc.stdin
        if stdin is not None:
            # A program that already exited leaves a broken pipe to flush.
            with contextlib.suppress(OSError):
                stdin.close()
        try:
            self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.reader.join(timeout=2)
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        self.stderr.close()


def events_json(info: SeatInfo) -> list[dict[str, Any]]:
    """The events of a ``decide`` or ``over`` message: what happened since the seat's last
    message, as the seat saw it."""
    return [e.to_json() for e in info.events]


def _short(value: object, limit: int = 120) -> str:
    text = value if isinstance(value, str) else json.dumps(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
