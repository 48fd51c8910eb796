"""The terminal game: whole matches against bots with scripted answers, and its board, menu and
reveal on dealt tables."""

from __future__ import annotations

import random
import re
from collections.abc import Callable

import pytest

from facedown.engine import Action, Game, StackedDeal, find_preset, observe
from facedown.terminal.terminal import ACK_PROMPT, CLEAR, LEAVE_PROMPT, play
from facedown.terminal.terminal_board import board, face, reveal, to_text, winners_line
from facedown.terminal.terminal_menu import menu, read_answer, typed

# -- reading the screen as a player would

_MENU_LINE = re.compile(r"^   (\S+(?: [A-Z.]+)*)\s{2,}(.*)$")
_EXAMPLE = re.compile(r"\(e\.g\. ([^)]+)\)$")


def _lines(written: list[str]) -> list[str]:
    return [line for text in written for line in text.split("\n")]


def _menu(screen: list[str]) -> list[tuple[str, str]]:
    """The last menu on the screen: (what to type, its words) for each line."""
    lines = _lines(screen)
    starts = [i for i, line in enumerate(lines) if line == "What will you do?"]
    out = []
    for line in lines[starts[-1] + 1 :] if starts else []:
        m = _MENU_LINE.match(line)
        if not m:
            break
        out.append((m.group(1), m.group(2)))
    return out


def _answers(screen: list[str]) -> list[str]:
    """A legal answer for each line of the last menu: its number, or its example."""
    out = []
    for form, words in _menu(screen):
        if form.isdigit():
            out.append(form)
        elif example := _EXAMPLE.search(words):
            out.append(example.group(1))
    return out


def _first(screen: list[str]) -> str:
    answers = _answers(screen)
    return answers[0] if answers else "q"


def _scripted(
    pick: Callable[[list[str]], str], limit: int = 5000
) -> tuple[Callable[[str], str], list[str]]:
    """A reader that answers every menu with ``pick`` and acknowledges every private face."""
    screen: list[str] = []
    prompts = 0

    def read(prompt: str) -> str:
        nonlocal prompts
        prompts += 1
        if prompt == ACK_PROMPT:
            return ""
        if prompt == LEAVE_PROMPT:
            return "y"
        return "q" if prompts > limit else pick(screen)

    return read, screen


def test_a_whole_terminal_match_against_bots() -> None:
    read, lines = _scripted(_first)
    code = play("kivo", players=3, seed=5, bots="hard", read=read, write=lines.append)
    assert code == 0
    assert any(line.startswith("The match is over") for line in lines), lines[-5:]
    # What the player sees: its own peek, never another seat's cards.
    assert any(line.startswith("You looked at cards") and ":" in line for line in lines)
    assert not any(line.startswith("Seat 1 looked at cards") and ":" in line for line in lines)


def test_a_bad_answer_is_asked_again_with_a_line_saying_why() -> None:
    answers = iter(["x", "99", "l 1", "l 1 9", "l 1 2 3", "q", "y"])
    lines: list[str] = []
    play("cabo", players=2, seed=1, read=lambda _p: next(answers), write=lines.append)
    said = lines[lines.index("What will you do?") + 2 :]
    assert said == [
        "Pick one of the numbers above, or a letter with card numbers.",
        "Pick one of the numbers above, or a letter with card numbers.",
        "Type it as l N M.",
        "That is not a move you can make now (l N M: l 1 2, l 1 3, l 1 4, l 2 3, l 2 4 or l 3 4).",
        "Type it as l N M.",
    ]


def test_a_tap_is_offered_while_a_bot_is_to_act() -> None:
    # Boyo has TAP: whenever a new card lies on the discard pile while a bot is to act, the
    # player is offered to tap (0, or Enter, lets play go on); here the player taps once.
    offers = 0
    tapped = False

    def pick(screen: list[str]) -> str:
        nonlocal offers, tapped
        entries = dict(_menu(screen))
        if "0" in entries:
            assert entries["0"].startswith("let seat ")
            offers += 1
            if not tapped and "t N" in entries:
                tapped = True
                return "t 1"
            return "" if offers % 2 else "0"
        return _first(screen)

    read, lines = _scripted(pick, limit=20_000)
    play("boyo", players=2, seed=3, bots="medium", read=read, write=lines.append)
    assert offers > 0
    assert tapped
    assert any(line.startswith("You tapped the ") for line in lines), lines[-20:]


