"""A replay in the terminal (``facedown replay``), printed with Rich.

Each step is a heading (its number, round and the action that led to it), the events as the
viewer saw them, and the table: face up, every hand by card name; through a seat's eyes, each
hand with the cards that seat was being shown (and, with ``knowledge``, every card it knew),
``??`` for the rest.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..engine import Observation, SeenEvent, View, place
from .replay import Replay, Step

UNKNOWN = "??"


def _event_line(event: SeenEvent, names: Sequence[str]) -> str:
    parts = [event.type.value]
    if event.by is not None:
        parts.insert(0, _name(names, event.by))
    if event.slots:
        parts.append("slots " + " ".join(str(s) for s in event.slots))
    if event.target is not None:
        slot = f" slot {event.target_slot}" if event.target_slot is not None else ""
        parts.append(f"-> {_name(names, event.target)}{slot}")
    if event.cards:
        parts.append("shows " + " ".join(c or "-" for c in event.cards))
    if event.seen:
        parts.append("sees " + " ".join(c or "-" for c in event.seen))
    if event.round is not None:
        parts.append(f"round {event.round}")
    if event.result is not None:
        parts.append("scores " + " ".join(str(s) for s in event.result.round_scores))
    if event.winners:
        parts.append("winners " + ", ".join(_name(names, w) for w in event.winners))
    return " ".join(parts)


def _name(names: Sequence[str], seat: int) -> str:
    return names[seat] if 0 <= seat < len(names) and names[seat] else f"seat {seat}"


def _seat_hand(view: View, owner: int) -> list[str]:
    known: Mapping[str, str] = {**(view.knowledge or {}), **view.shown}
    out = []
    for slot, filled in enumerate(view.hands[owner]):
        out.append(known.get(place(owner, slot), UNKNOWN) if filled else "-")
    return out


def _seen(step: Step) -> Observation:
    if step.seen is None:
        raise ValueError("a step is face up or seen by a seat")
    return step.seen


def _table(step: Step, names: Sequence[str]) -> Table:
    grid = Table(show_header=False, box=None, pad_edge=False)
    grid.add_column(style="bold")
    grid.add_column()
    grid.add_column(justify="right")
    if step.face_up is not None:
        view = step.face_up.view
        hands = [[c or "-" for c in hand] for hand in step.face_up.hands]
    else:
        view = _seen(step).view
        hands = [_seat_hand(view, o) for o in range(view.players)]
    for seat, hand in enumerate(hands):
        mark = "*" if view.to_act == seat else " "
        grid.add_row(f"{mark}{_name(names, seat)}", " ".join(hand), f"total {view.totals[seat]}")
    pile = f"discard {view.top_discard or '-'} ({view.discard_size}), draw {view.draw_size}"
    if step.face_up is not None:
        pile += f", next {step.face_up.draw_top or '-'}"
        if step.face_up.held:
            pile += f", held {step.face_up.held}"
    elif view.held:
        pile += f", held {view.held}"
    grid.add_row("", pile, view.phase.value)
    return grid


def print_step(console: Console, step: Step, names: Sequence[str]) -> None:
    action = step.action.text() if step.action is not None else "the deal"
    console.print(Text(f"step {step.step}  round {step.round}  {action}", style="bold cyan"))
    events = step.face_up.events if step.face_up is not None else _seen(step).events
    for event in events:
        console.print(f"  {_event_line(event, names)}")
    console.print(_table(step, names))


def print_replay(
    console: Console,
    replay: Replay,
    seat: int | None = None,
    *,
    round_no: int | None = None,
    knowledge: bool | None = None,
) -> None:
    """The whole match (or one round of it), face up or through ``seat``'s eyes."""
    match = replay.match
    names = list(match.names) or [f"seat {s}" for s in range(replay.players)]
    eyes = "face up" if seat is None else f"through {_name(names, seat)}'s eyes"
    console.print(
        Text(f"{match.match_id}: {replay.rules.name}, {replay.players} players, {eyes}", "bold")
    )
    first, last = 0, len(replay) - 1
    if round_no is not None:
        first = replay.jump(round_no)
        later = [s for r, s in replay.rounds.items() if r > round_no]
        last = min(later) - 1 if later else last
    for n in range(first, last + 1):
        print_step(console, replay.step(seat, n, knowledge=knowledge), names)
    results = Table(title="rounds")
    results.add_column("round")
    for s in range(replay.players):
        results.add_column(_name(names, s), justify="right")
    for reveal in replay.results():
        results.add_row(str(reveal.round), *(str(t) for t in reveal.totals))
    console.print(results)
    winners = ", ".join(_name(names, w) for w in replay.winners)
    console.print(Text(f"winners: {winners or 'none'}", style="bold green"))
