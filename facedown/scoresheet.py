"""``facedown scoreboard``: one evening's paper game scored in the terminal.

Each round asks for every hand total (in seating order, on one line), who called and, where the
preset has it, who shot the moon; the engine scores it (:mod:`facedown.paperboard`) and a table
of every round and the totals is printed.  At the hand-totals prompt ``undo`` takes the last
round back, ``edit N`` enters round N again and ``quit`` ends the evening.  A round the rules
refuse is explained in one line and asked again.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from rich.console import Console
from rich.prompt import Prompt
from rich.table import Table

from .engine import PaperRound, TallyError
from .paperboard import MAX_ROUNDS, Board

Ask = Callable[[str], str]


class Quit(Exception):
    """The user ended the evening (``quit`` or the end of the input)."""


def board_table(board: Board) -> Table:
    """Every round's hand totals and scores, and the totals, as a Rich table."""
    scored = board.tally()
    table = Table(title=f"{board.preset} scoreboard", show_footer=True)
    table.add_column("round", footer="total")
    for p, name in enumerate(board.names):
        table.add_column(name, justify="right", footer=str(scored.totals[p]))
    table.add_column("called")
    for r in scored.rounds:
        cells = []
        for p in range(len(board.names)):
            cell = f"{r.paper.hand_totals[p]} → {r.round_scores[p]}"
            if r.places is not None:
                cell += f" ({_ordinal(r.places[p])}: {r.points[p]:+d})"
            if r.paper.moon == p:
                cell += " moon"
            cells.append(cell)
        caller = board.names[r.paper.caller] if r.paper.caller >= 0 else ""
        table.add_row(str(r.number), *cells, caller)
    return table


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _player(board: Board, text: str) -> int:
    """A player by name (any case) or by number from 1; -1 for a blank answer."""
    text = text.strip()
    if not text or text in ("-", "nobody"):
        return -1
    if text.isdigit() and 1 <= int(text) <= len(board.names):
        return int(text) - 1
    folded = [n.casefold() for n in board.names]
    if text.casefold() in folded:
        return folded.index(text.casefold())
    raise ValueError(f"{text!r} is not a player: give a name or a number from 1")


def _totals(board: Board, text: str) -> tuple[int, ...]:
    parts = text.replace(",", " ").split()
    if len(parts) != len(board.names):
        order = ", ".join(board.names)
        raise ValueError(f"give {len(board.names)} hand totals, in the order {order}")
    try:
        return tuple(int(p) for p in parts)
    except ValueError:
        raise ValueError("hand totals are whole numbers") from None


def ask_round(board: Board, ask: Ask, first: str) -> PaperRound:
    """The rest of a round whose hand totals were typed as ``first``."""
    totals = _totals(board, first)
    question = f"who called {board.rules.call_name}? (name or number, blank: nobody)"
    caller = _player(board, ask(question))
    moon = -1
    if board.rules.shoot_the_moon:
        moon = _player(board, ask("who shot the moon, two 12s and two 13s? (blank: nobody)"))
    return PaperRound(totals, caller, moon)


def _status(board: Board) -> str:
    scored = board.tally()
    if scored.over:
        names = " and ".join(board.names[p] for p in scored.winners)
        return f"The match is over: {names} {'win' if len(scored.winners) > 1 else 'wins'}."
    if scored.next_sudden_death:
        return "Tied after the rounds: one sudden-death round."
    return f"Round {len(board.rounds) + 1} next."


def _step(board: Board, ask: Ask, console: Console) -> Board:
    """One answer at the hand-totals prompt: a round, ``undo``, ``edit N`` or ``quit``."""
    number = len(board.rounds) + 1
    names = " ".join(board.names)
    line = ask(f"round {number}: hand totals ({names}), or undo, edit N, quit").strip()
    words = line.split()
    rounds = list(board.rounds)
    if line.casefold() in ("quit", "q"):
        raise Quit
    if line.casefold() == "undo":
        if not rounds:
            raise ValueError("there is no round to undo")
        rounds.pop()
    elif words and words[0].casefold() == "edit":
        if len(words) != 2 or not words[1].isdigit() or not 1 <= int(words[1]) <= len(rounds):
            raise ValueError(f"edit takes a round number from 1 to {len(rounds)}")
        at = int(words[1])
        first = ask(f"round {at}: hand totals ({names})")
        rounds[at - 1] = ask_round(board, ask, first)
    else:
        if len(rounds) >= MAX_ROUNDS:
            raise ValueError(f"a board keeps at most {MAX_ROUNDS} rounds")
        rounds.append(ask_round(board, ask, line))
    return board.with_rounds(rounds)


def play_evening(board: Board, console: Console, ask: Ask, csv_path: Path | None = None) -> Board:
    """Ask for rounds until the match is over or the user quits; the board at the end."""
    while not board.tally().over:
        try:
            board = _step(board, ask, console)
        except Quit:
            break
        except (ValueError, TallyError) as e:  # a TallyError is a ValueError too
            console.print(f"[red]{e}[/red]")
            continue
        console.print(board_table(board))
        console.print(_status(board))
    if csv_path is not None:
        csv_path.write_text(board.csv_text(), encoding="utf-8")
        console.print(f"CSV written to {csv_path}")
    return board


def run(
    preset: str,
    names: Sequence[str],
    options: dict[str, object],
    placement: dict[str, object] | None,
    csv_path: Path | None,
) -> int:
    """The command: a board from the arguments (already checked), then the evening."""
    board = Board.make(names, preset, options, placement)
    console = Console(highlight=False)
    console.print(f"Scoring a paper game of {preset} for {', '.join(names)}.")

    def ask(text: str) -> str:
        try:
            return Prompt.ask(text, console=console, default="", show_default=False)
        except EOFError:
            raise Quit from None

    play_evening(board, console, ask, csv_path)
    return 0