def test_the_menu_speaks_plain_words_and_the_reveal_names_the_winner() -> None:
    read, lines = _scripted(_first)
    play("cabo", players=2, seed=2, bots="easy", read=read, write=lines.append)
    screen = _lines(lines)
    menu_lines = [line for line in screen if _MENU_LINE.match(line)]
    assert menu_lines
    for raw in ("opening_peek", "take_discard", "next_round", "end_turn", "1:0", "_"):
        assert not any(raw in line for line in menu_lines), raw
    assert any("look at 2 of your cards (e.g. l 1 2)" in line for line in menu_lines)
    # The reveal is a table: a header, then a row per seat with its cards and scores.
    at = screen.index("Round 1 is over. The cards:")
    header = [cell.strip() for cell in screen[at + 2].split("│")[1:-1]]
    assert header == ["seat", "cards", "worth", "round", "total"]
    assert {screen[at + 4].split("│")[1].strip(), screen[at + 5].split("│")[1].strip()} <= {
        "you",
        "you (called)",
        "seat 1",
        "seat 1 (called)",
    }
    assert any(line.startswith("Lowest this round: ") for line in screen)
    assert not any("[[" in line or "['" in line or "(0, " in line for line in screen)
    last = [line for line in screen if line.startswith("The match is over: ")]
    assert len(last) == 1
    assert re.search(r"(you win|seat 1 wins|a draw between) .*\d", last[0])


def test_a_set_is_typed_as_its_card_numbers() -> None:
    # Cabo replaces sets: one menu line says how ("r N M ..."), not one line per combination.
    sent_set = False

    def pick(screen: list[str]) -> str:
        nonlocal sent_set
        if not sent_set and any(form == "r N M ..." for form, _ in _menu(screen)):
            sent_set = True
            return "r 1 2"
        return _first(screen)

    read, lines = _scripted(pick, limit=20_000)
    play("cabo", players=2, seed=4, bots="easy", read=read, write=lines.append)
    assert sent_set
    assert any(
        line.startswith("You replaced cards 1 and 2") or line.startswith("You tried cards 1 and 2")
        for line in lines
    )


# -- the board, the menu and the reveal on a dealt table


def _dealt(preset: str, hands: list[list[str]], discard: str, draw: list[str]) -> Game:
    rules = find_preset(preset)
    deal = StackedDeal.from_names(rules.deck_cards, hands, discard, draw, first=0)
    game = Game(rules, len(hands), 1, deal=deal)
    for seat in range(len(hands)):
        game.apply(Action(seat, "opening_peek", (0, 1)))
    return game


def _cells(text: str) -> list[list[str]]:
    return [
        [cell.strip() for cell in line.split("│")[1:-1]]
        for line in text.splitlines()
        if line.startswith("│")
    ]


def test_the_board_is_a_table_of_seats_by_card_places() -> None:
    game = _dealt("kivo", [["1", "2", "3", "4"], ["5", "6", "7", "8"]], "9", ["12"])
    text = to_text(board(observe(game, 0).view, game.rules, 0))
    lines = text.splitlines()
    assert lines[0] == "Round 1 of 3: your turn"
    assert _cells(text) == [
        ["seat", "card 1", "card 2", "card 3", "card 4", "total"],
        ["> you", "??", "??", "??", "??", "0"],
        ["seat 1", "??", "??", "??", "??", "0"],
    ]
    assert "Discard pile: 9 on top (1 card). Draw pile: 43 cards." in lines
    assert all(len(line) <= 80 for line in lines)

    game.apply(Action(0, "draw"))  # the 12: worth 12, a swap when discarded (Kivo)
    lines = to_text(board(observe(game, 0).view, game.rules, 0)).splitlines()
    assert "You hold 12, worth 12." in lines
    assert (
        "Discard it for its power: swap, trade one of your cards for another player's, both "
        "unseen." in " ".join(" ".join(lines).split())
    )
    # The other seat sees that a card is held, not which.
    theirs = to_text(board(observe(game, 1).view, game.rules, 1))
    assert "12" not in theirs.replace("(1 card)", "")
    assert _cells(theirs)[1][0] == "> seat 0"


def test_a_board_too_wide_for_card_headers_numbers_them() -> None:
    game = _dealt("kivo", [["1", "2", "3", "4"], ["5", "6", "7", "8"]], "9", [])
    text = to_text(board(observe(game, 0).view, game.rules, 0, width=40), width=40)
    assert _cells(text)[0] == ["seat", "1", "2", "3", "4", "total"]


