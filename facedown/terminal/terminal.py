"""A terminal game: you (seat 0 to the engine, "you" on the screen) against bots.

A card face shown to you alone (your opening look, a card you draw, a peek, a spy) is on the
screen only for its moment, as at a real table: once the table moves on, you are asked to press
Enter, the screen and its scrollback are cleared and the board is drawn again without it, under
the round's public log so far.  Remembering is the game.  Enter is asked for only when a face
came and went without a prompt in between (your opening look, the card a peek showed you as your
turn ended): a face you had in front of you while you chose your move (the card you drew, then
put in place of one of yours), or one that went public, is cleared without asking, so your own
turn goes on uninterrupted.  With Recollection (``recollection=True``, ``facedown play
--recollection``) nothing is cleared and the board marks every card you know with ``*``.

``q`` asks before it leaves.  While a bot plays, each new discard offers you a TAP (Boyo):
Enter lets play go on, ``a`` lets it go on without further offers until your turn.

The board and the reveal are Rich tables (:mod:`facedown.terminal.terminal_board`); the menu groups
the actions that name cards into one line each (:mod:`facedown.terminal.terminal_menu`).

Who is asked to act is the engine's arbiter's answer (:meth:`Game.awaiting`): you, when the game
waits for you; otherwise the bot it waits for, but first, whenever a new card lies on the
discard pile and the rules let you TAP, you are offered the tap.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from rich.console import RenderableType

from ..bots import Bot, EventFeed, make_bot, reads_events
from ..engine import Action, Game, IllegalAction, Phase, SeenEvent, find_preset, observe, seen_event
from .terminal_board import (
    board,
    cards_at,
    face,
    reveal,
    round_name,
    slot_name,
    to_text,
    totals_line,
    winners_line,
)
from .terminal_menu import Entry, menu, read_answer

Reader = Callable[[str], str]
Writer = Callable[[str], None]
YOU = 0
# Cursor home, clear the screen, clear the scrollback (xterm and its kin): the private face is
# gone from the terminal, not just scrolled away.
CLEAR = "\x1b[H\x1b[2J\x1b[3J"
ACK_PROMPT = "Press Enter once you have it in mind (the screen is then cleared) > "
LEAVE_PROMPT = "Leave the match? y (or q again) leaves, Enter plays on > "
UNTIL_YOUR_TURN = "a"  # let play go on, offering no TAP, until your turn
# The lines that print a face shown to the seat alone (the others print none, whatever they hold).
SHOWS_SEEN = ("opening_peeked", "drew", "peeked", "spied")
LOG_SHOWN = 12  # lines of the round's public log written again after a clear


def describe(game: Game, event: SeenEvent, seat: int) -> RenderableType | None:
    """What happened, as ``seat`` sees it: one line, or the reveal's table."""
    if event.type == "round_over":
        return None if event.result is None else reveal(event.result, game.rules, seat)
    if event.type == "match_over":
        return winners_line(event.winners, observe(game, seat).view.totals, seat)
    who = "You" if event.by == seat else f"Seat {event.by}"
    cards = ", ".join(face(c) for c in event.cards)
    seen = ", ".join(face(c) for c in event.seen)
    slots = cards_at(event.slots)
    owner = "your" if event.target == seat else f"seat {event.target}'s"
    their = f"{owner} card {slot_name(event.target_slot or 0)}"
    own = "your" if event.by == seat else "their"
    started = f"{round_name(event.round or 1, game.rules)} starts."
    if (event.round or 1) > 1:
        started += " " + totals_line(observe(game, seat).view.totals, game.rules, seat)
    lines: dict[str, RenderableType | None] = {
        "round_started": started,
        "opening_peeked": f"{who} looked at {slots}" + (f": {seen}." if seen else "."),
        "play_started": f"Play starts with {'you' if event.by == seat else f'seat {event.by}'}.",
        "turn_started": "Your turn." if event.by == seat else None,
        "drew": f"{who} drew" + (f" {seen}." if seen else "."),
        "took_discard": f"{who} took the {cards} from the discard pile.",
        "undid": f"{who} put the {cards} back.",
        "replaced": f"{who} replaced {slots}; the {cards} went onto the discard pile.",
        "set_failed": f"{who} tried {slots} as a set: {cards}, not alike.",
        "kept": f"{who} keeps the card as an extra card.",
        "discarded": f"{who} discarded the {cards}.",
        "peeked": f"{who} peeked at {slots}" + (f": {seen}." if seen else "."),
        "spied": f"{who} spied on {their}" + (f": {seen}." if seen else "."),
        "swapped": f"{who} swapped {own} {slots} with {their}, unseen.",
        "skipped": f"{who} skipped the power.",
        "called": f"{who} called {game.rules.call_name}!",
        "tap_hit": f"{who} tapped the {cards}: a match.",
        "tap_missed": f"{who} tapped the {cards}: no match, a penalty card.",
        "penalty": None,
        "passed": f"{who} cannot move and passes.",
        "reshuffled": "The discard pile is shuffled into a new draw pile.",
    }
    return lines.get(event.type)


