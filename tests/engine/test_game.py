"""Focused unit tests of Game: determinism, refusals, clones, stacked deals, construction."""

from __future__ import annotations

import dataclasses
import gc
import pickle
import random
import tracemalloc
from collections.abc import Sequence
from typing import Any

import pytest

from facedown.engine import (
    SPECTATOR,
    CallNotAllowed,
    Game,
    IllegalAction,
    InvalidSlot,
    InvalidTarget,
    NotAllowedByRules,
    NotYourTurn,
    PowerUnavailable,
    RoundResult,
    Ruleset,
    RulesetError,
    StackedDeal,
    WrongPhase,
    make_ruleset,
)
from facedown.engine import actions as A
from facedown.engine.actions import Action
from facedown.engine.rules import MAX_HAND_LIMIT

PRESET_NAMES = ("boyo", "cabo", "kivo", "kaboom")


def stacked(
    rules: Ruleset,
    hands: Sequence[Sequence[str]],
    discard: str,
    draw: Sequence[str] = (),
    first: int | None = None,
) -> StackedDeal:
    """A stacked deal from card names; each name takes the next unused card of that name."""
    free = rules.build_deck().ids_by_name()

    def take(name: str) -> int:
        return free[name].pop(0)

    return StackedDeal(
        hands=[[take(c) for c in hand] for hand in hands],
        discard=take(discard),
        draw_top=[take(c) for c in draw],
        first=first,
    )


def table(
    preset: str,
    hands: Sequence[Sequence[str]],
    discard: str,
    draw: Sequence[str] = (),
    first: int | None = 0,
    seed: int = 1,
    **options: Any,
) -> Game:
    """A game of ``preset`` with a stacked first round; opening peeks off unless asked for."""
    rules = make_ruleset(preset, {"opening_peek": 0, **options})
    return Game(rules, len(hands), seed, deal=stacked(rules, hands, discard, draw, first))


def play(game: Game, *texts: str) -> None:
    for text in texts:
        game.apply(Action.from_text(text))


def refused(game: Game, text: str, error: type[IllegalAction], message: str) -> None:
    """``text`` is refused with ``error`` whose message contains ``message``; nothing changes."""
    before = game.snapshot()
    with pytest.raises(error) as caught:
        game.apply(Action.from_text(text))
    assert type(caught.value) is error
    assert message in str(caught.value)
    assert game.snapshot() == before


def names(game: Game, cards: Sequence[int]) -> list[str | None]:
    return [game.deck.names[c] if c >= 0 else None for c in cards]


CABO_HANDS = [["1", "2", "3", "4"], ["5", "6", "0", "0"], ["9", "9", "12", "13"]]

# -------------------------------------------------------------------------------- determinism


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_same_seed_same_deal(preset: str) -> None:
    # The state is a function of (rules, seed): the same seed deals the same round.
    rules = make_ruleset(preset)
    assert Game(rules, 4, 42).snapshot() == Game(rules, 4, 42).snapshot()


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_different_seeds_deal_differently(preset: str) -> None:
    # Different seeds shuffle differently (no two of ten seeds deal the same hands and piles).
    rules = make_ruleset(preset)
    deals = set()
    for seed in range(10):
        game = Game(rules, 3, seed)
        deals.add((str(game.hands), tuple(game.draw_pile)))
    assert len(deals) == 10


def test_same_seed_same_actions_same_state() -> None:
    # Replaying the same actions on the same seed reproduces every later shuffle and deal too.
    rules = make_ruleset("boyo", {"rounds": 3})
    games = [Game(rules, 3, 9), Game(rules, 3, 9)]
    rng = random.Random(5)
    for _ in range(3000):
        if games[0].is_match_over:
            break
        legal = games[0].all_legal_actions()
        calls = [a for a in legal if a.kind == "call"]
        action = calls[0] if calls and rng.random() < 0.02 else rng.choice(legal)
        for game in games:
            game.apply(action)
        assert games[0].snapshot() == games[1].snapshot()
    assert games[0].reshuffles > 0 or games[0].round_no > 1


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_the_trusted_path_applies_as_apply_does(preset: str) -> None:
    # apply_trusted, given actions from the legal lists (sets included), reaches exactly the
    # state and events that the checked apply reaches, through reshuffles and new rounds.
    rules = make_ruleset(preset)
    checked, trusted = Game(rules, 4, 11), Game(rules, 4, 11)
    rng = random.Random(3)
    for _ in range(4000):
        if checked.is_match_over:
            break
        legal = list(checked.all_legal_actions())
        if checked.to_act is not None:
            legal += checked.set_replaces(checked.to_act)
        calls = [a for a in legal if a.kind == "call"]
        action = calls[0] if calls and rng.random() < 0.03 else rng.choice(legal)
        assert trusted.apply_trusted(action) == checked.apply(action)
        assert trusted.snapshot() == checked.snapshot()
        assert trusted.shown == checked.shown
    assert checked.is_match_over


