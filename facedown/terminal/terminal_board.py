"""What the terminal game draws: the board and the reveal as Rich tables, and the words for
cards, powers and seats.

The board is one seat's :class:`~facedown.engine.View` and nothing else: a row per seat, a
column per card place (numbered from 1, as the menu and the lines of play number them), the
seat's match total; above it whose turn it is, below it the piles and the card in hand with
what it is worth and what its power does.  A face is drawn only while the view shows it
(``shown``) or, with Recollection, while the seat knows it (``knowledge``, marked ``*``).
"""

from __future__ import annotations

import io

from rich import box
from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

from ..engine import Phase, Reveal, Ruleset, View, place

FACE_DOWN = "??"
EMPTY_PLACE = "-"
YOU_NAME = "you"

POWER_WORDS = {
    "peek": "look at one of your own cards",
    "spy": "look at one card of another player",
    "swap": "trade one of your cards for another player's, both unseen",
}

REASON_WORDS = {
    "lowest_scores_zero": "lowest hand: 0",
    "caller_lowest": "called and lowest: 0",
    "call_penalty": "called, not lowest: +{n}",
    "call_multiplied": "called, not lowest: x{n}",
    "shot_the_moon": "shot the moon: 0",
    "moon_against": "someone shot the moon: {n}",
    "hundred_reset": "exactly 100: back to {n}",
}


SUITS = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}
RANKS = {"A", "J", "Q", "K", *(str(n) for n in range(2, 11))}


def face(name: str | None) -> str:
    """A card's face as it is printed: ``Q\u2665`` for the standard deck's QH, ``Joker``,
    ``12`` on the 0-13 deck; ``?`` for none."""
    if name is None:
        return "?"
    if name == "JK":
        return "Joker"
    if name[-1:] in SUITS and name[:-1] in RANKS:
        return name[:-1] + SUITS[name[-1]]
    return name


def seat_name(seat: int, me: int) -> str:
    """``you`` or ``seat N`` (the seat numbers the menu asks for)."""
    return YOU_NAME if seat == me else f"seat {seat}"


def slot_name(slot: int) -> str:
    """A card place as people count it: the first card is card 1."""
    return str(slot + 1)


def cards_at(slots: tuple[int, ...]) -> str:
    """``card 2`` or ``cards 1, 3 and 4``."""
    if not slots:
        return "no card"
    if len(slots) == 1:
        return f"card {slot_name(slots[0])}"
    names = [slot_name(s) for s in slots]
    return "cards " + ", ".join(names[:-1]) + f" and {names[-1]}"


def plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def power_line(power: str) -> str:
    """``peek, look at one of your own cards``."""
    return f"{power}, {POWER_WORDS.get(power, power)}"


def holding_lines(view: View, rules: Ruleset, me: int) -> list[str]:
    """The card in hand, whose it is, what it is worth and what its power does (and, for the
    seat to play, the powers it may use now)."""
    if view.to_act is None:
        return []
    mine = view.to_act == me
    lines = []
    if view.holding and view.held is not None:
        words = "You hold" if mine else f"{seat_name(view.to_act, me).capitalize()} holds"
        words += f" {face(view.held)}"
        if view.phase is Phase.TAKEN:
            words += ", taken from the discard pile"
        if view.held_value is not None:
            words += f", worth {view.held_value}"
        lines.append(words + ("." if view.held_powers or not mine else "; it gives no power."))
    if mine and view.powers:
        lines += [f"Power now: {power_line(p)}." for p in view.powers]
    elif mine and view.holding and view.held_powers:
        if rules.power_timing == "discard":
            lines += [f"Discard it for its power: {power_line(p)}." for p in view.held_powers]
        else:
            used = ", ".join(view.held_powers)
            lines.append(f"Its power ({used}) is used.")
    return lines


def round_name(number: int, rules: Ruleset) -> str:
    """``Round 2 of 3`` where the match has a fixed number of rounds, else ``Round 2``."""
    return f"Round {number} of {rules.rounds}" if rules.rounds else f"Round {number}"


def totals_line(totals: tuple[int, ...], rules: Ruleset, me: int) -> str:
    """The match totals so far, yours first: ``Totals: you 7, seat 1 12.``, with the score
    that ends the match where there is one."""
    order = [me, *(s for s in range(len(totals)) if s != me)]
    line = "Totals: " + ", ".join(f"{seat_name(s, me)} {totals[s]}" for s in order) + "."
    if rules.score_limit:
        line += f" The match ends when someone reaches {rules.score_limit}."
    return line


def _status(view: View, me: int, call_name: str, rules: Ruleset | None = None) -> str:
    phase = view.phase
    if phase is Phase.OPENING:
        status = "the opening look: everyone looks at their own cards"
    elif phase is Phase.ROUND_OVER:
        status = "the round is over"
    elif phase is Phase.MATCH_OVER:
        status = "the match is over"
    elif view.to_act == me:
        status = "your turn"
    else:
        status = f"{seat_name(view.to_act or 0, me)}'s turn"
    playing = phase not in (Phase.OPENING, Phase.ROUND_OVER, Phase.MATCH_OVER)
    if playing and view.caller is not None and view.final_turns_left is not None:
        status += (
            f"; {seat_name(view.caller, me)} called {call_name}: "
            f"{plural(view.final_turns_left, 'final turn', 'final turns')} left"
        )
    label = round_name(view.round, rules) if rules is not None else f"Round {view.round}"
    return f"{label}: {status}"


