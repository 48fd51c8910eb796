"""The hard heuristics on literal positions: taps, sets, powers, calls."""

from __future__ import annotations

from collections.abc import Sequence

from facedown.bots import HeuristicBot, make_bot, seat_info
from facedown.bots.memory import parse_place
from facedown.engine import PRESETS, Action, Game, Ruleset, StackedDeal
from facedown.engine import actions as A

from .tables import RULESETS, random_states


def deal(
    rules: Ruleset,
    hands: Sequence[Sequence[str]],
    discard: str,
    draw_top: Sequence[str] = (),
    first: int = 0,
    peek: tuple[int, ...] = (0, 1),
) -> Game:
    """A 2-player game dealt by card names; every seat has looked at the ``peek`` slots."""
    free = rules.deck_cards.ids_by_name()
    ids = [[free[n].pop() for n in hand] for hand in hands]
    game = Game(
        rules,
        len(hands),
        1,
        deal=StackedDeal(ids, free[discard].pop(), [free[n].pop() for n in draw_top], first),
    )
    for seat in range(len(hands)):
        game.apply(Action(seat, A.OPENING_PEEK, peek))
    return game


def hard() -> HeuristicBot:
    bot = make_bot("hard", 1)
    assert isinstance(bot, HeuristicBot)
    return bot


def test_taps_a_known_card_of_the_top_discards_rank_out_of_turn() -> None:
    # Boyo: TAP with a card matching the rank of the top discard; hard taps only when it knows.
    game = deal(
        PRESETS["boyo"], [["2H", "5S", "9C", "3H"], ["4C", "6D", "7C", "8C"]], "5H", first=1
    )
    assert hard().react(seat_info(game, 0)) == Action(0, A.TAP, (1,))


def test_does_not_tap_an_unknown_card_or_a_negative_one() -> None:
    boyo = PRESETS["boyo"]
    unknown = deal(boyo, [["2H", "3S", "5C", "3H"], ["4C", "6D", "7C", "8C"]], "5H", first=1)
    assert hard().react(seat_info(unknown, 0)) is None  # the 5 lies in slot 2, never seen
    red_king = deal(boyo, [["KH", "3S", "5C", "3H"], ["4C", "6D", "7C", "8C"]], "KD", first=1)
    assert hard().react(seat_info(red_king, 0)) is None  # -2: better kept


def test_replaces_a_known_set_with_a_low_card() -> None:
    # Cabo: two known 7s and a drawn 1 -> replace both 7s with the 1.
    game = deal(PRESETS["cabo"], [["7", "7", "10", "11"], ["4", "6", "8", "9"]], "12", ["1"])
    bot = hard()
    assert bot.choose(seat_info(game, 0)) == Action(0, A.DRAW)
    game.apply(Action(0, A.DRAW))
    assert bot.choose(seat_info(game, 0)) == Action(0, A.REPLACE, (0, 1))


def test_peeks_at_an_own_unknown_card() -> None:
    # A low known pair (0 and 1) and a drawn 7 (peek): discard it and look at an unknown card.
    game = deal(PRESETS["cabo"], [["0", "1", "10", "11"], ["4", "6", "8", "9"]], "12", ["7"])
    bot = hard()
    game.apply(bot.choose(seat_info(game, 0)))
    assert bot.choose(seat_info(game, 0)) == Action(0, A.DISCARD)
    game.apply(Action(0, A.DISCARD))
    action = bot.choose(seat_info(game, 0))
    assert action.kind == A.PEEK
    assert action.slot in (2, 3)


def test_takes_a_low_discard_and_swaps_a_high_known_card_away() -> None:
    cabo = PRESETS["cabo"]
    game = deal(cabo, [["12", "2", "5", "6"], ["4", "6", "8", "9"]], "0")
    assert hard().choose(seat_info(game, 0)) == Action(0, A.TAKE_DISCARD)
    game = deal(cabo, [["13", "2", "5", "6"], ["4", "6", "8", "9"]], "12", ["11"])
    bot = hard()
    game.apply(bot.choose(seat_info(game, 0)))  # draw the 11 (swap)
    game.apply(bot.choose(seat_info(game, 0)))  # discard it to use the power
    action = bot.choose(seat_info(game, 0))
    assert action.kind == A.SWAP
    assert action.slot == 0
    assert action.target == 1


def test_calls_with_a_low_known_hand_and_not_with_a_high_one() -> None:
    # Cabo, but every card is seen at the opening: a known total of 2 calls at once.
    seen_all = PRESETS["cabo"].with_options({"opening_peek": 4})
    low = deal(seen_all, [["0", "1", "0", "1"], ["9", "8", "10", "11"]], "12", peek=(0, 1, 2, 3))
    assert hard().choose(seat_info(low, 0)) == Action(0, A.CALL)
    high = deal(seen_all, [["12", "13", "2", "1"], ["0", "1", "2", "3"]], "12", peek=(0, 1, 2, 3))
    assert hard().choose(seat_info(high, 0)) != Action(0, A.CALL)


def test_sets_are_attempted_only_with_cards_known_to_be_equal() -> None:
    for name in ("cabo", "kaboom", "custom-boyo"):
        for i, game in enumerate(random_states(RULESETS[name], 2, seed=11, count=300)):
            seat = game.to_act
            if seat is None or not game.legal_actions(seat):
                continue
            info = seat_info(game, seat)
            action = make_bot("hard", i).choose(info)
            if action.kind == A.REPLACE and len(action.slots) > 1:
                known = {parse_place(p): n for p, n in info.knowledge.items()}
                ranks = {rules_rank(info.rules, known.get((seat, s))) for s in action.slots}
                assert None not in ranks
                assert len(ranks) == 1


def rules_rank(rules: Ruleset, name: str | None) -> str | None:
    if name is None:
        return None
    deck = rules.deck_cards
    return deck.ranks[deck.names.index(name)]