def test_a_round_deals_the_stream_of_its_own_seed() -> None:
    # One generator per match, reseeded for each shuffle, gives each round the order that a
    # generator seeded with (seed, round, 0) gives: card i takes the i-th random key.
    rules = make_ruleset("cabo")
    game = Game(rules, 3, 21)
    stream = random.Random((21 << 40) ^ (1 << 20))
    keys = [stream.random() for _ in range(len(game.deck))]
    order = sorted(range(len(game.deck)), key=keys.__getitem__)
    assert game.hands[0] == order[-1:-5:-1]
    assert game.hands[2] == order[-9:-13:-1]
    assert game.discard_pile == [order[-13]]
    assert game.draw_pile == order[:-13]


def test_a_game_pickles_and_plays_on_identically() -> None:
    # The match's generator is made without seeding (the first deal reseeds it); a game still
    # pickles (the search's process pool sends games) and plays on as the original does.
    rules = make_ruleset("cabo")
    game = Game(rules, 3, 9)
    copy = pickle.loads(pickle.dumps(game))  # noqa: S301 - our own bytes, just made
    assert copy.snapshot() == game.snapshot()
    rng = random.Random(4)
    while not game.is_match_over:
        action = rng.choice(game.all_legal_actions())
        assert copy.apply(action) == game.apply(action)
    assert copy.snapshot() == game.snapshot()


def test_round_results_are_the_values_their_constructor_makes() -> None:
    # The end of a round builds its RoundResult in one step (RoundResult.made): every one is the
    # value the dataclass constructor makes from the same fields, equal, alike and picklable.
    rules = make_ruleset("cabo")
    rng = random.Random(11)
    seen = 0
    for seed in range(5):
        game = Game(rules, 4, seed)
        while not game.is_match_over:
            game.apply(rng.choice(game.all_legal_actions()))
        for result in game.history:
            fields = {f.name: getattr(result, f.name) for f in dataclasses.fields(result)}
            made = RoundResult(**fields)
            assert result == made
            assert repr(result) == repr(made)
            assert RoundResult.from_data(result.to_data()) == result
            assert pickle.loads(pickle.dumps(result)) == made  # noqa: S301 - our own bytes
            seen += 1
    assert seen > 5


def test_engine_uses_no_global_randomness() -> None:
    # Shuffles come from the seed only: reseeding or using the global generator changes nothing.
    rules = make_ruleset("cabo")
    random.seed(1)
    first = Game(rules, 3, 7).snapshot()
    random.seed(2)
    random.random()
    assert Game(rules, 3, 7).snapshot() == first


# -------------------------------------------------------------------------------- construction


@pytest.mark.parametrize("players", [-1, 0, 1, 9, 12])
def test_a_table_seats_two_to_eight(players: int) -> None:
    # A table seats 2 to 8 players.
    with pytest.raises(ValueError, match="2 to 8"):
        Game(make_ruleset("cabo"), players, 1)


@pytest.mark.parametrize("players", [2, 8])
def test_two_and_eight_players_are_dealt(players: int) -> None:
    # Each player gets hand_size cards; one card starts the discard pile; the rest is the draw.
    game = Game(make_ruleset("kaboom"), players, 3)
    assert [len(h) for h in game.hands] == [4] * players
    assert len(game.discard_pile) == 1
    assert len(game.draw_pile) == 52 - 4 * players - 1


def test_deck_too_small_for_the_table() -> None:
    # Every player's hand and the first discard must come from the deck.
    rules = make_ruleset("cabo", {"hand_size": 7})
    with pytest.raises(ValueError, match="cards"):
        Game(rules, 8, 1)


