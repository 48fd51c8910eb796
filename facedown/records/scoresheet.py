"""``facedown scoreboard``: one evening's paper game scored in the terminal.

Each round asks for every hand total (in seating order, on one line), who called and, where the
preset has it, who shot the moon; the engine scores it (:mod:`facedown.records.paperboard`) and a
table of every round and the totals is printed.  At the hand-totals prompt ``undo`` takes the last
round back, ``edit N`` enters round N again and ``quit`` ends the evening.  A round the rules
refuse is explained in one line and asked again.

The evening is saved after every change (:func:`save_evening`, written whole then renamed into
place), so neither ``quit`` nor Ctrl-C loses a round: ``facedown scoreboard --resume`` carries on
(:func:`load_evening`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.prompt import Prompt
from rich.table import Table

from ..engine import PaperRound, RulesetError, TallyError
from .paperboard import MAX_ROUNDS, Board

Ask = Callable[[str], str]


class Quit(Exception):
    """The user ended the evening (``quit`` or the end of the input)."""


def default_save_path() -> Path:
    """Where an evening is saved unless ``--save`` says otherwise: the user's state folder."""
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state) / "facedown" / "scoreboard.json"


def save_evening(path: Path, board: Board, options: Mapping[str, object]) -> None:
    """Write the evening to ``path``: whole, or not at all (a temporary file renamed)."""
    data = {
        "names": list(board.names),
        "preset": board.preset,
        "options": dict(options),
        "placement": board.placement_json(),
        "rounds": board.rounds_json(),
        "over": board.tally().over,
    }
    partial = path.with_name(path.name + ".partial")
    partial.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    os.replace(partial, path)


def load_evening(path: Path) -> tuple[Board, dict[str, Any]]:
    """The evening saved at ``path`` and its ruleset options; ValueError when it cannot be
    read or does not score."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        options = dict(data.get("options") or {})
        board = Board.make(
            data["names"], data["preset"], options, data.get("placement"), data["rounds"]
        )
    except FileNotFoundError:
        raise ValueError(f"no evening is saved in {path}") from None
    except (OSError, KeyError, TypeError, RulesetError, TallyError, ValueError) as e:
        raise ValueError(f"{path} is not a saved evening: {e}") from None
    return board, options


def unfinished(path: Path) -> str | None:
    """Who plays the unfinished evening saved at ``path`` (None: no unfinished evening)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("over"):
            return None
        return f"{', '.join(data['names'])}, {len(data['rounds'])} round(s)"
    except (OSError, ValueError, KeyError, TypeError):
        return None


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


def play_evening(
    board: Board,
    console: Console,
    ask: Ask,
    csv_path: Path | None = None,
    save: Callable[[Board], None] | None = None,
) -> Board:
    """Ask for rounds until the match is over or the user quits; the board at the end.
    ``save`` is called with the board after every change."""
    while not board.tally().over:
        try:
            board = _step(board, ask, console)
        except Quit:
            break
        except (ValueError, TallyError) as e:  # a TallyError is a ValueError too
            console.print(f"[red]{e}[/red]")
            continue
        if save is not None:
            save(board)
        console.print(board_table(board))
        console.print(_status(board))
    if csv_path is not None:
        csv_path.write_text(board.csv_text(), encoding="utf-8")
        console.print(f"CSV written to {csv_path}")
    return board


def run(board: Board, options: Mapping[str, object], csv_path: Path | None, save_path: Path) -> int:
    """The command: the evening on ``board`` (new, or resumed with its rounds), saved to
    ``save_path`` after every round.  Ctrl-C leaves with exit status 130, the evening saved."""
    console = Console(highlight=False)
    names = ", ".join(board.names)
    if board.rounds:
        console.print(f"Carrying on a paper game of {board.preset} for {names}.")
        console.print(board_table(board))
        console.print(_status(board))
    else:
        console.print(f"Scoring a paper game of {board.preset} for {names}.")
    save_evening(save_path, board, options)
    resume = f"the evening is saved in {save_path}: facedown scoreboard --resume carries on"
    if str(save_path) != str(default_save_path()):
        resume += f" (with --save {save_path})"

    def ask(text: str) -> str:
        try:
            return Prompt.ask(text, console=console, default="", show_default=False)
        except EOFError:
            raise Quit from None

    try:
        board = play_evening(
            board, console, ask, csv_path, lambda b: save_evening(save_path, b, options)
        )
    except KeyboardInterrupt:
        console.print(f"\nStopped: {resume}.")
        return 130
    if not board.tally().over:
        console.print(f"The match is not over: {resume}.")
    return 0