def test_the_menu_for_a_held_card_is_short() -> None:
    # Boyo, 8 seats, a black King in hand: peek, spy and swap on offer besides replace and
    # discard, 153 legal actions.  The menu has a line per kind of move.
    suits = "HDCS"
    hands = [
        [f"{rank}{suits[seat % 4]}" for rank in ("2345" if seat < 4 else "6789")]
        for seat in range(8)
    ]
    game = _dealt("boyo", hands, "10H", ["KS"])
    game.apply(Action(0, "draw"))
    legal = list(game.legal_actions(0))
    assert len(legal) > 100
    view = observe(game, 0).view
    entries = menu(game, legal, held=view.held, sets=game.set_size(0))
    assert [e.line() for e in entries] == [
        "   r N        put the K♠ in place of your card N, which goes onto the pile (e.g. r 1)",
        "   1          discard the K♠",
        "   p N        peek: look at your card N (e.g. p 1)",
        "   s P N      spy: look at seat P's card N (e.g. s 1 1)",
        "   w N P M    swap your card N for seat P's card M, both unseen (e.g. w 1 1 1)",
        "   t N        tap your card N if it matches the top discard (miss: a penalty card) "
        "(e.g. t 1)",
    ]
    # What is typed names the action; a move not on offer gets a line saying so.
    assert read_answer(game, entries, "w 2 7 4", 0, 0) == Action(0, "swap", (1,), 7, 3)
    assert read_answer(game, entries, "s 3 1", 0, 0) == Action(0, "spy", (0,), 3)
    assert read_answer(game, entries, "r 4", 0, 0) == Action(0, "replace", (3,))
    assert read_answer(game, entries, "1", 0, 0) == Action(0, "discard")
    refused = read_answer(game, entries, "s 9 1", 0, 0)
    assert isinstance(refused, str)
    assert refused.startswith("That is not a move you can make")
    assert read_answer(game, entries, "w 1", 0, 0) == "Type it as w N P M."
    assert all(typed(a).split()[0] in "rpswt" for a in legal if a.kind != "discard")


def test_the_reveal_is_a_table_with_the_scores_and_why() -> None:
    game = _dealt("cabo", [["13", "13", "12", "9"], ["0", "1", "2", "3"]], "5", ["4"])
    game.apply(Action(0, "call"))
    events = game.apply(Action(1, "draw"))
    events += game.apply(Action(1, "discard"))
    result = observe(game, 0).view.last_round
    assert result is not None, events
    assert "call_penalty" in result.reasons[0]
    text = to_text(reveal(result, game.rules, 0))
    assert text.splitlines()[0] == "Round 1 is over. The cards:"
    rows = _cells(text)
    assert rows[0] == ["seat", "cards", "worth", "round", "total"]
    assert rows[1] == ["you (called)", "13 13 12 9", "47", "52 (called, not lowest: +5)", "52"]
    assert rows[2] == ["seat 1", "0 1 2 3", "6", "0 (lowest hand: 0)", "0"]
    assert text.splitlines()[-1] == "Lowest this round: seat 1 with 0."


def test_cards_are_printed_as_their_faces() -> None:
    assert [face(n) for n in ("QH", "10C", "AS", "KD", "JK", "12", "0", None)] == [
        "Q♥",
        "10♣",
        "A♠",
        "K♦",
        "Joker",
        "12",
        "0",
        "?",
    ]


def test_a_line_says_who_won() -> None:
    assert winners_line((0,), (12, 40), 0) == "The match is over: you win with 12!"
    assert winners_line((1,), (50, 40), 0) == "The match is over: seat 1 wins with 40."
    assert (
        winners_line((0, 2), (30, 41, 30), 0)
        == "The match is over: a draw between you and seat 2, 30 each."
    )


# -- no memory aid: a private face stays on the screen only while the board still shows it

_PRIVATE = (
    (re.compile(r"^You drew (\S+)\.$"), "drew"),
    (re.compile(r"^You looked at cards? ([\d, and]+): (.+)\.$"), "own"),
    (re.compile(r"^You peeked at cards? ([\d, and]+): (.+)\.$"), "own"),
    (re.compile(r"^You spied on seat (\d+)'s card (\d+): (.+)\.$"), "spy"),
)
_HELD = re.compile(r"^You hold (\S+?),")


