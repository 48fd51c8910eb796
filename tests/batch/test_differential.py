"""The batch against the reference engine: same rules, deals and actions, same everything.

Every game of a batch is replayed on :class:`facedown.engine.Game` (the authority) action by
action, and after every step the state, the scores and every seat's knowledge must be equal.
Rulesets, seeds, table sizes and the random play that chooses the actions come from Hypothesis.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from facedown.batch import Batch, UnsupportedRules
from facedown.batch.core import MATCH_OVER, PHASES, POWER_NAMES
from facedown.batch.observe import encode
from facedown.batch.policies import RandomPlayer, easy_actions, random_actions
from facedown.bots import seat_info
from facedown.engine import Action, Game, Phase, Ruleset, make_ruleset
from facedown.engine import actions as A
from facedown.rl.observation import ObservationEncoder


def state_of(batch: Batch, g: int) -> dict[str, Any]:
    """Game ``g`` of the batch in the terms of the engine's snapshot."""
    n = batch.players
    places = batch.places[g]
    return {
        "round": int(batch.round_no[g]),
        "first": int(batch.first[g]),
        "phase": PHASES[int(batch.phase[g])].value,
        "turn": int(batch.turn[g]),
        "hands": [batch.hands[g, p, : places[p]].tolist() for p in range(n)],
        "draw_pile": batch.draw[g, : batch.ndraw[g]].tolist(),
        "discard_pile": batch.disc[g, : batch.ndisc[g]].tolist(),
        "held": int(batch.held[g]),
        "pending": [POWER_NAMES[i] for i in range(3) if batch.pending[g, i]],
        "caller": int(batch.caller[g]),
        "finals_left": int(batch.finals[g]),
        "passes": int(batch.passes[g]),
        "peeked": batch.peeked[g].tolist(),
        "known": [bits(batch.known[g, p]) for p in range(n)],
        "public": bits(batch.public[g]),
        "reshuffles": int(batch.reshuffles[g]),
        "round_actions": int(batch.round_actions[g]),
        "totals": batch.totals[g].tolist(),
        "hundred_used": batch.hundred_used[g].tolist(),
        "winners": [p for p in range(n) if batch.winners[g, p]],
        "sudden_death_played": bool(batch.sudden_death_played[g]),
    }


def bits(row: np.ndarray) -> int:
    return sum(1 << int(c) for c in np.flatnonzero(row))


KEYS = (
    "round",
    "first",
    "phase",
    "turn",
    "hands",
    "draw_pile",
    "discard_pile",
    "held",
    "caller",
    "finals_left",
    "passes",
    "peeked",
    "known",
    "public",
    "reshuffles",
    "round_actions",
    "totals",
    "hundred_used",
    "winners",
    "sudden_death_played",
)


def engine_state(game: Game) -> dict[str, Any]:
    snap = game.snapshot()
    out = {k: snap[k] for k in KEYS}
    # The engine lists pending powers in the card's order; the batch holds them as a set.
    out["pending"] = [p for p in POWER_NAMES if p in snap["pending"]]
    return out


class Window:
    """The TAP window on the engine's side, as facedown.rl.env offers it: after every change of
    the table during play, each seat of the arbiter's ``may_tap`` with a tap to make is asked
    in turn; PASS moves on to the next; the turn player acts once the window is empty."""

    def __init__(self) -> None:
        self.version = -1
        self.seats: list[int] = []

    def asked(self, game: Game) -> tuple[int, bool]:
        """The seat the game asks now, and whether it is asked in a window."""
        waiting = game.awaiting()
        first = waiting.first
        assert first is not None
        if waiting.phase is Phase.OPENING or not waiting.may_tap:
            return first, False
        if self.version != game.version:
            self.seats, self.version = list(waiting.may_tap), game.version
        while self.seats and not game.legal_actions(self.seats[0]):
            self.seats.pop(0)
        if self.seats:
            return self.seats[0], True
        return first, False


