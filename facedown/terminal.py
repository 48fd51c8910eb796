"""A terminal game: you at seat 0 against bots.

Who is asked to act is the engine's arbiter's answer (:meth:`Game.awaiting`): you, when the game
waits for you; otherwise the bot it waits for, but first, whenever a new card lies on the
discard pile and the rules let you TAP, you are offered the tap.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from .bots import make_bot, seat_info
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
YOU = 0


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
    v = observe(game, seat).view
    rows = [
        f"-- round {v.round}, {v.phase}; draw {v.draw_size}, "
        f"discard top {v.top_discard}; totals {list(v.totals)}"
    ]
    for owner, hand in enumerate(v.hands):
        cells = []
        for slot, filled in enumerate(hand):
            shown = v.shown.get(f"{owner}:{slot}")
            cells.append(f"[{slot}:{shown}]" if shown else (f"[{slot}:??]" if filled else "[ ]"))
        mark = "you" if owner == seat else f"seat {owner}"
        rows.append(f"   {mark:>7} {' '.join(cells)}")
    if v.holding and v.held:
        rows.append(f"   holding {v.held}" + (f", powers {list(v.powers)}" if v.powers else ""))
    return "\n".join(rows)


def play(
    preset: str,
    *,
    players: int = 3,
    seed: int | None = None,
    bots: str = "random",
    read: Reader = input,
    write: Callable[[str], None] = print,
) -> int:
    """Play one match in the terminal.  Returns the exit code."""
    rules = find_preset(preset)
    seed = random.randrange(1 << 30) if seed is None else seed
    game = Game(rules, players, seed)
    others = {s: make_bot(bots, seed + s) for s in range(1, players)}
    write(f"Facedown: {preset}, {players} players, you are seat 0 (bots: {bots}; seed {seed}).")
    write("Type the number of an action, or q to quit.")
    offered = -1  # the discard pile's top card when you were last offered a tap
    while not game.is_match_over:
        waiting = game.awaiting()
        if waiting.must(YOU):  # at the reveal any seat may deal on: you, once you have read it
            answer = _ask(game, list(game.legal_actions(YOU)), read, write)
        else:
            bot_seat = waiting.first
            if bot_seat is None:  # never: the match is not over, so someone must act
                raise RuntimeError("no seat may act")
            answer = None
            if YOU in waiting.may_tap and game.top_discard != offered:
                offered = game.top_discard
                taps = list(game.legal_actions(YOU))
                answer = _ask(game, taps, read, write, wait=f"let seat {bot_seat} play on")
            if answer is None:
                answer = others[bot_seat].choose(seat_info(game, bot_seat))
        if answer is _QUIT:
            return 0
        if answer is not None:
            _apply(game, answer, write)
    return 0


_QUIT = Action(-1, "quit")


def _ask(
    game: Game, legal: list[Action], read: Reader, write: Callable[[str], None], wait: str = ""
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


def _apply(game: Game, action: Action, write: Callable[[str], None]) -> None:
    try:
        events = game.apply(action)
    except IllegalAction as e:
        write(f"Refused: {e}")
        return
    for event in events:
        line = describe(game, seen_event(event, game.deck, YOU), YOU)
        if line:
            write(line)