def test_totals_need_one_number_per_player() -> None:
    # Starting totals (a match resumed mid-way) give one number per seat.
    with pytest.raises(ValueError, match="totals"):
        Game(make_ruleset("cabo"), 3, 1, totals=[0, 0])


def test_first_player_must_be_a_seat() -> None:
    # The first player is one of the seats.
    with pytest.raises(ValueError, match="first"):
        Game(make_ruleset("cabo"), 3, 1, first=3)


def test_starting_totals_and_first_player() -> None:
    # A match can start from given totals and with a given first player.
    game = Game(make_ruleset("cabo", {"opening_peek": 0}), 3, 1, totals=[10, 20, 30], first=2)
    assert game.totals == [10, 20, 30]
    assert game.to_act == 2


# -------------------------------------------------------------------------------- stacked deals


def test_stacked_deal_fixes_hands_discard_draw_order_and_first() -> None:
    # A stacked deal fixes hands, the first discard, the top of the draw pile and who starts;
    # the rest of the deck lies under them.
    game = table("cabo", CABO_HANDS, "7", draw=["11", "8", "10"], first=1)
    assert [names(game, h) for h in game.hands] == CABO_HANDS
    assert names(game, game.discard_pile) == ["7"]
    assert names(game, game.draw_pile[-3:]) == ["10", "8", "11"]  # popped from the end
    assert game.to_act == 1
    assert sorted(game.draw_pile + game.discard_pile + [c for h in game.hands for c in h]) == list(
        range(52)
    )
    play(game, "1 draw")
    assert names(game, [game.held]) == ["11"]


def test_stacked_deal_rest_of_deck_follows_the_seed() -> None:
    # The unstacked rest of the deck is shuffled from the seed.
    same = [table("cabo", CABO_HANDS, "7", seed=4).draw_pile for _ in range(2)]
    assert same[0] == same[1]
    assert table("cabo", CABO_HANDS, "7", seed=5).draw_pile != same[0]


def test_stacked_deal_first_defaults_to_the_constructor() -> None:
    # Without deal.first, the constructor's first player starts.
    rules = make_ruleset("kivo", {"opening_peek": 0})
    game = Game(rules, 3, 1, first=2, deal=stacked(rules, CABO_HANDS, "7"))
    assert game.to_act == 2


THREE_HANDS = "the deal must give 3 hands"
DISTINCT = "a stacked deal must name distinct cards of the deck"


@pytest.mark.parametrize(
    ("deal", "message"),
    [
        (StackedDeal(hands=[[0, 1, 2, 3], [4, 5, 6, 7]], discard=8), THREE_HANDS),
        (StackedDeal(hands=[[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 0]], discard=11), DISTINCT),
        (StackedDeal(hands=[[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]], discard=3), DISTINCT),
        (
            StackedDeal(
                hands=[[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]], discard=12, draw_top=[12]
            ),
            DISTINCT,
        ),
        (StackedDeal(hands=[[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 52]], discard=12), DISTINCT),
        (StackedDeal(hands=[[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, -1]], discard=12), DISTINCT),
    ],
)
def test_invalid_stacked_deals(deal: StackedDeal, message: str) -> None:
    # A stacked deal gives one hand per seat and names distinct cards of the deck
    # (above: two hands for three seats, 0 twice, 3 twice, 12 twice, no card 52 or -1).
    with pytest.raises(ValueError, match=message):
        Game(make_ruleset("cabo"), 3, 1, deal=deal)


# -------------------------------------------------------------------------------- clones


def test_clone_is_independent() -> None:
    # A clone and its original never share mutable state: playing one leaves the other as it was.
    rules = make_ruleset("boyo", {"rounds": 2})
    game = Game(rules, 3, 11)
    rng = random.Random(3)
    for _ in range(40):
        game.apply(rng.choice(game.all_legal_actions()))
    before = game.snapshot()
    twin = game.clone()
    assert twin.snapshot() == before
    for _ in range(200):
        if twin.is_match_over:
            break
        twin.apply(rng.choice(twin.all_legal_actions()))
    assert game.snapshot() == before
    assert twin.snapshot() != before
    # ... and the other way round.
    twin_state = twin.snapshot()
    for _ in range(50):
        if game.is_match_over:
            break
        game.apply(rng.choice(game.all_legal_actions()))
    assert twin.snapshot() == twin_state