def secrets(event: SeenEvent, seat: int) -> set[str]:
    """The places (``"owner:slot"``, or ``"held"``) whose faces a line about ``event`` shows
    ``seat`` alone."""
    if event.by != seat or not event.seen or event.type not in SHOWS_SEEN:
        return set()
    if event.type == "drew":
        return {"held"}
    if event.type == "spied":
        return {f"{event.target}:{event.target_slot}"}
    return {f"{seat}:{s}" for s in event.slots}


def public_line(game: Game, event: SeenEvent, seat: int) -> str | None:
    """The line about ``event`` without any face shown to ``seat`` alone (for the log that is
    written again after a clear)."""
    if secrets(event, seat):
        event = replace(event, seen=())
    line = describe(game, event, seat)
    return line if isinstance(line, str) else None


def went_public(event: SeenEvent, seat: int) -> set[str]:
    """The places whose private face ``event`` made public: the card you drew, discarded."""
    if event.by == seat and event.type in ("discarded", "undid"):
        return {"held"}
    return set()


def private_now(game: Game, seat: int) -> set[str]:
    """The places whose faces ``seat`` alone is being shown right now."""
    v = observe(game, seat).view
    now = set(v.shown) if game.shown is not None and game.shown[0] == seat else set()
    if v.holding and v.held is not None and not game.held_from_discard:
        now.add("held")
    return now