def play_both(
    rules: Ruleset,
    players: int,
    seeds: list[int],
    policy_seed: int,
    *,
    easy: bool = False,
    compiled: bool = False,
    steps: int = 3000,
    observations: bool = False,
    call: float = 0.08,
) -> tuple[int, int]:
    """Play a batch and the engine side by side; returns the steps and the rounds played."""
    batch = Batch(rules, players, len(seeds), seeds=seeds)
    games = [Game(rules, players, s) for s in seeds]
    windows = [Window() for _ in seeds]
    rng = np.random.default_rng(policy_seed)
    player = RandomPlayer(batch, call=0.08)
    for g, game in enumerate(games):
        assert state_of(batch, g) == engine_state(game)
    for step in range(steps):
        if batch.over.all():
            return step, int(batch.rounds_played.sum())
        actions = choose(batch, rng, player, easy=easy, compiled=compiled, call=call)
        actor, in_window = batch.actor, batch.in_window
        mask = batch.legal_mask()
        for g, game in enumerate(games):
            if game.is_match_over:
                assert batch.phase[g] == MATCH_OVER
                continue
            seat, window = windows[g].asked(game)
            assert (int(actor[g]), bool(in_window[g])) == (seat, window), (step, g)
            check_mask(batch, mask[g], game, seat, window)
            engine_step(game, windows[g], batch.codec.decode(int(actions[g]), seat))
        batch.step(actions)
        for g, game in enumerate(games):
            assert state_of(batch, g) == engine_state(game), (step, g)
            if batch.round_ended[g]:
                last = game.history[-1]
                assert batch.round_scores[g].tolist() == list(last.round_scores)
                assert batch.hand_totals[g].tolist() == list(last.hand_totals)
            seat_knowledge(batch, g, game)
        if observations:
            same_observations(batch, games)
    return steps, int(batch.rounds_played.sum())


def choose(
    batch: Batch,
    rng: np.random.Generator,
    player: RandomPlayer,
    *,
    easy: bool,
    compiled: bool,
    call: float = 0.08,
) -> np.ndarray:
    """The actions of the policy a test plays: easy, the compiled random player, or the
    mask's random play."""
    if easy:
        return easy_actions(batch, rng)
    if compiled:
        return player(rng)
    return random_actions(batch, rng, call=call)


def engine_step(game: Game, window: Window, action: Action | None) -> None:
    """The batch's step of one game on the engine: PASS declines a window (no engine action);
    a finished round is dealt on by the seat the arbiter asks first."""
    if action is None:
        assert window.seats
        window.seats.pop(0)
        return
    game.apply(action)
    if game.is_round_over and not game.is_match_over:
        first = game.awaiting().first
        assert first is not None
        game.apply(Action(first, A.NEXT_ROUND))


def same_observations(batch: Batch, games: list[Game]) -> None:
    """Every seat's batch observation is facedown.rl's encoding of the engine's state."""
    encoder = ObservationEncoder(batch.rules, batch.players, batch.rules.max_hand)
    for p in range(batch.players):
        got = encode(batch, np.full(batch.games, p))
        for g, game in enumerate(games):
            want = encoder.encode(seat_info(game, p))
            assert got[g].tolist() == want.tolist(), (g, p)


def check_mask(batch: Batch, mask: np.ndarray, game: Game, seat: int, window: bool) -> None:
    """The batch's legal mask is the engine's legal list and sets, for the seat asked (in a
    TAP window: its taps, and PASS)."""
    legal = game.legal_actions(seat) + game.set_replaces(seat)
    want = batch.codec.mask(legal, optional=window).astype(bool)
    assert (mask == want).all(), (seat, game.phase, window)


def seat_knowledge(batch: Batch, g: int, game: Game) -> None:
    """Every seat knows exactly the places the engine says it knows."""
    for p in range(batch.players):
        knows = batch.knowledge(np.full(batch.games, p))[g]
        places = {(o, int(s)) for o in range(batch.players) for s in np.flatnonzero(knows[o])}
        assert places == set(game.knowledge(p)), (g, p)


@pytest.mark.parametrize("preset", ["boyo", "cabo", "kivo", "kaboom"])
@pytest.mark.parametrize("players", [2, 4])
def test_presets_play_as_the_engine_does(preset: str, players: int) -> None:
    rules = make_ruleset(preset)
    steps, rounds = play_both(rules, players, [7, 8, 9, 10], policy_seed=players)
    # Whole matches, or (boyo: a TAP window after every change) several whole rounds.
    assert steps < 3000 or (rules.tap and rounds >= 8)


@pytest.mark.parametrize("preset", ["boyo", "cabo", "kivo", "kaboom"])
def test_rounds_nobody_calls_end_at_the_bound_as_the_engine_ends_them(preset: str) -> None:
    """Nobody calls: every round ends at round_action_limit, in the batch as in the engine
    (play_both compares every step, the count of the round's actions included)."""
    # One round a match (Kivo plays 1, 3 or 5): two matches, every round ended at the bound.
    rules = make_ruleset(preset, {"round_action_limit": 100, "rounds": 1, "score_limit": None})
    _, rounds = play_both(rules, 3, [21, 22], policy_seed=3, call=0.0, steps=1500)
    assert rounds >= 2  # two matches of one round: every round ended, none by a call


@pytest.mark.parametrize("preset", ["boyo", "cabo", "kivo", "kaboom"])
def test_the_compiled_random_player_plays_as_the_engine_does(preset: str) -> None:
    play_both(make_ruleset(preset), 4, [11, 12, 13], policy_seed=6, compiled=True, steps=1500)


