"""A terminal game: you at seat 0 against bots.

A card face shown to you alone (your opening look, a card you draw, a peek, a spy) is on the
screen only for its moment, as at a real table: once the table moves on, you are asked to press
Enter, the screen and its scrollback are cleared and the board is drawn again without it.
Remembering is the game.  With Recollection (``recollection=True``, ``facedown play
--recollection``) nothing is cleared and the board marks every card you know with ``*``.

Who is asked to act is the engine's arbiter's answer (:meth:`Game.awaiting`): you, when the game
waits for you; otherwise the bot it waits for, but first, whenever a new card lies on the
discard pile and the rules let you TAP, you are offered the tap.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

from .bots import Bot, make_bot, seat_info
from .engine import (
    Action,
    Game,
    IllegalAction,
    Reveal,
    SeenEvent,
    find_preset,
    observe,
    seen_event,
)

Reader = Callable[[str], str]
Writer = Callable[[str], None]
YOU = 0
# Cursor home, clear the screen, clear the scrollback (xterm and its kin): the private face is
# gone from the terminal, not just scrolled away.
CLEAR = "\x1b[H\x1b[2J\x1b[3J"
ACK_PROMPT = "Press Enter once you have it in mind (the screen is then cleared) > "


def describe(game: Game, event: SeenEvent, seat: int) -> str | None:
    """One line of what happened, as ``seat`` sees it."""
    who = "You" if event.by == seat else f"Seat {event.by}"
    cards = ", ".join(c or "?" for c in event.cards)
    seen = ", ".join(c or "?" for c in event.seen)
    result = event.result
    lines = {
        "round_started": f"Round {event.round} starts.",
        "opening_peeked": f"{who} looked at {_cards_at(event.slots)}"
        + (f": {seen}." if seen else "."),
        "play_started": f"Play starts with seat {event.by}.",
        "turn_started": f"{who}: your turn." if event.by == seat else None,
        "drew": f"{who} drew" + (f" {seen}." if seen else "."),
        "took_discard": f"{who} took the discard {cards}.",
        "undid": f"{who} put {cards} back.",
        "replaced": f"{who} replaced {_cards_at(event.slots)}; discarded {cards}.",
        "set_failed": f"{who} tried {_cards_at(event.slots)} as a set: {cards} — not a set.",
        "kept": f"{who} keeps the card as an extra card.",
        "discarded": f"{who} discarded {cards}.",
        "peeked": f"{who} peeked at {_cards_at(event.slots)}" + (f": {seen}." if seen else "."),
        "spied": f"{who} spied on seat {event.target}'s card {event.target_slot}"
        + (f": {seen}." if seen else "."),
        "swapped": f"{who} swapped {_cards_at(event.slots)} with seat {event.target}'s card "
        f"{event.target_slot}, unseen.",
        "skipped": f"{who} skipped the power.",
        "called": f"{who} called {game.rules.call_name}!",
        "tap_hit": f"{who} tapped {cards}: hit.",
        "tap_missed": f"{who} tapped {cards}: miss, penalty card.",
        "penalty": None,
        "passed": f"{who} cannot move and passes.",
        "reshuffled": "The discard pile is shuffled into a new draw pile.",
        "round_over": None if result is None else _reveal(result, seat),
        "match_over": _winners(event.winners, seat),
    }
    return lines.get(event.type)


def _cards_at(slots: tuple[int, ...]) -> str:
    if not slots:
        return "no card"
    if len(slots) == 1:
        return f"card {slots[0]}"
    return "cards " + ", ".join(str(s) for s in slots[:-1]) + f" and {slots[-1]}"


def _who(seat: int, me: int) -> str:
    return "you" if seat == me else f"seat {seat}"


def _reveal(result: Reveal, me: int) -> str:
    """The reveal as a small table: every hand, its total, the round's score and the total."""
    rows = ["Round over. The cards:"]
    width = max(len(_who(s, me)) for s in range(len(result.hands)))
    for seat, hand in enumerate(result.hands):
        cards = " ".join(c if c is not None else "-" for c in hand)
        mark = "  (called)" if result.caller == seat else ""
        rows.append(
            f"   {_who(seat, me):>{width}}: {cards:<20} hand {result.hand_totals[seat]:>3}, "
            f"scores {result.round_scores[seat]:>3}, total {result.totals[seat]:>3}{mark}"
        )
    return "\n".join(rows)


