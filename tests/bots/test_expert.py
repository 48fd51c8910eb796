"""The expert level: its budget, its fallback, and the deals it samples."""

from __future__ import annotations

import random

import pytest

from facedown.bots import ExpertBot, seat_info
from facedown.bots.base import SeatInfo
from facedown.bots.determinize import Sampler
from facedown.bots.heuristic import HeuristicBot
from facedown.bots.memory import Memory, parse_place
from facedown.bots.profiles import HARD
from facedown.bots.search import KNOWN_BY_TURN, keep_low_per_turn, opponent_knows_at
from facedown.engine import PRESETS, Game, Phase, make_ruleset, view
from facedown.records.matches import match_seed

from .tables import APPLIED, RULESETS, NotingGame, random_states

PUBLIC = ("players", "round", "phase", "to_act", "hands", "top_discard", "discard_size",
          "draw_size", "caller", "final_turns_left", "totals", "peeked",
          "sudden_death")  # fmt: skip


def decision_states(preset: str, count: int) -> list[Game]:
    """States where the seat to act has a real choice."""
    out = []
    for game in random_states(PRESETS[preset], 2, seed=3, count=400):
        seat = game.to_act
        if seat is not None and len(game.legal_actions(seat)) > 1:
            out.append(game)
        if len(out) == count:
            break
    return out


class SteppingClock:
    """A clock that moves on by ``step`` seconds each time it is read: the search's own work
    (sampling, playouts) is what makes time pass, and the same on any machine."""

    def __init__(self, step: float) -> None:
        self.step = step
        self.now = 0.0
        self.reads = 0

    def __call__(self) -> float:
        self.reads += 1
        self.now += self.step
        return self.now


def test_expert_keeps_to_its_time_budget() -> None:
    # The search begins no playout that the longest so far says could not end by the deadline,
    # and drops a deal left unfinished: by its own clock a decision ends within its budget (one
    # read of the clock past it at most), yet it did search.
    budget = 0.03
    searched = 0
    for preset in ("cabo", "boyo"):
        for i, game in enumerate(decision_states(preset, 8)):
            clock = SteppingClock(0.0005)
            bot = ExpertBot(seed=i, budget_ms=budget * 1000, clock=clock)
            seat = game.to_act
            assert seat is not None
            action = bot.choose(seat_info(game, seat))
            assert game.is_legal(action)
            assert clock.now <= budget + clock.step
            searched += bot.last_worlds > 0
    assert searched >= 3


def test_expert_keeps_to_its_iteration_budget() -> None:
    searched = 0
    for i, game in enumerate(decision_states("cabo", 10)):
        bot = ExpertBot(seed=i, budget_ms=0, iterations=5)
        seat = game.to_act
        assert seat is not None
        action = bot.choose(seat_info(game, seat))
        assert game.is_legal(action)
        assert bot.last_worlds in (0, 5)  # 0: a single sensible option, nothing to search
        searched += bot.last_worlds == 5
    assert searched >= 3


def test_expert_plays_hard_when_there_is_one_legal_action() -> None:
    for game in random_states(PRESETS["cabo"], 2, seed=4, count=200):
        seat = game.to_act
        if seat is None or len(game.legal_actions(seat)) != 1:
            continue
        bot = ExpertBot(seed=1, budget_ms=0, iterations=50)
        assert bot.choose(seat_info(game, seat)) == game.legal_actions(seat)[0]
        assert bot.last_worlds == 0


def test_a_sampled_sudden_death_round_is_played_by_the_tied_alone() -> None:
    # Kivo Ranked, three seats, seed 26 played by "call when you may, else draw and discard":
    # seats 0 and 1 are tied after three rounds, seat 2 watches the fourth.
    rules = make_ruleset("kivo", {"rounds": 3, "sudden_death": True})
    game = Game(rules, 3, match_seed(26, 1))
    rng = random.Random(1)
    prefer = ("call", "opening_peek", "draw", "discard", "skip", "end_turn", "next_round")
    while not game.is_match_over:
        seat = game.to_act
        if game.round_no == 4 and seat is not None:
            info = seat_info(game, seat)
            bot = HeuristicBot(seed=1)
            bot.memory.observe(info)
            sampled = Sampler(info, bot.memory, rules.to_json()).sample(rng)
            assert sampled.sudden_seats() == game.sudden_seats() == (0, 1)
            assert sampled.legal_actions(2) == ()
            assert sampled.legal_actions(seat) == game.legal_actions(seat)
        legal = [a for s in range(3) for a in game.legal_actions(s) if a.kind in prefer]
        game.apply(min(legal, key=lambda a: prefer.index(a.kind)))
    assert game.round_no == 4