def test_clone_sets_every_slot_to_the_originals_value() -> None:
    # Game.clone names each slot (no loop over them): a slot added to State and forgotten
    # there is unset on the clone, or set to something else.
    game = Game(make_ruleset("kaboom"), 4, 5)
    rng = random.Random(5)
    for _ in range(25):
        game.apply(rng.choice(game.all_legal_actions()))
    game.legal_actions(game.turn)  # a cache to leave behind
    twin = game.clone()
    copied: dict[str, Any] = {"_legal_cache": {}, "_events": []}  # fresh, not copied
    slots = [name for cls in type(game).__mro__ for name in getattr(cls, "__slots__", ())]
    assert len(slots) > 30  # the state's slots were found
    for name in slots:
        assert hasattr(twin, name), name
        assert getattr(twin, name) == copied.get(name, getattr(game, name)), name


def test_clone_plays_on_identically() -> None:
    # A clone continues exactly like its original under the same actions.
    game = Game(make_ruleset("cabo"), 4, 2)
    rng = random.Random(8)
    for _ in range(30):
        game.apply(rng.choice(game.all_legal_actions()))
    twin = game.clone()
    for _ in range(100):
        if game.is_round_over:
            break
        action = rng.choice(game.all_legal_actions())
        assert twin.legal_actions(action.player) == game.legal_actions(action.player)
        game.apply(action)
        twin.apply(action)
        assert twin.snapshot() == game.snapshot()


def test_the_rounds_count_of_actions_survives_snapshots_and_clones() -> None:
    # The count of a round's play (round_actions) is read off the version (State.round_actions):
    # a snapshot taken in play and restored (its version starts again at 0), and a clone, go on
    # counting from where the original was, reach the bound at the same action, and keep the
    # count once the round is over; the next round's opening starts again from 0.
    rules = make_ruleset("cabo", {"round_action_limit": 100})
    game = Game(rules, 2, 7)
    rng = random.Random(3)
    while game.round_actions < 40:
        game.apply(rng.choice([a for a in game.all_legal_actions() if a.kind != A.CALL]))
    assert game.phase.in_play
    twins = [Game.from_snapshot(game.snapshot()), game.clone()]
    assert [t.round_actions for t in twins] == [40, 40]
    assert twins[0].version == 0
    assert game.version > 40
    while game.phase.in_play:
        action = rng.choice([a for a in game.all_legal_actions() if a.kind != A.CALL])
        counted = game.round_actions
        for g in (game, *twins):
            g.apply(action)
        assert [t.round_actions for t in twins] == [game.round_actions] * 2
        assert game.round_actions in (counted + 1, counted)  # (the same once the round ends)
    assert game.round_actions == 100  # the bound ended it: the action at the bound counts
    ended = game.snapshot()
    assert ended["round_actions"] == 100
    for g in (game, *twins):
        assert g.snapshot() == ended
        assert Game.from_snapshot(ended).round_actions == 100
        g.apply(g.all_legal_actions()[0])  # next_round
        assert g.round_actions == 0


@pytest.mark.parametrize(
    ("hand", "values", "moon"),
    [
        (["13", "13", "12", "12", "0"], {}, True),  # 50: the least total of a moon
        (["13", "13", "12", "11", "0"], {}, False),  # 49: below it, no moon
        (["13", "12", "12", "12", "11"], {}, False),  # 60: one 13
        (["13", "13", "12", "12", "0"], {"0": -5}, True),  # 45: a card below 0
        (["13", "13", "12", "12", "5"], {"5": 12}, True),  # a 5 worth 12 is a 12
    ],
)
def test_shooting_the_moon_reads_the_values_of_any_hand(
    hand: list[str], values: dict[str, int], moon: bool
) -> None:
    # A hand is looked at card by card only from the least total a moon can have (50 when no
    # card is worth less than 0; every hand when one is): the moon is found on both sides.
    base = make_ruleset("cabo").values
    game = table(
        "cabo", [hand, ["1", "2", "3", "4", "5"]], "6", hand_size=5, values={**base, **values}
    )
    play(game, "0 call", "1 draw", "1 replace 0")
    result = game.history[-1]
    assert (result.reasons[0] == ("shot_the_moon",)) is moon
    assert (result.round_scores == (0, 50)) is moon


