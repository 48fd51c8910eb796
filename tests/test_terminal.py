"""The terminal game: a whole match against bots, with scripted answers."""

from __future__ import annotations

import random
import re

import pytest

from facedown.terminal import ACK_PROMPT, CLEAR, play


def test_a_whole_terminal_match_against_bots() -> None:
    prompts = 0
    lines: list[str] = []

    def read(_prompt: str) -> str:
        nonlocal prompts
        prompts += 1
        return "q" if prompts > 5000 else "0"  # always the first legal action

    code = play("kivo", players=3, seed=5, bots="hard", read=read, write=lines.append)
    assert code == 0
    assert any(line.startswith("Match over") for line in lines), lines[-5:]
    # What the player sees: its own peek, never another seat's cards.
    assert any(line.startswith("You looked at cards") and ":" in line for line in lines)
    assert not any(line.startswith("Seat 1 looked at cards") and ":" in line for line in lines)


def test_a_bad_answer_is_asked_again() -> None:
    answers = iter(["x", "99", "q"])
    lines: list[str] = []
    play("cabo", players=2, seed=1, read=lambda _p: next(answers), write=lines.append)
    assert lines.count("Pick one of the numbers above.") == 2


def test_a_tap_is_offered_while_a_bot_is_to_act() -> None:
    # Boyo has TAP: whenever a new card lies on the discard pile while a bot is to act, the
    # player is offered to tap (0 lets play go on); here the player taps once, then waits.
    lines: list[str] = []
    offers = 0
    tapped = False

    def read(_prompt: str) -> str:
        nonlocal offers, tapped
        options = lines[-12:]
        if any("let seat" in line for line in options):
            offers += 1
            if not tapped and any(") tap " in line for line in options):
                tapped = True
                return "1"  # the first tap offered
            return "0"
        return "q" if len(lines) > 20_000 else "0"

    play("boyo", players=2, seed=3, bots="medium", read=read, write=lines.append)
    assert offers > 0
    assert tapped
    assert any(line.startswith("You tapped") for line in lines), lines[-20:]


def test_the_menu_speaks_plain_words_and_the_reveal_names_the_winner() -> None:
    lines: list[str] = []
    answers = 0

    def read(_prompt: str) -> str:
        nonlocal answers
        answers += 1
        return "q" if answers > 5000 else "0"

    play("cabo", players=2, seed=2, bots="easy", read=read, write=lines.append)
    menu = [line for line in lines if line.startswith("    ") and ") " in line]
    assert menu
    for raw in ("opening_peek", "take_discard", "next_round", "1:0"):
        assert not any(raw in line for line in menu), raw
    assert any("look at your cards" in line for line in menu)
    assert any(line.startswith("Round over. The cards:") for line in lines)
    assert any("hand " in line and "total " in line for line in lines)
    assert not any("[[" in line or "['" in line for line in lines)  # no Python lists
    assert any(
        line.startswith("Match over:") and ("win" in line or "draw" in line) for line in lines
    )


def test_a_set_is_typed_as_its_card_numbers() -> None:
    # Cabo replaces sets: the menu offers them as a rule ("s 0 2"), not as every combination.
    lines: list[str] = []
    sent_set = False

    def read(_prompt: str) -> str:
        nonlocal sent_set
        if not sent_set and any(line.startswith("    s) ") for line in lines[-20:]):
            sent_set = True
            return "s 0 1"
        return "q" if len(lines) > 20_000 else "0"

    play("cabo", players=2, seed=4, bots="easy", read=read, write=lines.append)
    assert sent_set
    assert any(
        line.startswith("You replaced cards 0 and 1") or line.startswith("You tried cards 0 and 1")
        for line in lines
    )


# -- no memory aid: a private face stays on the screen only while the board still shows it

_BOARD_ROW = re.compile(r"^\s+(you|seat \d+) (\[.*)$")
_CELL = re.compile(r"\[(\d+):([^\]]+)\]")
_PRIVATE = (
    (re.compile(r"^You drew (\S+)\.$"), "drew"),
    (re.compile(r"^You looked at cards? ([\d, and]+): (.+)\.$"), "own"),
    (re.compile(r"^You peeked at cards? ([\d, and]+): (.+)\.$"), "own"),
    (re.compile(r"^You spied on seat (\d+)'s card (\d+): (.+)\.$"), "spy"),
)