@pytest.mark.parametrize("name", sorted(RULESETS))
def test_sampled_deals_agree_with_what_the_seat_knows(name: str) -> None:
    rules = RULESETS[name]
    rng = random.Random(1)
    for game in random_states(rules, 3, seed=8, count=80):
        seat = game.to_act
        if seat is None:
            continue
        info = seat_info(game, seat)
        bot = HeuristicBot(seed=1)
        bot.memory.observe(info)
        sampled = Sampler(info, bot.memory, rules.to_json(), keep_low=0.5).sample(rng)
        mine, theirs = view(game, seat).to_json(), view(sampled, seat).to_json()
        for key in PUBLIC:
            assert mine[key] == theirs[key], key
        assert mine["held"] == theirs["held"]
        assert mine["powers"] == theirs["powers"]
        names = rules.deck_cards.names
        for place, name_ in info.knowledge.items():
            owner, slot = parse_place(place)
            assert names[sampled.hands[owner][slot]] == name_
        assert sampled.legal_actions(seat) == game.legal_actions(seat)


def test_playouts_tap_the_cards_a_seat_knows_to_match_the_top_discard() -> None:
    from facedown.bots.rollout import PlayoutPolicy
    from facedown.engine import Action, StackedDeal
    from facedown.engine.phases import TURN_START

    rules = PRESETS["boyo"]
    ids = rules.deck_cards.ids_by_name()
    hands = [
        [ids[n].pop() for n in names]
        for names in (("5H", "2C", "9D", "JS"), ("5S", "8C", "3D", "4S"))
    ]
    game = Game(rules, 2, 1, deal=StackedDeal(hands, ids["5D"].pop(), first=0))
    for seat in (0, 1):
        game.apply(Action(seat, "opening_peek", (0, 1)))
    assert game.phase == TURN_START
    PlayoutPolicy(game).taps(game)
    # Both seats know a 5 in slot 0: seat 1 (after the turn player) taps first, then seat 0.
    assert game.hands[0][0] < 0
    assert game.hands[1][0] < 0
    assert len(game.discard_pile) == 3
    PlayoutPolicy(game).taps(game)  # nothing more anyone knows to match: no guessing
    assert len(game.discard_pile) == 3
    assert all(c >= 0 for c in game.hands[0][1:])
    cabo = Game(PRESETS["cabo"], 2, 1)
    before = cabo.snapshot()
    PlayoutPolicy(cabo).taps(cabo)  # no TAP at this table
    assert cabo.snapshot() == before