def test_an_action_that_ends_the_round_is_not_counted() -> None:
    # A call's last final turn ends the round: the count stays at the actions before it.
    game = Game(make_ruleset("cabo"), 2, 11)
    rng = random.Random(4)
    while not game.phase.in_play:
        game.apply(rng.choice(game.all_legal_actions()))
    game.apply(Action(game.turn, A.CALL))
    while game.phase.in_play:
        before = game.round_actions
        game.apply(rng.choice([a for a in game.all_legal_actions() if a.kind != A.CALL]))
    assert game.phase.is_over
    assert game.round_actions == before


# -------------------------------------------------------------------------------- refusals


def test_not_your_turn() -> None:
    # Only the player whose turn it is may draw, take, call or end a turn.
    game = table("cabo", CABO_HANDS, "7")
    refused(game, "1 draw", NotYourTurn, "it is seat 0's turn, not seat 1's")
    refused(game, "2 take_discard", NotYourTurn, "seat 0's turn")
    refused(game, "1 call", NotYourTurn, "seat 0's turn")
    play(game, "0 draw")
    refused(game, "2 discard", NotYourTurn, "seat 0's turn")
    refused(game, "1 replace 0", NotYourTurn, "seat 0's turn")


def test_wrong_phase() -> None:
    # Actions that do not fit this moment of the round: play before the opening look, a second
    # draw, a replace with nothing held, next_round during play.
    rules = make_ruleset("cabo")
    game = Game(rules, 3, 1, deal=stacked(rules, CABO_HANDS, "7"))
    refused(game, "0 draw", WrongPhase, "play has not started")
    play(game, "0 opening_peek 0 1")
    refused(game, "0 opening_peek 2 3", WrongPhase, "already looked")
    play(game, "1 opening_peek 0 1", "2 opening_peek 2 3")
    refused(game, "0 opening_peek 0 1", WrongPhase, "the opening look is over")
    refused(game, "0 replace 0", WrongPhase, "you hold no card")
    refused(game, "0 discard", WrongPhase, "you hold no card")
    refused(game, "0 next_round", WrongPhase, "only after a round has ended")
    play(game, "0 draw")
    refused(game, "0 draw", WrongPhase, "already drawn")
    refused(game, "0 take_discard", WrongPhase, "already drawn")


def test_wrong_phase_after_the_round_and_the_match() -> None:
    # After a round only next_round is possible; after the match nothing is.
    game = table("kivo", CABO_HANDS, "7", draw=["1", "2", "3", "5"], rounds=1)
    play(game, "0 call", "1 draw", "1 discard")
    while not game.is_round_over:
        play(game, f"{game.to_act} draw", f"{game.to_act} discard")
    assert game.is_match_over
    refused(game, "0 draw", WrongPhase, "the match is over")
    refused(game, "0 next_round", WrongPhase, "the match is over")
    game = table("kivo", CABO_HANDS, "7", draw=["1", "2"], rounds=3)
    play(game, "0 call", "1 draw", "1 discard", "2 draw", "2 discard")
    assert game.is_round_over
    assert not game.is_match_over
    refused(game, "1 draw", WrongPhase, "the round is over; the next action is next_round")


def test_invalid_slot() -> None:
    # A slot that does not exist or holds no card, or the same slot twice.
    rules = make_ruleset("cabo")
    game = Game(rules, 3, 1, deal=stacked(rules, CABO_HANDS, "7"))
    refused(game, "0 opening_peek 1 1", InvalidSlot, "exactly 2 different cards")
    refused(game, "0 opening_peek 0", InvalidSlot, "exactly 2")
    play(game, "0 opening_peek 0 1", "1 opening_peek 0 1", "2 opening_peek 0 1")
    play(game, "0 draw")
    refused(game, "0 replace 4", InvalidSlot, "no card lies there")
    refused(game, "0 replace -1", InvalidSlot, "no card lies there")
    refused(game, "0 replace 1 1", InvalidSlot, "different")