def _winners(winners: tuple[int, ...], me: int) -> str:
    names = [_who(s, me) for s in winners]
    if not names:
        return "Match over."
    if me in winners and len(winners) == 1:
        return "Match over: you win!"
    if len(names) == 1:
        return f"Match over: {names[0]} wins."
    return f"Match over: a draw between {', '.join(names[:-1])} and {names[-1]}."


def label(action: Action, game: Game) -> str:
    """An action in plain words, for the menu."""
    kind, slots = action.kind, action.slots
    top = game.top_discard
    words = {
        "opening_peek": f"look at your {_cards_at(slots)}",
        "draw": "draw a card from the deck",
        "take_discard": "take the discard" + (f" ({game.deck.names[top]})" if top >= 0 else ""),
        "undo": "put the discard back",
        "replace": f"put the card you hold in place of your {_cards_at(slots)}",
        "discard": "discard the card you hold",
        "peek": f"peek at your {_cards_at(slots)}",
        "spy": f"spy on seat {action.target}'s card {slots[0] if slots else ''}",
        "swap": f"swap your {_cards_at(slots)} with seat {action.target}'s card "
        f"{action.target_slot}",
        "skip": "skip the power",
        "end_turn": "end your turn",
        "call": f"call {game.rules.call_name}",
        "tap": f"tap your {_cards_at(slots)} (it matches the discard)",
        "next_round": "deal the next round",
    }
    return words.get(kind, action.text().split(" ", 1)[1])


def render(game: Game, seat: int) -> str:
    """The board as ``seat`` may see it now: the faces it is being shown, and (Recollection
    only) the cards it knows, marked ``*``."""
    v = observe(game, seat).view
    known = v.knowledge or {}
    rows = [
        f"-- round {v.round}, {v.phase}; draw {v.draw_size}, "
        f"discard top {v.top_discard}; totals {list(v.totals)}"
    ]
    for owner, hand in enumerate(v.hands):
        cells = []
        for slot, filled in enumerate(hand):
            shown = v.shown.get(f"{owner}:{slot}")
            remembered = known.get(f"{owner}:{slot}")
            if shown:
                cells.append(f"[{slot}:{shown}]")
            elif remembered and filled:
                cells.append(f"[{slot}:{remembered}*]")
            else:
                cells.append(f"[{slot}:??]" if filled else "[ ]")
        mark = "you" if owner == seat else f"seat {owner}"
        rows.append(f"   {mark:>7} {' '.join(cells)}")
    if v.holding and v.held:
        rows.append(f"   holding {v.held}" + (f", powers {list(v.powers)}" if v.powers else ""))
    return "\n".join(rows)