def test_playouts_replace_a_known_set_worth_more_than_the_held_card() -> None:
    """Sets are not in the legal lists (any 2 to 4 equal own cards make one): the playouts
    still play them.  When they looked for them in the list, they never did, and the expert
    fell back against `hard` in cabo."""
    from facedown.bots.rollout import PlayoutPolicy
    from facedown.engine import Action, StackedDeal

    rules = PRESETS["cabo"]
    deal = StackedDeal.from_names(
        rules.deck_cards, [["9", "9", "2", "3"], ["5", "8", "3", "4"]], "6", ["1"], 0
    )
    game = Game(rules, 2, 1, deal=deal)
    for seat in (0, 1):
        game.apply(Action(seat, "opening_peek", (0, 1)))
    game.apply(Action(0, "draw"))
    assert game.held >= 0
    assert game.deck.values[game.held] == 1
    assert not any(len(a.slots) > 1 for a in game.legal_actions(0))  # no set in the list
    assert PlayoutPolicy(game).action(game, 0) == Action(0, "replace", (0, 1))


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_playouts_play_every_kind_of_move_the_rules_allow(preset: str) -> None:
    """The expert's search is only as good as its playouts: a kind of move they never make is
    a part of the game the search cannot see (as sets were, unnoticed, for four days).  Over
    whole rounds from fresh deals the playout policy makes each kind its preset allows."""
    from facedown.bots.rollout import PlayoutPolicy, play_out

    rules = PRESETS[preset]
    wanted = {"draw", "take_discard", "replace", "discard", "call"}
    wanted |= {p for powers in rules.deck_cards.powers for p in powers}
    if rules.explicit_end_turn:
        wanted.add("end_turn")
    if rules.tap:
        wanted.add("tap")
    if rules.set_replace:
        wanted.add("set")
    played: set[str] = set()
    for seed in range(40):
        game = NotingGame(rules, 2, seed)
        while game.phase is Phase.OPENING:
            Game.apply(game, game.all_legal_actions()[0])
        APPLIED.clear()
        assert play_out(game, PlayoutPolicy(game))
        played |= {a.kind for a in APPLIED}
        played |= {"set" for a in APPLIED if a.kind == "replace" and len(a.slots) > 1}
    assert wanted <= played, wanted - played


class _Recording(ExpertBot):
    """An expert that notes the horizon of every search it makes."""

    def __init__(self, **options: object) -> None:
        super().__init__(seed=3, budget_ms=0, iterations=4, call_window=1e9, **options)  # type: ignore[arg-type]
        self.horizons: list[int | None] = []

    def _search(self, info, candidates, deadline, horizon, confidence):  # type: ignore[no-untyped-def]
        self.horizons.append(horizon)
        return super()._search(info, candidates, deadline, horizon, confidence)


def _call_states(players: int) -> list[Game]:
    out = []
    for game in random_states(PRESETS["kaboom"], players, seed=9, count=600):
        seat = game.to_act
        if seat is not None and any(a.kind == "call" for a in game.legal_actions(seat)):
            out.append(game)
    return out[:12]


def test_calls_are_searched_to_the_end_of_the_round_unless_told_not_to() -> None:
    for players in (2, 4):
        searching = _Recording()
        for game in _call_states(players):
            assert game.to_act is not None
            action = searching.choose(seat_info(game, game.to_act))
            assert game.is_legal(action)
        assert None in searching.horizons  # a call searched with whole-round playouts
        heuristic = _Recording(search_calls=False)
        for game in _call_states(players):
            assert game.to_act is not None
            heuristic.choose(seat_info(game, game.to_act))
        assert heuristic.horizons
        assert set(heuristic.horizons) == {2}


def _after_the_opening_peeks() -> tuple[SeatInfo, Memory]:
    """Seat 0 of a 2-player kivo table whose opening peeks are done, and its memory."""
    game = Game(PRESETS["kivo"], 2, 5)
    for seat in (0, 1):
        game.apply(next(a for a in game.legal_actions(seat) if a.kind == "opening_peek"))
    info = seat_info(game, 0)
    memory = Memory()
    memory.observe(info)
    return info, memory


def test_opponents_unknown_cards_are_dealt_lower_the_more_keep_low() -> None:
    rules = PRESETS["kivo"]
    info, memory = _after_the_opening_peeks()
    values = rules.deck_cards.values

    def mean_opponent_card(keep_low: float) -> float:
        sampler = Sampler(info, memory, rules.to_json(), keep_low=keep_low, kept_known=False)
        rng = random.Random(2)
        cards = [c for _ in range(400) for c in sampler.sample(rng).hands[1]]
        return sum(values[c] for c in cards) / len(cards)

    plain, two, four = mean_opponent_card(0.0), mean_opponent_card(1.0), mean_opponent_card(3.0)
    # One card of 0-13 averages 6.5; the lower of two about 4.2; the lowest of four about 2.3.
    assert 6.0 < plain < 7.0
    assert 3.7 < two < 4.7
    assert 1.8 < four < 2.9


