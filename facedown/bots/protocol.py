"""Bots from third parties: a Python class, or a program speaking JSON lines (``docs/bots.md``).

A tournament seat is filled by an *entrant*, named by a spec:

- a level name (``random``, ``hard``, ...), with options in brackets if wanted
  (``expert(budget_ms=20)``): :func:`level_bot`;
- ``module:Class``: a class implementing :class:`~facedown.bots.base.Bot`, constructed once per
  game (with ``seed=`` when its ``__init__`` takes a ``seed``);
- ``cmd:COMMAND``: a program started once per worker; it reads one JSON message a line on its
  standard input and answers on its standard output (``hello``, ``decide``, ``over``, ``bye``).

Every bot plays through a :class:`Guard`: an illegal action, an unreadable reply or a timeout is
replaced by a random legal action (or by no action, for an out-of-turn chance) and counted as a
fault.  A program that exits, or stops answering, ends the tournament with a :class:`BotError`.
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import json
import os
import queue
import random
import shlex
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from typing import IO, Any, Protocol, runtime_checkable

from ..engine import Action, ActionFormatError, Ruleset
from ..engine.actions import OPENING_PEEK, REPLACE
from .base import Bot, Reactive, SeatInfo

PROTOCOL_VERSION = 1
DEFAULT_TIMEOUT = 5.0  # seconds a program may take over one decision
HELLO_TIMEOUT = 20.0  # seconds a program may take to start and answer hello
MAX_SILENT = 3  # consecutive timeouts after which a program counts as hung
MAX_FAULT_NOTES = 5  # fault messages kept per bot, for the report


class BotError(RuntimeError):
    """A bot cannot go on: it could not be loaded, it exited, or it stopped answering."""


class BadReply(ValueError):
    """One reply could not be used (malformed, or too late): the guard plays instead."""


@runtime_checkable
class Listener(Protocol):
    """A bot that wants to see the end of each game: it is given the final view."""

    def game_over(self, info: SeatInfo) -> None: ...


# ---------------------------------------------------------------------------------- levels
def level_names() -> tuple[str, ...]:
    """The bot levels (``facedown.bots.LEVELS``)."""
    from .registry import LEVELS

    return LEVELS


def parse_level(spec: str) -> tuple[str, dict[str, Any]]:
    """A level spec's name and options: ``hard`` or ``expert(budget_ms=20, horizon_turns=null)``.

    Each value is read as JSON (numbers, ``true``, ``false``, ``null``, quoted strings); a bare
    word that is not JSON is taken as a string.
    """
    spec = spec.strip()
    name, paren, rest = spec.partition("(")
    name = name.strip()
    options: dict[str, Any] = {}
    if paren:
        if not rest.endswith(")"):
            raise BotError(f"bot {spec!r}: options must end with ')'")
        body = rest[:-1].strip()
        for item in split_commas(body)[0] if body else []:
            key, eq, raw = item.partition("=")
            key, raw = key.strip(), raw.strip()
            if not eq or not key.isidentifier() or not raw:
                raise BotError(f"bot {spec!r}: write each option as name=value, not {item!r}")
            if key in options:
                raise BotError(f"bot {spec!r}: option {key!r} given twice")
            try:
                options[key] = json.loads(raw)
            except ValueError:
                options[key] = raw
    if name not in level_names():
        raise BotError(
            f"unknown bot {spec!r}: give a level ({', '.join(level_names())}), "
            "module:Class or cmd:COMMAND"
        )
    return name, options


def split_commas(text: str) -> tuple[list[str], int]:
    """``text`` split at the commas outside brackets and quotes (``a=1, b=[1, 2], c="x,y"`` is
    three items), and how many brackets are left open at its end (negative: too many closed)."""
    items: list[str] = []
    depth = 0
    quoted = False
    start = 0
    for i, ch in enumerate(text):
        if ch == '"' and (i == 0 or text[i - 1] != "\\"):
            quoted = not quoted
        elif quoted:
            continue
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth < 0:
                return items, depth
        elif depth == 0 and ch == ",":
            items.append(text[start:i])
            start = i + 1
    items.append(text[start:])
    return items, depth


def level_bot(level: str, seed: int | None = None, **options: Any) -> Bot:
    """A bot of a named level (:func:`facedown.bots.make_bot`), with the level's ``options``."""
    from .registry import make_bot

    if level not in level_names():
        raise BotError(f"unknown bot level {level!r}; levels are {', '.join(level_names())}")
    try:
        return make_bot(level, seed=seed, **options)
    except TypeError as e:  # an option the level does not have
        raise BotError(f"bot {level!r}: {e}") from None