def test_invalid_slot_after_a_set_and_a_tap() -> None:
    # A slot emptied by a set or a TAP hit holds no card for the rest of the round.
    game = table("cabo", [["5", "5", "3", "4"], ["1", "2", "3", "4"]], "6", draw=["0", "1", "2"])
    play(game, "0 draw", "0 replace 0 1")
    assert names(game, game.hands[0]) == ["0", None, "3", "4"]
    play(game, "1 draw", "1 discard")
    play(game, "0 draw")
    refused(game, "0 replace 1", InvalidSlot, "cannot replace slot 1: no card lies there")
    game = table("boyo", [["5S", "2H"], ["6S", "7H"]], "5H", hand_size=2)
    play(game, "0 tap 0")
    refused(game, "0 tap 0", InvalidSlot, "cannot tap slot 0: no card lies there")


def test_power_unavailable() -> None:
    # A power is offered only by a card drawn from the deck, and only until used or forfeited.
    game = table("cabo", CABO_HANDS, "8", draw=["7", "3"])
    refused(game, "0 peek 0", PowerUnavailable, "no peek power is available now")
    play(game, "0 take_discard")
    refused(game, "0 peek 0", PowerUnavailable, "a card taken from the discard pile gives no power")
    play(game, "0 replace 3")
    play(game, "1 draw", "1 discard")
    refused(game, "1 spy 0:0", PowerUnavailable, "no spy power")  # 7 gives peek only
    refused(game, "1 swap 0 0:0", PowerUnavailable, "no swap power")
    play(game, "1 peek 0")
    play(game, "2 draw")
    refused(game, "2 skip", PowerUnavailable, "there is no power to skip")


def test_invalid_target() -> None:
    # Spy and swap need another player at this table; an action needs a seat of the table.
    game = table("cabo", CABO_HANDS, "4", draw=["9", "11"])
    refused(game, "3 draw", InvalidTarget, "there is no seat 3")
    refused(game, "-1 draw", InvalidTarget, "there is no seat -1")
    play(game, "0 draw", "0 discard")
    refused(game, "0 spy 0:1", InvalidTarget, "spy needs another player")
    refused(game, "0 spy 3:1", InvalidTarget, "spy needs another player")
    refused(game, "0 spy 1:9", InvalidSlot, "cannot spy at slot 9")
    play(game, "0 spy 1:1")
    play(game, "1 draw", "1 discard")
    refused(game, "1 swap 0 1:0", InvalidTarget, "swap needs another player")
    refused(game, "1 swap 7 0:0", InvalidSlot, "cannot swap slot 7")
    refused(game, "1 swap 0 0:7", InvalidSlot, "cannot swap with slot 7")


def test_call_not_allowed() -> None:
    # One call per round, and only when the rules allow it: cabo at the start of a turn; boyo
    # also after the replace or discard but never while a drawn card awaits a decision.
    game = table("cabo", CABO_HANDS, "7", draw=["1"])
    play(game, "0 draw")
    refused(game, "0 call", CallNotAllowed, "Cabo may be called only at the start of your turn")
    play(game, "0 discard", "1 call")
    refused(game, "2 call", CallNotAllowed, "Cabo has already been called this round")
    boyo = table("boyo", [["AS", "2S", "3S", "4S"], ["AH", "2H", "3H", "4H"]], "5D", draw=["6C"])
    play(boyo, "0 draw")
    refused(
        boyo,
        "0 call",
        CallNotAllowed,
        "BOYO may be called only at the start of your turn or after your replace or discard",
    )
    play(boyo, "0 discard", "0 call")
    refused(boyo, "1 call", CallNotAllowed, "BOYO has already been called")


def test_not_allowed_by_rules() -> None:
    # Actions that this table's ruleset does not have: TAP, undo, END TURN, sets.
    game = table("cabo", CABO_HANDS, "4")
    refused(game, "1 tap 0", NotAllowedByRules, "this table plays without TAP")
    play(game, "0 take_discard")
    refused(game, "0 undo", NotAllowedByRules, "does not allow undoing")
    play(game, "0 replace 0")
    refused(game, "1 end_turn", NotAllowedByRules, "turns on this table end by themselves")
    kivo = table("kivo", CABO_HANDS, "4")
    play(kivo, "0 draw")
    refused(kivo, "0 replace 0 1", NotAllowedByRules, "does not allow replacing a set")