def test_the_expert_deals_opponents_lower_as_its_round_goes_on() -> None:
    game = Game(PRESETS["kivo"], 2, 5)
    for seat in (0, 1):
        game.apply(next(a for a in game.legal_actions(seat) if a.kind == "opening_peek"))
    bot = ExpertBot(seed=1, budget_ms=0, iterations=4, keep_low=0.5)
    info = seat_info(game, 0)
    bot.choose(info)
    assert bot.base.turns == 1
    assert bot.sampler(info).keep_low == 0.0
    bot.base.turns = 7
    assert bot.sampler(info).keep_low == 3.0
    assert ExpertBot(seed=1, iterations=4).keep_low is None  # by seat count:
    assert keep_low_per_turn(2) < keep_low_per_turn(4)


def test_without_new_calls_the_search_only_holds_back_the_heuristics_calls() -> None:
    weighed = 0
    for game in _call_states(2):
        seat = game.to_act
        assert seat is not None
        info = seat_info(game, seat)
        # A heuristic that never calls: the search never calls either, nor weighs a call.
        never = _Recording(new_call_confidence=None, profile=HARD.with_options(call_bias=-50))
        assert never.choose(info).kind != "call"
        assert None not in never.horizons
        # One that calls whenever it may: the search weighs its call to the end of the round.
        eager = HARD.with_options(call_bias=50)
        always = _Recording(new_call_confidence=None, profile=eager)
        always.choose(info)
        if HeuristicBot(eager, seed=3).choose(info).kind == "call":
            weighed += 1
            assert None in always.horizons
        # With new calls allowed, the search weighs calling even where the heuristic would not.
        free = _Recording(profile=HARD.with_options(call_bias=-50))
        free.choose(info)
        assert None in free.horizons
    assert weighed


def test_opponents_know_their_cards_as_often_as_the_sampler_is_told() -> None:
    rules = PRESETS["kivo"]
    info, memory = _after_the_opening_peeks()
    values = rules.deck_cards.values
    rng = random.Random(4)
    for knows in (0.0, 0.5, 1.0):
        sampler = Sampler(info, memory, rules.to_json(), opponent_knows=knows, keep_low=1.0)
        aware = seen = 0
        low: list[int] = []
        high: list[int] = []
        for _ in range(300):
            dealt = sampler.sample(rng)
            for c in dealt.hands[1]:
                seen += 1
                known = dealt.knows(1, c)
                aware += known
                (low if known else high).append(values[c])
        assert abs(aware / seen - knows) < 0.06
        if low and high:
            # The cards an opponent knows are the ones it kept: dealt low; the others as any.
            assert sum(low) / len(low) < sum(high) / len(high) - 1.0
            assert 5.5 < sum(high) / len(high) < 7.5


def test_the_expert_thinks_its_opponents_know_more_of_their_cards_as_the_round_goes_on() -> None:
    game = Game(PRESETS["kivo"], 2, 5)
    for seat in (0, 1):
        game.apply(next(a for a in game.legal_actions(seat) if a.kind == "opening_peek"))
    bot = ExpertBot(seed=1, budget_ms=0, iterations=4)
    info = seat_info(game, 0)
    bot.choose(info)
    assert bot.sampler(info).opponent_knows == KNOWN_BY_TURN[0] == opponent_knows_at(0)
    bot.base.turns = 40
    assert bot.sampler(info).opponent_knows == KNOWN_BY_TURN[-1]
    assert list(KNOWN_BY_TURN) == sorted(KNOWN_BY_TURN)
    fixed = ExpertBot(seed=1, budget_ms=0, iterations=4, opponent_knows=0.3)
    fixed.choose(info)
    assert fixed.sampler(info).opponent_knows == 0.3


def test_the_expert_calls_when_the_heuristic_has_played_its_turns() -> None:
    # Two experts that each hold back every call would play on for ever: once the heuristic
    # calls for having played ``max_turns`` turns, the search does not overrule it.
    profile = HARD.with_options(max_turns=1, call_bias=-50)
    for game in _call_states(2):
        seat = game.to_act
        assert seat is not None
        info = seat_info(game, seat)
        bot = ExpertBot(seed=3, budget_ms=0, iterations=8, profile=profile)
        assert bot.choose(info).kind == "call"
