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
