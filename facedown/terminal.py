"""A terminal game: you at seat 0 against bots, until the server and web client take over."""

from __future__ import annotations

import random
from collections.abc import Callable

from .bots import make_bot, seat_info
from .engine import Action, Game, IllegalAction, find_preset, view
from .engine.events import Event
from .engine.game import ROUND_OVER

Reader = Callable[[str], str]


def describe(game: Game, event: Event, seat: int) -> str | None:
    """One line of what happened, as ``seat`` may see it."""
    data = event.to_json(game.deck, seat)
    who = "You" if event.player == seat else f"Seat {event.player}"
    kind = data["type"]
    cards = ", ".join(data.get("cards", []))
    seen = ", ".join(data.get("seen", []))
    slots = " ".join(str(s) for s in data.get("slots", []))
    lines = {
        "round_started": f"Round {data.get('round')} starts.",
        "opening_peeked": f"{who} looked at cards {slots}" + (f": {seen}" if seen else "."),
        "play_started": f"Play starts with seat {event.player}.",
        "turn_started": f"{who}: your turn." if event.player == seat else None,
        "drew": f"{who} drew" + (f" {seen}." if seen else "."),
        "took_discard": f"{who} took the discard {cards}.",
        "undid": f"{who} put {cards} back.",
        "replaced": f"{who} replaced slot(s) {slots}; discarded {cards}.",
        "set_failed": f"{who} tried a set at {slots}: {cards} — not a set.",
        "kept": f"{who} keeps the card as an extra card.",
        "discarded": f"{who} discarded {cards}.",
        "peeked": f"{who} peeked at slot {slots}" + (f": {seen}." if seen else "."),
        "spied": f"{who} spied on seat {data.get('target')} slot {data.get('target_slot')}"
        + (f": {seen}." if seen else "."),
        "swapped": f"{who} swapped slot {slots} with seat {data.get('target')} slot "
        f"{data.get('target_slot')}.",
        "skipped": f"{who} skipped the power.",
        "called": f"{who} called {game.rules.call_name}!",
        "tap_hit": f"{who} tapped {cards}: hit.",
        "tap_missed": f"{who} tapped {cards}: miss, penalty card.",
        "penalty": None,
        "passed": f"{who} cannot move and passes.",
        "reshuffled": "The discard pile is shuffled into a new draw pile.",
        "round_over": f"Round over. Hands {data.get('hands')}; scores {data.get('round_scores')};"
        f" totals {data.get('totals')}.",
        "match_over": f"Match over. Winners: {data.get('winners')}.",
    }
    return lines.get(kind)


def render(game: Game, seat: int) -> str:
    v = view(game, seat)
    rows = [
        f"-- round {v['round']}, {v['phase']}; draw {v['draw_size']}, "
        f"discard top {v['top_discard']}; totals {v['totals']}"
    ]
    for owner, hand in enumerate(v["hands"]):
        cells = []
        for slot, filled in enumerate(hand):
            shown = v.get("shown", {}).get(f"{owner}:{slot}")
            cells.append(f"[{slot}:{shown}]" if shown else (f"[{slot}:??]" if filled else "[ ]"))
        mark = "you" if owner == seat else f"seat {owner}"
        rows.append(f"   {mark:>7} {' '.join(cells)}")
    if v.get("held"):
        rows.append(
            f"   holding {v['held']}" + (f", powers {v['powers']}" if v.get("powers") else "")
        )
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
    while not game.is_match_over:
        for s, bot in others.items():
            legal = game.legal_actions(s)
            if legal and (game.phase == ROUND_OVER or game.to_act == s or game.to_act is None):
                _apply(game, bot.choose(seat_info(game, s)), write)
                break
        else:
            legal = game.legal_actions(0)
            if not legal:
                continue
            write(render(game, 0))
            for i, a in enumerate(legal):
                write(f"   {i:>2}) {a.text().split(' ', 1)[1]}")
            try:
                answer = read("> ").strip()
            except EOFError:
                return 0
            if answer in ("q", "quit"):
                return 0
            if not answer.isdigit() or int(answer) >= len(legal):
                write("Pick one of the numbers above.")
                continue
            _apply(game, legal[int(answer)], write)
    return 0


def _apply(game: Game, action: Action, write: Callable[[str], None]) -> None:
    try:
        events = game.apply(action)
    except IllegalAction as e:
        write(f"Refused: {e}")
        return
    for event in events:
        line = describe(game, event, 0)
        if line:
            write(line)
