"""The terminal game: a whole match against bots, with scripted answers."""

from __future__ import annotations

from facedown.terminal import play


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