def _board(screen: list[str]) -> tuple[dict[str, dict[int, str]], str | None]:
    """The last board on the screen: each seat's faces by card number (from 1), and the card
    held."""
    lines = _lines(screen)
    starts = [i for i, line in enumerate(lines) if re.match(r"^Round \d+( of \d+)?: ", line)]
    rows: dict[str, dict[int, str]] = {}
    held = None
    if not starts:
        return rows, held
    after = lines[starts[-1] + 1 :]
    table = after[: next(i for i, line in enumerate(after) if line.startswith("└"))]
    cells = [[c.strip() for c in line.split("│")[1:-1]] for line in table if line[:1] == "│"]
    numbers = [int(h.split()[-1]) for h in cells[0][1:-1]]
    for row in cells[1:]:
        rows[row[0].lstrip("> ")] = {
            n: f.rstrip("*") for n, f in zip(numbers, row[1:-1], strict=True)
        }
    for line in after:
        if m := _HELD.match(line):
            held = m.group(1)
    return rows, held


def _stale(screen: list[str]) -> tuple[list[str], int]:
    """Private lines on the screen whose faces the current board does not show, and how many
    private lines there are."""
    rows, held = _board(screen)
    stale, count = [], 0
    for line in _lines(screen):
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


def _random_answer(rng: random.Random, screen: list[str]) -> str:
    """One of the last menu's lines, its numbers chosen at random (a refusal is asked again)."""
    entries = _menu(screen)
    if not entries:
        return "q"
    playing = [e for e in entries if not e[1].startswith("call ")]  # a call now and then
    form, words = rng.choice(playing if playing and rng.random() > 0.05 else entries)
    if form.isdigit():
        return form
    if rng.random() < 0.5 and (example := _EXAMPLE.search(words)):
        return example.group(1)
    letter, *names = form.split()
    if not names:  # a: let play go on until your turn
        return letter
    if names[-1] == "...":
        names = ["N", "M"]
    return " ".join([letter, *(str(rng.randint(1, 4)) for _ in names)])


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
        if prompt == LEAVE_PROMPT:
            return "y"
        stale, count = _stale(screen)
        assert stale == [], (stale, _lines(screen)[-40:])
        private += count
        prompts += 1
        return "q" if prompts > 4000 else _random_answer(rng, screen)

    play(preset, players=2, seed=11, bots="medium", read=read, write=screen.append, clear=clear)
    assert private > 0  # faces were shown ...
    assert acks > 0  # ... the player said when they had them in mind ...
    # ... and each time the screen was cleared (and more: a face that went public is cleared
    # without asking).
    assert clears >= acks


def test_the_no_memory_check_sees_a_stale_face() -> None:
    # The check above, on a screen that keeps a drawn card after it went: it must complain.
    game = _dealt("kivo", [["1", "2", "3", "4"], ["5", "6", "7", "8"]], "9", ["12"])
    game.apply(Action(0, "draw"))
    game.apply(Action(0, "replace", (2,)))
    game.apply(Action(1, "draw"))
    screen = ["You drew 12.", to_text(board(observe(game, 0).view, game.rules, 0))]
    assert _stale(screen) == (["You drew 12."], 1)


def test_with_recollection_the_board_keeps_what_you_saw() -> None:
    clears = 0

    def clear() -> None:
        nonlocal clears
        clears += 1

    def pick(screen: list[str]) -> str:
        return _first(screen)

    read, lines = _scripted(pick, limit=20_000)

    def no_ack(prompt: str) -> str:
        assert prompt != ACK_PROMPT
        return read(prompt)

    play(
        "kivo",
        players=2,
        seed=5,
        bots="easy",
        recollection=True,
        read=no_ack,
        write=lines.append,
        clear=clear,
    )
    assert clears == 0
    remembered = [
        cell
        for line in _lines(lines)
        if line.startswith("│")
        for cell in line.split("│")
        if cell.strip().endswith("*")
    ]
    assert remembered  # a card you saw, on the board long after its moment
    assert "Recollection on" in lines[0]
    assert "Recollection: a card marked * is one you have seen." in _lines(lines)


def test_the_terminal_clears_its_scrollback_by_default() -> None:
    lines: list[str] = []
    answers = iter(["l 1 2", "", "q"])  # look at two cards, acknowledge, quit
    play(
        "cabo",
        players=2,
        seed=1,
        bots="easy",
        read=lambda _p: next(answers, "q"),
        write=lines.append,
    )
    assert CLEAR in lines
    assert any(line.startswith("You looked at cards 1 and 2: ") for line in lines)
    after = lines[lines.index(CLEAR) + 1 :]
    assert not any(line.startswith("You looked at cards") for line in after)