def test_error_codes() -> None:
    # Each refusal class carries a stable machine code for the wire.
    codes = {
        cls.code
        for cls in (
            WrongPhase,
            NotYourTurn,
            InvalidSlot,
            InvalidTarget,
            PowerUnavailable,
            CallNotAllowed,
            NotAllowedByRules,
        )
    }
    assert len(codes) == 7
    assert IllegalAction.code not in codes


# -------------------------------------------------------------------------------- undo (kivo)


def test_undo_is_offered_only_after_taking_the_discard() -> None:
    # Kivo: a take-discard may be undone; a draw never can (hidden information was gained),
    # not even after an earlier take-discard and undo on the same table.
    game = table("kivo", CABO_HANDS, "4", draw=["11", "12", "13"])
    play(game, "0 take_discard")
    assert Action(0, "undo") in game.legal_actions(0)
    play(game, "0 undo")
    assert names(game, game.discard_pile) == ["4"]
    play(game, "0 draw")
    assert Action(0, "undo") not in game.legal_actions(0)
    refused(game, "0 undo", WrongPhase, "only right after taking the discard")
    play(game, "0 replace 0", "1 take_discard", "1 undo", "1 take_discard", "1 replace 0")
    play(game, "2 draw")
    assert Action(2, "undo") not in game.legal_actions(2)


# -------------------------------------------------------------------------------- engine bugs


def test_refusing_a_peek_with_a_stray_target_is_an_illegal_action() -> None:
    # A malformed peek (the JSON codec accepts "target" on any kind) is refused with an
    # IllegalAction, never a crash, and changes nothing.
    game = table("cabo", CABO_HANDS, "4", draw=["7"])
    play(game, "0 draw", "0 discard")
    stray = Action.from_json({"by": 0, "do": "peek", "slot": 0, "target": 5})
    before = game.snapshot()
    with pytest.raises(IllegalAction):
        game.apply(stray)
    assert game.snapshot() == before


def test_refused_peek_is_not_explained_as_a_swap() -> None:
    # The refusal of a peek at a slot that holds no card speaks of a peek.
    game = table("cabo", CABO_HANDS, "4", draw=["7"])
    play(game, "0 draw", "0 discard")
    with pytest.raises(InvalidSlot) as caught:
        game.apply(Action(0, "peek", (9,)))
    assert "swap" not in str(caught.value)


def test_refused_draw_with_stray_fields_does_not_blame_the_draw_pile() -> None:
    # A draw with a stray target is refused, but not because "there is no card left to draw"
    # while the draw pile is full.
    game = table("cabo", CABO_HANDS, "4")
    assert game.draw_pile
    stray = Action.from_json({"by": 0, "do": "draw", "target": 1})
    with pytest.raises(IllegalAction) as caught:
        game.apply(stray)
    assert "no card left to draw" not in str(caught.value)


def test_is_legal_agrees_with_apply() -> None:
    # One place decides legality: is_legal answers exactly what apply accepts.  A set replace
    # given with its slots out of order is accepted by apply (it sorts them) but is_legal says
    # no; either both must accept it or both refuse it.
    game = table("cabo", [["5", "5", "3", "4"], ["1", "2", "3", "4"]], "6", draw=["0"])
    play(game, "0 draw")
    unordered = Action(0, "replace", (1, 0))
    try:
        game.clone().apply(unordered)
        accepted = True
    except IllegalAction:
        accepted = False
    assert game.is_legal(unordered) == accepted


def test_a_tap_never_leaves_the_turn_player_without_an_action() -> None:
    # A player who cannot act at the start of their turn passes (docs/engine.md).  Here, on the
    # last final turn, every card but the top discard lies in seat 1's hand (penalty cards of
    # earlier misses: a table of five or more seats can hold the deck within max_hand), and a
    # TAP miss leaves seat 0 at the start of its turn with an empty hand, nothing to draw and no
    # call to make: seat 0 must pass (ending the round), not wait for someone else to TAP.
    game = table("boyo", [["2S"], ["5H"]], "2H", draw=["3C"], hand_size=1)
    play(game, "0 tap 0", "0 draw", "0 discard", "0 end_turn", "1 call")
    assert game.to_act == 0
    assert game.hands[0] == [-1]
    data = game.snapshot()
    data["hands"][1] += data["draw_pile"] + data["discard_pile"][:-1]
    data["draw_pile"], data["discard_pile"] = [], data["discard_pile"][-1:]
    game = Game.from_snapshot(data)
    play(game, "1 tap 0")  # a miss, and no card left to deal as a penalty
    assert not game.can_draw()
    own = [a for a in game.legal_actions(0) if a.kind != "tap"]
    assert game.is_round_over or (game.to_act is not None and own), (
        f"seat {game.to_act} is to act with no action; all legal: "
        f"{sorted({a.kind for a in game.all_legal_actions()})}"
    )