def secrets(event: SeenEvent, seat: int) -> set[str]:
    """The places (``"owner:slot"``, or ``"held"``) whose faces a line about ``event`` shows
    ``seat`` alone."""
    if event.by != seat or not event.seen:
        return set()
    if event.type == "drew":
        return {"held"}
    if event.type == "spied":
        return {f"{event.target}:{event.target_slot}"}
    return {f"{seat}:{s}" for s in event.slots}


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
    on_screen: set[str] = field(default_factory=set)  # private places shown since the clear
    offered: int = -1  # the discard pile's top card when you were last offered a tap

    def run(self) -> int:
        self.write(self.header)
        self.write("Type the number of an action, or q to quit.")
        while not self.game.is_match_over:
            answer = self._next()
            if answer is _QUIT:
                return 0
            if answer is not None:
                self._apply(answer)
                if not self._forget():
                    return 0
        return 0

    def _next(self) -> Action | None:
        game = self.game
        waiting = game.awaiting()
        if waiting.must(YOU):  # at the reveal any seat may deal on: you, once you have read it
            return self._ask(list(game.legal_actions(YOU)))
        bot_seat = waiting.first
        if bot_seat is None:  # never: the match is not over, so someone must act
            raise RuntimeError("no seat may act")
        if YOU in waiting.may_tap and game.top_discard != self.offered:
            self.offered = game.top_discard
            answer = self._ask(list(game.legal_actions(YOU)), wait=f"let seat {bot_seat} play on")
            if answer is not None:
                return answer
        return self.others[bot_seat].choose(seat_info(game, bot_seat))

    def _ask(self, legal: list[Action], wait: str = "") -> Action | None:
        self.on_screen |= private_now(self.game, YOU)
        return _ask(self.game, legal, self.read, self.write, wait)

    def _apply(self, action: Action) -> None:
        game = self.game
        try:
            events = game.apply(action)
        except IllegalAction as e:
            self.write(f"Refused: {e}")
            return
        for event in events:
            seen = seen_event(event, game.deck, YOU)
            line = describe(game, seen, YOU)
            if line:
                self.write(line)
                self.on_screen |= secrets(seen, YOU)

    def _forget(self) -> bool:
        """Once a private face's moment is over, the player says so and the screen is cleared
        (never with Recollection).  False: the player quit instead."""
        if self.game.rules.recollection or not self.on_screen - private_now(self.game, YOU):
            return True
        try:
            answer = self.read(ACK_PROMPT).strip()
        except EOFError:
            return False
        if answer in ("q", "quit"):
            return False
        self.clear()
        self.on_screen = set()
        self.write(self.header)
        self.write("(The screen was cleared: what you saw is yours to remember.)")
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
) -> int:
    """Play one match in the terminal.  Returns the exit code.  ``clear`` wipes the screen
    (by default the terminal's clear-screen-and-scrollback codes, written with ``write``)."""
    rules = find_preset(preset)
    if recollection:
        rules = rules.with_options({"recollection": True})
    seed = random.randrange(1 << 30) if seed is None else seed
    game = Game(rules, players, seed)
    others = {s: make_bot(bots, seed + s) for s in range(1, players)}
    memory = ", Recollection on" if recollection else ""
    header = (
        f"Facedown: {preset}, {players} players, you are seat 0 "
        f"(bots: {bots}; seed {seed}{memory})."
    )
    wipe = clear if clear is not None else (lambda: write(CLEAR))
    return Session(game, others, read, write, wipe, header).run()


_QUIT = Action(-1, "quit")


def _ask(
    game: Game, legal: list[Action], read: Reader, write: Writer, wait: str = ""
) -> Action | None:
    """Ask for one of ``legal`` (or, with ``wait``, for none: option 0 lets play go on)."""
    write(render(game, YOU))
    first = 1 if wait else 0
    if wait:
        write(f"   {0:>2}) {wait}")
    for i, a in enumerate(legal, start=first):
        write(f"   {i:>2}) {label(a, game)}")
    sets = game.set_size(YOU)
    if sets:
        write(f"    s) put it in place of 2 to {sets} of your cards at once (a set): s 0 2")
    while True:
        try:
            answer = read("> ").strip()
        except EOFError:
            return _QUIT
        if answer in ("q", "quit"):
            return _QUIT
        if sets and answer.startswith("s"):
            chosen = _set_answer(game, answer)
            if chosen is not None:
                return chosen
            write(f"A set is 2 to {sets} of your card numbers, e.g. s 0 2.")
            continue
        if answer.isdigit() and int(answer) < len(legal) + first:
            index = int(answer) - first
            return legal[index] if index >= 0 else None
        write("Pick one of the numbers above.")


def _set_answer(game: Game, answer: str) -> Action | None:
    words = answer[1:].split()
    if not words or not all(w.isdigit() for w in words):
        return None
    action = Action(YOU, "replace", tuple(int(w) for w in words))
    return action if game.is_legal(action) and len(action.slots) >= 2 else None