def _lines(written: list[str]) -> list[str]:
    return [line for text in written for line in text.split("\n")]


def _board(screen: list[str]) -> tuple[dict[str, dict[int, str]], str | None]:
    """The last board on the screen: each row's faces by slot, and the card held."""
    screen = _lines(screen)
    starts = [i for i, line in enumerate(screen) if line.startswith("-- round")]
    rows: dict[str, dict[int, str]] = {}
    held = None
    for line in screen[starts[-1] + 1 :] if starts else []:
        if line.startswith("   holding "):
            held = line.split()[1].rstrip(",")
        elif row := _BOARD_ROW.match(line):
            rows[row.group(1)] = {int(s): f.rstrip("*") for s, f in _CELL.findall(row.group(2))}
    return rows, held


def _stale(screen: list[str]) -> tuple[list[str], int]:
    """Private lines on the screen whose faces the current board does not show, and how many
    private lines there are."""
    rows, held = _board(screen)
    screen = _lines(screen)
    stale, count = [], 0
    for line in screen:
        for pattern, kind in _PRIVATE:
            m = pattern.match(line)
            if not m:
                continue
            count += 1
            if kind == "drew":
                ok = held == m.group(1)
            elif kind == "own":
                slots = [int(s) for s in re.findall(r"\d+", m.group(1))]
                faces = m.group(2).split(", ")
                mine = rows.get("you", {})
                ok = all(mine.get(s) == f for s, f in zip(slots, faces, strict=True))
            else:
                ok = rows.get(f"seat {m.group(1)}", {}).get(int(m.group(2))) == m.group(3)
            if not ok:
                stale.append(line)
    return stale, count


@pytest.mark.parametrize("preset", ["boyo", "cabo", "kivo", "kaboom"])
def test_a_private_face_is_on_the_screen_only_for_its_moment(preset: str) -> None:
    screen: list[str] = []
    rng = random.Random(preset)
    clears = acks = prompts = private = 0

    def clear() -> None:
        nonlocal clears
        clears += 1
        screen.clear()

    def read(prompt: str) -> str:
        nonlocal acks, prompts, private
        if prompt == ACK_PROMPT:
            acks += 1
            return ""
        stale, count = _stale(screen)
        assert stale == [], (stale, screen[-30:])
        private += count
        prompts += 1
        options = [int(n) for n in re.findall(r"^\s+(\d+)\) ", "\n".join(screen), re.M)]
        last = max(options[-20:]) if options else 0
        return "q" if prompts > 4000 else str(rng.randint(0, last))

    play(preset, players=2, seed=11, bots="medium", read=read, write=screen.append, clear=clear)
    assert private > 0  # faces were shown ...
    assert acks > 0  # ... the player said when they had them in mind ...
    assert clears == acks  # ... and each time the screen was cleared


def test_with_recollection_the_board_keeps_what_you_saw() -> None:
    lines: list[str] = []
    clears = 0

    def clear() -> None:
        nonlocal clears
        clears += 1

    def read(prompt: str) -> str:
        assert prompt != ACK_PROMPT
        return "q" if len(lines) > 20_000 else "0"

    play(
        "kivo",
        players=2,
        seed=5,
        bots="easy",
        recollection=True,
        read=read,
        write=lines.append,
        clear=clear,
    )
    assert clears == 0
    assert any(_CELL.search(line) and "*]" in line for line in lines)  # a remembered card
    assert "Recollection on" in lines[0]


def test_the_terminal_clears_its_scrollback_by_default() -> None:
    lines: list[str] = []
    answers = iter(["0", "", "q"])  # look at two cards, acknowledge, quit
    play(
        "cabo",
        players=2,
        seed=1,
        bots="easy",
        read=lambda _p: next(answers, "q"),
        write=lines.append,
    )
    assert CLEAR in lines
    after = lines[lines.index(CLEAR) + 1 :]
    assert not any(line.startswith("You looked at cards") for line in after)