def test_legal_actions_of_a_non_seat_list_nothing() -> None:
    # SPECTATOR (-1) is no seat: nothing is listed for it, at the opening look and in play with
    # TAP, where every seat has actions (negative indexing must not hand it the last seat's
    # taps or looks).  apply refuses it too (test_invalid_target).
    rules = make_ruleset("boyo")
    for game in (Game(rules, 3, 1), table("boyo", [["AS", "2S"], ["AH", "2H"]], "5D", hand_size=2)):
        last = game.players - 1
        assert game.legal_actions(last), "the last seat has something to do here"
        assert game.legal_actions(SPECTATOR) == ()


def _play_short_games(rules: Ruleset, seeds: range) -> None:
    for seed in seeds:
        game = Game(rules, 4, seed)
        rng = random.Random(seed)
        for _ in range(400):
            if game.is_round_over:
                break
            legal = game.all_legal_actions()
            calls = [a for a in legal if a.kind == "call"]
            game.apply(calls[0] if calls and rng.random() < 0.01 else rng.choice(legal))


def test_finished_games_leave_no_memory_behind() -> None:
    # A game's memory goes with the game: once warm, process-wide caches stop growing, however
    # many games a server plays (unbounded growth is ~70 kB per short 4-player game here).
    rules = make_ruleset("boyo", {"opening_peek": 0, "rounds": 1, "tap_penalty_cards": 2})
    tracemalloc.start()
    try:
        _play_short_games(rules, range(0, 20))
        gc.collect()
        warm = tracemalloc.get_traced_memory()[0]
        _play_short_games(rules, range(20, 60))
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - warm
    finally:
        tracemalloc.stop()
    assert grown < 1_000_000, f"{grown / 1e6:.1f} MB kept after 40 finished games"


def test_a_hand_never_outgrows_max_hand_and_legal_lists_stay_small() -> None:
    # Boyo with sets: TAP and sets.  A player who misses TAPs on purpose gets a penalty card
    # for each miss until the hand has max_hand places, and none after; the legal lists name single
    # replaces only (sets are a rule: set_size), so no list grows with the combinations of a
    # hand's cards.
    rules = make_ruleset("boyo", {"max_hand": 10, "set_replace": True})
    game = Game(rules, 2, 7)
    for seat in range(2):
        game.apply(game.legal_actions(seat)[0])
    ranks = game.deck.ranks
    misses = 0
    while misses < 40 and not game.is_round_over:
        top = ranks[game.top_discard]
        miss = next(
            (
                a
                for a in game.legal_actions(1)
                if a.kind == A.TAP and ranks[game.hands[1][a.slot]] != top
            ),
            None,
        )
        if miss is None:
            break
        game.apply(miss)
        misses += 1
        assert len(game.hands[1]) <= 10
    assert misses == 40
    assert len(game.hands[1]) == 10
    game.apply(Action(0, A.DRAW))
    legal = game.legal_actions(0)
    assert all(len(a.slots) <= 1 for a in legal)
    assert game.set_size(0) == 4
    assert game.is_legal(Action(0, A.REPLACE, (2, 0)))  # a set, in any order
    assert not game.is_legal(Action(0, A.REPLACE, (0, 1, 2, 3, 0)))
    assert len(game.set_replaces(0)) == 6 + 4 + 1  # 4 cards: pairs, triples, the four


def test_max_hand_is_bounded() -> None:
    with pytest.raises(RulesetError, match="max_hand"):
        make_ruleset("boyo", {"max_hand": MAX_HAND_LIMIT + 1})
    with pytest.raises(RulesetError, match="max_hand"):
        make_ruleset("boyo", {"max_hand": 3})
