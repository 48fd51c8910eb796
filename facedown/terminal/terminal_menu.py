"""The terminal game's menu: the legal actions in plain words, grouped so that it stays short.

An action that takes no card is a numbered line (``1  draw a card from the draw pile``).  The
actions of one kind that name cards are one line with a letter and the numbers to type, the
cards numbered from 1 as on the board: ``r N  put the 7 in place of your card N (e.g. r 2)``
stands for every replace; ``s P N`` for every spy, ``w N P M`` for every swap.  A set (several
of your cards replaced at once) is typed as ``r`` with their numbers.  :func:`read_answer` turns
what was typed back into one of the legal actions, or says in a line why it is not one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..engine import Action, Game, Ruleset
from .terminal_board import face, slot_name

# The kinds that name cards: the letter typed, and the numbers after it.
LETTERS = {
    "opening_peek": "l",
    "replace": "r",
    "peek": "p",
    "spy": "s",
    "swap": "w",
    "tap": "t",
}
KINDS = {letter: kind for kind, letter in LETTERS.items()}
WAIT = "0"


@dataclass(frozen=True)
class Entry:
    """One line of the menu: what to type, what it does, and the actions it stands for."""

    form: str  # "1", or "r N"
    words: str
    actions: tuple[Action, ...] = ()

    def line(self) -> str:
        return f"   {self.form:<10} {self.words}"


def typed(action: Action) -> str:
    """What to type for ``action`` with a letter: ``w 1 2 3`` (cards from 1)."""
    letter = LETTERS[action.kind]
    if action.kind == "spy":
        return f"{letter} {action.target} {slot_name(action.slot)}"
    if action.kind == "swap":
        return f"{letter} {slot_name(action.slot)} {action.target} {slot_name(action.target_slot)}"
    return " ".join([letter, *(slot_name(s) for s in action.slots)])


def _numbered(action: Action, game: Game, held: str | None, held_powers: Sequence[str]) -> str:
    rules: Ruleset = game.rules
    top = game.top_discard
    card = f"the {face(held)}" if held else "the card"
    powers = held_powers if rules.power_timing == "discard" else ()
    words = {
        "draw": "draw a card from the draw pile",
        "take_discard": "take the top card of the discard pile"
        + (f" ({face(game.deck.names[top])})" if top >= 0 else ""),
        "undo": f"put {card} back on the discard pile",
        "discard": f"discard {card}"
        + (f" and use its power ({', '.join(powers)})" if powers else ""),
        "skip": "skip the power",
        "end_turn": "end your turn",
        "call": f"call {rules.call_name}: the others play their final turns, then all cards "
        "are shown",
        "next_round": "deal the next round",
    }
    return words.get(action.kind, action.kind.replace("_", " "))


def _grouped(kind: str, actions: list[Action], held: str | None) -> Entry:
    card = f"the {face(held)}" if held else "the card you hold"
    example = f" (e.g. {typed(actions[0])})"
    if kind == "opening_peek":
        n = len(actions[0].slots)
        names = " ".join("NMOPQ"[i] for i in range(n))
        return Entry(f"l {names}", f"look at {n} of your cards{example}", tuple(actions))
    if kind == "replace":
        return Entry(
            "r N",
            f"put {card} in place of your card N, which goes onto the pile{example}",
            tuple(actions),
        )
    if kind == "peek":
        return Entry("p N", f"peek: look at your card N{example}", tuple(actions))
    if kind == "spy":
        return Entry("s P N", f"spy: look at seat P's card N{example}", tuple(actions))
    if kind == "swap":
        return Entry(
            "w N P M",
            f"swap your card N for seat P's card M, both unseen{example}",
            tuple(actions),
        )
    return Entry(
        "t N",
        f"tap your card N if it matches the top discard (miss: a penalty card){example}",
        tuple(actions),
    )


def menu(
    game: Game,
    legal: Sequence[Action],
    *,
    held: str | None,
    sets: int,
    held_powers: Sequence[str] = (),
    wait: str = "",
) -> list[Entry]:
    """The menu for ``legal``, in its order: a numbered line for each action that names no
    card, one line for each kind that does (and, where sets are allowed, the line for a set).
    ``held`` and ``held_powers``: the card in hand and its powers, as the seat's view gives them."""
    entries = [Entry(WAIT, f"{wait} (or just press Enter)")] if wait else []
    groups: dict[str, list[Action]] = {}
    order: list[str | Action] = []  # each kind that names cards once, where it first comes
    for action in legal:
        if action.kind not in LETTERS:
            order.append(action)
        elif action.kind not in groups:
            groups[action.kind] = [action]
            order.append(action.kind)
        else:
            groups[action.kind].append(action)
    number = 1
    for item in order:
        if isinstance(item, Action):
            entries.append(Entry(str(number), _numbered(item, game, held, held_powers), (item,)))
            number += 1
            continue
        entries.append(_grouped(item, groups[item], held))
        if item == "replace" and sets:
            entries.append(
                Entry(
                    "r N M ...",
                    f"put it in place of 2 to {sets} alike cards of yours at once (e.g. r 1 2)",
                )
            )
    return entries