def test_q_asks_before_it_leaves() -> None:
    # q, then Enter: play goes on (the same menu's answers still work); q, then y: it leaves.
    answers = iter(["q", "", "l 1 2", "q", "y"])
    asked: list[str] = []

    def read(prompt: str) -> str:
        asked.append(prompt)
        return next(answers)

    lines: list[str] = []
    assert play("cabo", players=2, seed=1, read=read, write=lines.append) == 0
    assert asked.count(LEAVE_PROMPT) == 2
    assert "Playing on: type one of the choices above." in lines
    assert any(line.startswith("You looked at cards 1 and 2") for line in _lines(lines))


def test_one_key_passes_every_tap_offer_until_your_turn() -> None:
    # Boyo offers a TAP at each new discard while a bot plays; "a" lets play go on with no
    # further offer until the player's own turn comes round again.
    offers_since_turn = most = turns = 0

    def pick(screen: list[str]) -> str:
        nonlocal offers_since_turn, most, turns
        entries = dict(_menu(screen))
        if "0" in entries:
            assert entries["a"] == "let play go on until your turn, no TAP offers"
            offers_since_turn += 1
            most = max(most, offers_since_turn)
            return "a"
        offers_since_turn = 0
        turns += 1
        return _first(screen)

    read, lines = _scripted(pick, limit=20_000)
    play("boyo", players=3, seed=3, bots="medium", read=read, write=lines.append)
    assert turns > 10
    assert most == 1  # one key, once between two of your turns


def test_the_clear_never_interrupts_your_own_turn_and_keeps_the_public_log() -> None:
    # A drawn card discarded for its power went public: the screen is cleared without an Enter
    # between the discard and the power's question.  After each clear the round's public log is
    # written again, with no private face in it.
    screen: list[str] = []
    asked_after_power = 0
    chose_power = False
    logs = 0

    def clear() -> None:
        screen.clear()

    def read(prompt: str) -> str:
        nonlocal asked_after_power, chose_power, logs
        if prompt == ACK_PROMPT:
            asked_after_power += chose_power
            return ""
        if prompt == LEAVE_PROMPT:
            return "y"
        lines = _lines(screen)
        if "This round so far:" in lines:
            logs += 1
            log = lines[lines.index("This round so far:") + 1 :]
            log = log[: next(i for i, x in enumerate(log) if not x.startswith("  "))]
            assert not any(re.search(r"(looked at|drew|peeked at|spied on).*: ", x) for x in log)
        entries = _menu(screen)
        power = next((f for f, w in entries if "and use its power" in w), None)
        chose_power = power is not None
        return power or _first(screen)

    play("cabo", players=2, seed=4, bots="medium", read=read, write=screen.append, clear=clear)
    assert asked_after_power == 0
    assert logs > 0


def test_you_are_you_and_the_rounds_are_counted_with_totals_between() -> None:
    from facedown.engine import EventKind, SeenEvent
    from facedown.terminal.terminal import describe

    game = Game(find_preset("cabo"), 2, 1)
    swap = SeenEvent(type=EventKind.SWAPPED, by=1, slots=(0,), target=0, target_slot=2)
    assert describe(game, swap, 0) == "Seat 1 swapped their card 1 with your card 3, unseen."
    read, lines = _scripted(_first)
    play("kivo", players=2, seed=5, bots="easy", read=read, write=lines.append)
    text = _lines(lines)
    assert text[0].startswith("Facedown: kivo, 3 rounds: you against 1 easy bot (seat 1;")
    assert any(re.match(r"^Round 2 of 3 starts\. Totals: you \d+, seat 1 \d+\.$", x) for x in text)
    assert not any("seat 0" in x.lower() for x in text)


def test_a_drawn_card_put_in_your_hand_does_not_stop_your_turn() -> None:
    # Boyo, seed 3: the opening look (Enter: those faces came and went with no prompt between),
    # then draw and put the card in place of card 2.  The turn goes on (end it, call, or TAP):
    # its menu comes next, with no Enter asked in between, and the drawn face is gone.
    script = iter(["l 1 2", "", "1", "r 2", "q", "y"])
    prompts: list[str] = []
    screen: list[str] = []

    def read(prompt: str) -> str:
        prompts.append(prompt)
        return next(script)

    play(
        "boyo", players=2, seed=3, bots="medium", read=read, write=screen.append, clear=screen.clear
    )
    assert prompts == ["> ", ACK_PROMPT, "> ", "> ", "> ", LEAVE_PROMPT]
    lines = _lines(screen)
    assert "  You replaced card 2; the J♠ went onto the discard pile." in lines
    assert "  You drew." in lines  # the log, written again, without the face
    assert not any(line.startswith("You drew ") for line in lines)
    assert _menu(screen)[0] == ("1", "end your turn")