@dataclass
class Session:
    """One terminal match: the game, the bots, the screen and what on it is private."""

    game: Game
    others: dict[int, Bot]
    read: Reader
    write: Writer
    clear: Callable[[], None]
    header: str
    width: int = 80
    color: bool = False
    on_screen: set[str] = field(default_factory=set)  # private places shown since the clear
    offered: int = -1  # the discard pile's top card when you were last offered a tap
    reveal_shown: bool = False  # the round's reveal is on the screen (not cleared away)
    log: list[str] = field(default_factory=list)  # this round's lines, no private face in them
    public: set[str] = field(default_factory=set)  # private places whose face went public
    prompted: set[str] = field(default_factory=set)  # private places on screen at a prompt
    passing: bool = False  # the player passes every TAP offer until their turn
    feed: EventFeed = field(default_factory=EventFeed)  # what each bot has not been told yet

    def run(self) -> int:
        self.write(self.header)
        self.write(
            "Type what a line of the menu starts with (a number, or a letter and card "
            "numbers), or q to leave."
        )
        while not self.game.is_match_over:
            answer = self._next()
            if answer is _QUIT:
                return 0
            if answer is not None:
                self._apply(answer)
                if not self._forget():
                    return 0
        return 0

    def show(self, shown: RenderableType) -> None:
        self.write(
            shown if isinstance(shown, str) else to_text(shown, width=self.width, color=self.color)
        )

    def _next(self) -> Action | None:
        game = self.game
        waiting = game.awaiting()
        if waiting.must(YOU):  # at the reveal any seat may deal on: you, once you have read it
            self.passing = False
            return self._ask(list(game.legal_actions(YOU)))
        bot_seat = waiting.first
        if bot_seat is None:  # never: the match is not over, so someone must act
            raise RuntimeError("no seat may act")
        if YOU in waiting.may_tap and game.top_discard != self.offered and not self.passing:
            self.offered = game.top_discard
            answer = self._ask(list(game.legal_actions(YOU)), wait=f"let seat {bot_seat} play on")
            if answer is not None:
                return answer
        return self.others[bot_seat].choose(self.feed.info(game, bot_seat))

    def _ask(self, legal: list[Action], wait: str = "") -> Action | None:
        """Draw the board and the menu for ``legal`` and read one answer (with ``wait``, the
        answer may be to let play go on: None)."""
        game = self.game
        self.on_screen |= private_now(game, YOU)
        view = observe(game, YOU).view
        if view.phase is not Phase.ROUND_OVER:
            self.show(board(view, game.rules, YOU, width=self.width, color=self.color))
        elif not self.reveal_shown and view.last_round is not None:  # cleared away: again
            self.show(reveal(view.last_round, game.rules, YOU))
            self.reveal_shown = True
        sets = game.set_size(YOU)
        held = view.held if view.holding else None
        entries = menu(game, legal, held=held, sets=sets, held_powers=view.held_powers, wait=wait)
        if wait:
            entries.insert(
                1, Entry(UNTIL_YOUR_TURN, "let play go on until your turn, no TAP offers")
            )
        self.write("What will you do?")
        for entry in entries:
            self.write(entry.line())
        self.prompted |= self.on_screen  # the player has these in front of them as they choose
        return self._read(entries, wait, sets)

    def _read(self, entries: list[Entry], wait: str, sets: int) -> Action | None:
        """Read answers to the menu ``entries`` until one is an action (or None: play on)."""
        while True:
            try:
                answer = self.read("> ").strip()
            except EOFError:
                return _QUIT
            if answer.lower() in ("q", "quit"):
                if self._leave():
                    return _QUIT
                self.write("Playing on: type one of the choices above.")
                continue
            if wait and answer.lower() == UNTIL_YOUR_TURN:
                self.passing = True
                return None
            chosen = read_answer(self.game, entries, answer, YOU, sets)
            if not isinstance(chosen, str):
                return chosen
            self.write(chosen)

    def _apply(self, action: Action) -> None:
        game = self.game
        try:
            events = game.apply(action)
        except IllegalAction as e:
            self.write(f"Refused: {e}")
            return
        self.feed.add(events, [s for s, bot in self.others.items() if reads_events(bot)])
        for event in events:
            seen = seen_event(event, game.deck, YOU)
            line = describe(game, seen, YOU)
            if seen.type in ("round_over", "round_started"):
                self.reveal_shown = seen.type == "round_over"
                self.log = []
            if line:
                self.show(line)
                self.on_screen |= secrets(seen, YOU)
            self.public |= went_public(seen, YOU) & self.on_screen
            logged = public_line(game, seen, YOU)
            if logged:
                self.log.append(logged)

    def _leave(self) -> bool:
        """Whether the player, having typed q, confirms they leave the match."""
        try:
            answer = self.read(LEAVE_PROMPT).strip().lower()
        except EOFError:
            return True
        return answer in ("y", "yes", "q", "quit")

    def _forget(self) -> bool:
        """Once a private face's moment is over, the player says so and the screen is cleared
        (never with Recollection); faces that went public meanwhile are cleared without asking.
        False: the player quit instead."""
        stale = self.on_screen - private_now(self.game, YOU)
        if self.game.rules.recollection or not stale:
            return True
        if stale - self.public - self.prompted:  # shown and gone with no prompt between
            try:
                answer = self.read(ACK_PROMPT).strip()
            except EOFError:
                return False
            if answer in ("q", "quit") and self._leave():
                return False
        self.clear()
        self.on_screen = set()
        self.public = set()
        self.prompted = set()
        self.reveal_shown = False
        self.write(self.header)
        self.write("(The screen was cleared: what you saw is yours to remember.)")
        if self.log:
            self.write("This round so far:")
            for line in self.log[-LOG_SHOWN:]:
                self.write(f"  {line}")
        return True  # the board is drawn again when you are next asked


def play(
    preset: str,
    *,
    players: int = 3,
    seed: int | None = None,
    bots: str = "random",
    recollection: bool = False,
    read: Reader = input,
    write: Writer = print,
    clear: Callable[[], None] | None = None,
    width: int = 80,
    color: bool = False,
) -> int:
    """Play one match in the terminal.  Returns the exit code.  ``clear`` wipes the screen
    (by default the terminal's clear-screen-and-scrollback codes, written with ``write``);
    the board is drawn ``width`` characters wide, in colour if ``color``."""
    rules = find_preset(preset)
    if recollection:
        rules = rules.with_options({"recollection": True})
    seed = random.randrange(1 << 30) if seed is None else seed
    game = Game(rules, players, seed)
    others = {s: make_bot(bots, seed + s) for s in range(1, players)}
    memory = ", Recollection on" if recollection else ""
    seats = {2: "seat 1", 3: "seats 1 and 2"}.get(players, f"seats 1 to {players - 1}")
    match = f"{rules.rounds} rounds" if rules.rounds else f"to {rules.score_limit} points"
    header = (
        f"Facedown: {preset}, {match}: you against {players - 1} {bots} "
        f"bot{'s' if players > 2 else ''} ({seats}; seed {seed}{memory})."
    )
    wipe = clear if clear is not None else (lambda: write(CLEAR))
    session = Session(game, others, read, write, wipe, header, width=width, color=color)
    return session.run()


_QUIT = Action(-1, "quit")