def read_answer(
    game: Game, entries: Sequence[Entry], answer: str, me: int, sets: int
) -> Action | str | None:
    """The action typed (``None``: let play go on), or a line saying why it is none."""
    words = answer.split()
    waits = any(e.form == WAIT for e in entries)
    if not words or words == [WAIT]:
        return None if waits else "Type one of the choices above."
    first, numbers = words[0].lower(), words[1:]
    if first.isdigit() and not numbers:
        numbered = next((e for e in entries if e.form == first), None)
        if numbered is not None:
            return numbered.actions[0]
    kind = KINDS.get(first)
    entry = next((e for e in entries if e.actions and e.actions[0].kind == kind), None)
    if kind is None or entry is None:
        return "Pick one of the numbers above, or a letter with card numbers."
    if not all(n.isdigit() for n in numbers):
        return f"After {first}, type card numbers: {entry.form}."
    return _lettered(game, entry, kind, [int(n) for n in numbers], me, sets)


def _lettered(
    game: Game, entry: Entry, kind: str, values: list[int], me: int, sets: int
) -> Action | str:
    action = _action(kind, values, me)
    if action is None or (kind == "opening_peek" and len(values) != len(entry.actions[0].slots)):
        return f"Type it as {entry.form}."
    if kind == "replace" and len(action.slots) > 1:
        if sets and len(action.slots) <= sets and game.is_legal(action):
            return action
        return f"A set is 2 to {sets} of your cards, e.g. r 1 2." if sets else "No sets here."
    if action in entry.actions or game.is_legal(action):
        return action
    return f"That is not a move you can make now ({entry.form}: {cards_hint(entry)})."


def cards_hint(entry: Entry) -> str:
    """The answers ``entry`` takes, shortened: ``r 1, r 2, r 3 or r 4``."""
    forms = [typed(a) for a in entry.actions]
    if len(forms) > 6:
        return ", ".join(forms[:5]) + f", ... ({len(forms)} in all)"
    return ", ".join(forms[:-1]) + (" or " if len(forms) > 1 else "") + forms[-1]


def _action(kind: str, values: list[int], me: int) -> Action | None:
    """The action of ``kind`` that ``values`` (cards from 1) name, if they have its shape."""
    slots = [v - 1 for v in values]
    if kind == "spy":
        return Action(me, kind, (slots[1],), values[0]) if len(values) == 2 else None
    if kind == "swap":
        if len(values) != 3:
            return None
        return Action(me, kind, (slots[0],), values[1], slots[2])
    if kind in ("opening_peek", "replace"):
        if not values or any(s < 0 for s in slots):
            return None
        ordered = tuple(slots) if kind == "replace" else tuple(sorted(slots))
        return Action(me, kind, ordered)
    return Action(me, kind, (slots[0],)) if len(values) == 1 else None