def _cell(view: View, owner: int, slot: int, filled: bool, color: bool) -> Text:
    if not filled:
        return Text(EMPTY_PLACE, style="dim" if color else "")
    shown = view.shown.get(place(owner, slot))
    if shown:
        return Text(face(shown), style="bold yellow" if color else "")
    remembered = (view.knowledge or {}).get(place(owner, slot))
    if remembered:
        return Text(f"{face(remembered)}*", style="cyan" if color else "")
    return Text(FACE_DOWN, style="dim" if color else "")


def board(
    view: View, rules: Ruleset, me: int, *, width: int = 80, color: bool = False
) -> RenderableType:
    """The table as ``me`` may see it now (``>`` marks the seat to play)."""
    places = max((len(hand) for hand in view.hands), default=0)
    grid = Table(box=box.SQUARE, header_style="bold" if color else "")
    grid.add_column("seat", no_wrap=True)
    short = 18 + 9 * places + 8 > width  # "card 1" headers would not fit: "1"
    for slot in range(places):
        name = slot_name(slot) if short else f"card {slot_name(slot)}"
        grid.add_column(name, justify="center", no_wrap=True)
    grid.add_column("total", justify="right", no_wrap=True)
    for owner, hand in enumerate(view.hands):
        playing = view.phase not in (Phase.ROUND_OVER, Phase.MATCH_OVER)
        label = ("> " if view.to_act == owner and playing else "  ") + seat_name(owner, me)
        cells = [_cell(view, owner, slot, filled, color) for slot, filled in enumerate(hand)]
        cells += [Text("")] * (places - len(hand))
        style = "bold" if color and owner == me else ""
        grid.add_row(Text(label, style=style), *cells, str(view.totals[owner]))
    status = Text(_status(view, me, rules.call_name, rules), style="bold" if color else "")
    lines: list[RenderableType] = [status, grid]
    top = face(view.top_discard) if view.top_discard else "empty"
    lines.append(
        Text(
            f"Discard pile: {top} on top ({plural(view.discard_size, 'card', 'cards')}). "
            f"Draw pile: {plural(view.draw_size, 'card', 'cards')}."
        )
    )
    lines += [Text(line) for line in holding_lines(view, rules, me)]
    if view.knowledge is not None:
        lines.append(Text("Recollection: a card marked * is one you have seen.", style="dim"))
    return Group(*lines)


def reveal(result: Reveal, rules: Ruleset, me: int, *, color: bool = False) -> RenderableType:
    """A round's reveal: every hand face up, its worth, the round's score and why, the totals;
    then who had the round's lowest score."""
    title = Text(
        f"{round_name(result.round, rules)} is over. The cards:", style="bold" if color else ""
    )
    grid = Table(box=box.SQUARE, header_style="bold" if color else "")
    for name, justify in (("seat", "left"), ("cards", "left"), ("worth", "right")):
        grid.add_column(name, justify=justify)  # type: ignore[arg-type]
    grid.add_column("round", justify="right")
    grid.add_column("total", justify="right")
    numbers = {
        "call_penalty": rules.caller_penalty,
        "call_multiplied": rules.caller_multiplier,
        "moon_against": rules.moon_points,
        "hundred_reset": rules.hundred_reset,
    }
    for seat, hand in enumerate(result.hands):
        name = seat_name(seat, me) + (" (called)" if result.caller == seat else "")
        cards = " ".join(face(c) if c is not None else EMPTY_PLACE for c in hand)
        why = [REASON_WORDS.get(r, r).format(n=numbers.get(r, "")) for r in result.reasons[seat]]
        score = str(result.round_scores[seat]) + (f" ({'; '.join(why)})" if why else "")
        grid.add_row(name, cards, str(result.hand_totals[seat]), score, str(result.totals[seat]))
    low = min(result.round_scores)
    best = [s for s, score in enumerate(result.round_scores) if score == low]
    return Group(title, grid, Text(f"Lowest this round: {_names(best, me)} with {low}."))


def _names(seats: list[int] | tuple[int, ...], me: int) -> str:
    names = [seat_name(s, me) for s in seats]
    if len(names) == 1:
        return names[0]
    return ", ".join(names[:-1]) + f" and {names[-1]}"


def winners_line(winners: tuple[int, ...], totals: tuple[int, ...], me: int) -> str:
    """Who won the match, with their total."""
    if not winners:
        return "The match is over."
    score = totals[winners[0]]
    if winners == (me,):
        return f"The match is over: you win with {score}!"
    if len(winners) == 1:
        return f"The match is over: {seat_name(winners[0], me)} wins with {score}."
    return f"The match is over: a draw between {_names(winners, me)}, {score} each."


def to_text(renderable: RenderableType, *, width: int = 80, color: bool = False) -> str:
    """``renderable`` as the lines a terminal shows (with colour codes only if ``color``)."""
    out = io.StringIO()
    console = Console(
        file=out,
        width=width,
        color_system="standard" if color else None,
        force_terminal=color,
        legacy_windows=False,
        highlight=False,
        emoji=False,
        soft_wrap=False,
    )
    console.print(renderable)
    return out.getvalue().rstrip("\n")