@pytest.mark.parametrize("preset", ["boyo", "cabo", "kaboom"])
def test_the_easy_policy_plays_as_the_engine_does(preset: str) -> None:
    play_both(make_ruleset(preset), 3, [1, 2, 3], policy_seed=5, easy=True)


@pytest.mark.parametrize("preset", ["boyo", "cabo", "kivo", "kaboom"])
def test_observations_are_the_rl_encoding(preset: str) -> None:
    play_both(make_ruleset(preset), 3, [4, 5], policy_seed=1, observations=True, steps=300)


@st.composite
def rulesets(draw: st.DrawFn) -> tuple[Ruleset, int]:
    """Any ruleset on a deck of at most 64 cards, and a table size."""
    base = draw(st.sampled_from(["boyo", "cabo", "kivo", "kaboom"]))
    standard = make_ruleset(base).deck == "standard"
    players = draw(st.integers(2, 5))
    hand = draw(st.integers(1, min(6, 51 // players)))
    undo, give_back = draw(st.sampled_from([(False, False), (True, False), (False, True)]))
    if standard:
        ranks = ["A", *(str(v) for v in range(2, 11)), "J", "Q", "K", "KS", "KH", "JK"]
    else:
        ranks = [str(v) for v in range(14)]
    powers = {
        r: draw(st.lists(st.sampled_from(POWER_NAMES), unique=True, max_size=3))
        for r in draw(st.lists(st.sampled_from(ranks), unique=True, max_size=8))
    }
    # A mode of kivo: 1, 3 or 5 rounds, no score limit, sudden death only as Ranked.
    kivo = base == "kivo"
    rounds = draw(st.sampled_from([1, 3])) if kivo else draw(st.none() | st.integers(1, 3))
    end_turn = draw(st.booleans())
    after = end_turn and draw(st.booleans())
    options: dict[str, Any] = {
        "hand_size": hand,
        "opening_peek": draw(st.integers(0, hand)),
        "max_hand": draw(st.integers(hand, min(hand + 4, 12))),
        "powers": {r: p for r, p in powers.items() if p},
        "power_timing": draw(st.sampled_from(["holding", "discard"])),
        "explicit_end_turn": end_turn,
        "call_after_action": after,
        "call_at_turn_start": not after or draw(st.booleans()),
        "tap": draw(st.booleans()),
        "tap_penalty_cards": draw(st.integers(0, 4)),
        "set_replace": draw(st.booleans()),
        "failed_set": draw(st.sampled_from(["discard_taken", "keep_taken"])),
        "undo_take_discard": undo,
        "return_taken_discard": give_back,
        "lowest_scores_zero": draw(st.booleans()),
        "lowest_tie_caller_only": draw(st.booleans()),
        "caller_strictly_lowest": draw(st.booleans()),
        "caller_lowest_scores_zero": draw(st.booleans()),
        "caller_penalty": draw(st.integers(0, 10)),
        "caller_multiplier": draw(st.integers(1, 3)),
        "shoot_the_moon": draw(st.booleans()),
        "moon_points": draw(st.integers(0, 60)),
        "hundred_rule": draw(st.sampled_from(["none", "once", "always"])),
        "hundred_reset": draw(st.integers(0, 90)),
        "rounds": rounds,
        "score_limit": None
        if kivo
        else draw(st.integers(10, 100))
        if rounds is None
        else draw(st.none() | st.integers(10, 100)),
        # The batch plays a sudden-death round only with two players (every seat is tied).
        "sudden_death": players == 2 and (not kivo or rounds == 3) and draw(st.booleans()),
        "first_player": draw(st.sampled_from(["rotate", "round_winner"])),
        "round_action_limit": draw(st.sampled_from([100, 120, 2000])),
    }
    if standard:
        options["jokers"] = draw(st.booleans())
    return make_ruleset(base, options), players


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rulesets(), st.lists(st.integers(0, 2**31), min_size=1, max_size=4), st.integers(0, 99))
def test_random_rulesets_play_as_the_engine_does(
    table: tuple[Ruleset, int], seeds: list[int], policy_seed: int
) -> None:
    rules, players = table
    play_both(rules, players, seeds, policy_seed, steps=400, observations=len(seeds) == 1)


def test_decks_of_more_than_64_cards_are_refused_by_name() -> None:
    with pytest.raises(UnsupportedRules, match="more than 64 cards"):
        Batch(make_ruleset("boyo", {"decks": 2}), 2, 1)


def test_a_sudden_death_round_with_more_than_two_players_is_refused() -> None:
    # The engine lets only the tied play it; the kernels would deal every seat.
    ranked = make_ruleset("kivo", {"rounds": 3, "sudden_death": True})
    with pytest.raises(UnsupportedRules, match="sudden-death round with more than two"):
        Batch(ranked, 3, 1)
    assert Batch(ranked, 2, 1).players == 2
