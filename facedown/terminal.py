"""A terminal game: you at seat 0 against bots.

Who is asked to act is the engine's arbiter's answer (:meth:`Game.awaiting`): you, when the game
waits for you; otherwise the bot it waits for, but first, whenever a new card lies on the
discard pile and the rules let you TAP, you are offered the tap.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from .bots import make_bot, seat_info
from .engine import Action, Game, IllegalAction, SeenEvent, find_preset, observe, seen_event

Reader = Callable[[str], str]
YOU = 0


def describe(game: Game, event: SeenEvent, seat: int) -> str | None:
    """One line of what happened, as ``seat`` sees it."""
    who = "You" if event.by == seat else f"Seat {event.by}"
    cards = ", ".join(c or "?" for c in event.cards)
    seen = ", ".join(c or "?" for c in event.seen)
    slots = " ".join(str(s) for s in event.slots)
    result = event.result
    lines = {
        "round_started": f"Round {event.round} starts.",
        "opening_peeked": f"{who} looked at cards {slots}" + (f": {seen}" if seen else "."),
        "play_started": f"Play starts with seat {event.by}.",
        "turn_started": f"{who}: your turn." if event.by == seat else None,
        "drew": f"{who} drew" + (f" {seen}." if seen else "."),
        "took_discard": f"{who} took the discard {cards}.",
        "undid": f"{who} put {cards} back.",
        "replaced": f"{who} replaced slot(s) {slots}; discarded {cards}.",
        "set_failed": f"{who} tried a set at {slots}: {cards} — not a set.",
        "kept": f"{who} keeps the card as an extra card.",
        "discarded": f"{who} discarded {cards}.",
        "peeked": f"{who} peeked at slot {slots}" + (f": {seen}." if seen else "."),
        "spied": f"{who} spied on seat {event.target} slot {event.target_slot}"
        + (f": {seen}." if seen else "."),
        "swapped": f"{who} swapped slot {slots} with seat {event.target} slot {event.target_slot}.",
        "skipped": f"{who} skipped the power.",
        "called": f"{who} called {game.rules.call_name}!",
        "tap_hit": f"{who} tapped {cards}: hit.",
        "tap_missed": f"{who} tapped {cards}: miss, penalty card.",
        "penalty": None,
        "passed": f"{who} cannot move and passes.",
        "reshuffled": "The discard pile is shuffled into a new draw pile.",
        "round_over": None
        if result is None
        else f"Round over. Hands {[list(h) for h in result.hands]}; scores "
        f"{list(result.round_scores)}; totals {list(result.totals)}.",
        "match_over": f"Match over. Winners: {list(event.winners)}.",
    }
    return lines.get(event.type)


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
        write(f"   {i:>2}) {a.text().split(' ', 1)[1]}")
    while True:
        try:
            answer = read("> ").strip()
        except EOFError:
            return _QUIT
        if answer in ("q", "quit"):
            return _QUIT
        if answer.isdigit() and int(answer) < len(legal) + first:
            index = int(answer) - first
            return legal[index] if index >= 0 else None
        write("Pick one of the numbers above.")


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