# ---------------------------------------------------------------------------------- guard
def _normal(action: Action) -> Action:
    """The form the engine lists: replace and opening-peek slots in ascending order."""
    if action.kind in (REPLACE, OPENING_PEEK):
        return action._replace(slots=tuple(sorted(action.slots)))
    return action


class Guard:
    """Plays what its bot chooses when it is legal; otherwise a random legal action, counted.

    A guard is what a tournament seats: ``faults`` counts the replies it had to replace and
    ``notes`` keeps the first few reasons.  Out-of-turn chances go to :class:`ReactiveGuard`.
    """

    def __init__(self, bot: Bot, seed: int) -> None:
        self.bot = bot
        self.rng = random.Random(seed)
        self.faults = 0
        self.notes: list[str] = []

    def fault(self, reason: str) -> None:
        self.faults += 1
        if len(self.notes) < MAX_FAULT_NOTES:
            self.notes.append(reason)

    def choose(self, info: SeatInfo) -> Action:
        try:
            action = _normal(self.bot.choose(info))
        except BadReply as e:
            self.fault(str(e))
            return self.rng.choice(info.legal)
        if info.allows(action):
            return action
        self.fault(f"illegal action {action.text()!r}")
        return self.rng.choice(info.legal)

    def game_over(self, info: SeatInfo) -> None:
        if isinstance(self.bot, Listener):
            self.bot.game_over(info)


class ReactiveGuard(Guard):
    """A guard for a bot that may act out of turn: a bad out-of-turn reply means no action."""

    def react(self, info: SeatInfo) -> Action | None:
        bot = self.bot
        if not isinstance(bot, Reactive):
            raise TypeError(f"{type(bot).__name__} does not act out of turn")
        try:
            action = bot.react(info)
        except BadReply as e:
            self.fault(str(e))
            return None
        if action is None:
            return None
        action = _normal(action)
        if info.allows(action):
            return action
        self.fault(f"illegal out-of-turn action {action.text()!r}")
        return None


def guard(bot: Bot, seed: int) -> Guard:
    """The guard for ``bot``: reactive exactly when the bot is."""
    return ReactiveGuard(bot, seed) if isinstance(bot, Reactive) else Guard(bot, seed)


# ---------------------------------------------------------------------------------- entrants
class Entrant(Protocol):
    """What fills a seat in a tournament: it makes a fresh bot for each game."""

    spec: str

    def new_bot(self, *, seat: int, players: int, rules: Ruleset, seed: int, game: int) -> Bot: ...

    def close(self) -> None: ...


class LevelEntrant:
    """A built-in level, a new bot for every game."""

    def __init__(self, spec: str) -> None:
        self.spec = spec
        self.level, self.options = parse_level(spec)
        level_bot(self.level, 0, **self.options)  # options the level lacks fail here, at once

    def new_bot(self, *, seat: int, players: int, rules: Ruleset, seed: int, game: int) -> Bot:
        return level_bot(self.level, seed, **self.options)

    def close(self) -> None:
        pass


class ClassEntrant:
    """A Python class named ``module:Class``, constructed once per game."""

    def __init__(self, spec: str) -> None:
        self.spec = spec
        self.factory = load_class(spec)
        try:
            self.takes_seed = "seed" in inspect.signature(self.factory).parameters
        except (TypeError, ValueError):
            self.takes_seed = False

    def new_bot(self, *, seat: int, players: int, rules: Ruleset, seed: int, game: int) -> Bot:
        bot: Bot = self.factory(seed=seed) if self.takes_seed else self.factory()
        return bot

    def close(self) -> None:
        pass


def load_class(spec: str) -> Callable[..., Bot]:
    """Import ``module:Class`` (the working directory is on the import path, as for pytest)."""
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise BotError(f"a bot class is named module:Class, not {spec!r}")
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except ImportError as e:
        raise BotError(f"cannot import {module_name!r} for bot {spec!r}: {e}") from e
    factory = getattr(module, attr, None)
    if factory is None:
        raise BotError(f"module {module_name!r} has no {attr!r} (bot {spec!r})")
    if not callable(getattr(factory, "choose", None)):
        raise BotError(f"{spec!r} has no choose(info) method: it is not a bot")
    result: Callable[..., Bot] = factory
    return result


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


def make_entrant(spec: str, timeout: float = DEFAULT_TIMEOUT) -> Entrant:
    """The entrant a spec names: ``cmd:COMMAND``, ``module:Class`` or a level name."""
    spec = spec.strip()
    if spec.startswith("cmd:"):
        return CommandEntrant(spec, timeout)
    if ":" in spec and "(" not in spec:
        return ClassEntrant(spec)
    return LevelEntrant(spec)


# ---------------------------------------------------------------------------------- programs
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


def _short(value: object, limit: int = 120) -> str:
    text = value if isinstance(value, str) else json.dumps(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
