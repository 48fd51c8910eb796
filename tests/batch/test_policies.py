"""The vectorised players choose legal actions, and the mask-free random player covers the mask."""

from __future__ import annotations

import numpy as np
import pytest

from facedown.batch import Batch
from facedown.batch.policies import EasyPlayer, RandomPlayer, easy_actions, random_actions
from facedown.engine import make_ruleset


@pytest.mark.parametrize("preset", ["boyo", "cabo", "kivo", "kaboom"])
def test_the_random_player_draws_from_exactly_the_legal_actions(preset: str) -> None:
    # Many draws on one state: each is legal, and where a game has at most 12 legal actions
    # 400 draws meet every one of them (uniform: a miss has odds below 1e-14).
    batch = Batch(make_ruleset(preset), 3, 48, shuffles="numpy")
    player = RandomPlayer(batch, call=0.5, tap=0.5)
    rng = np.random.default_rng(2)
    covered = 0
    for _ in range(30):
        mask = batch.legal_mask()
        live = ~batch.over
        seen = np.zeros_like(mask)
        for _ in range(400):
            seen[np.arange(batch.games), player(rng)] = True
        seen[~live] = False
        assert not (seen & ~mask).any()
        small = live & (mask.sum(axis=1) <= 12)
        assert (seen[small] == mask[small]).all()
        covered += int(small.sum())
        batch.step(player(rng))
    assert covered > 400


@pytest.mark.parametrize("policy", ["random", "easy"])
def test_the_mask_policies_choose_legal_actions(policy: str) -> None:
    batch = Batch(make_ruleset("cabo"), 4, 32, shuffles="numpy")
    rng = np.random.default_rng(3)
    for _ in range(400):
        actions = random_actions(batch, rng) if policy == "random" else easy_actions(batch, rng)
        batch.step(actions)  # checks every action against the mask
    assert batch.rounds_played.sum() > 32


def test_easy_beats_random() -> None:
    # Seats 0 and 2 play easy, 1 and 3 random, over whole matches: easy wins more.
    batch = Batch(make_ruleset("cabo"), 4, 128, shuffles="numpy")
    rng = np.random.default_rng(4)
    while not batch.over.all():
        easy = easy_actions(batch, rng)
        rand = random_actions(batch, rng)
        batch.step(np.where(batch.actor % 2 == 0, easy, rand))
    wins = batch.winners.sum(axis=0)
    assert wins[0] + wins[2] > 1.5 * (wins[1] + wins[3])


@pytest.mark.parametrize("preset", ["boyo", "cabo"])
def test_play_random_is_the_random_player_and_the_step_in_one_loop(preset: str) -> None:
    # One decision per game and call: the same draws in the same order as the random player's
    # actions then the step, so the two batches stay equal (more decisions per call play the
    # games one after the other, with other draws, through the same step code).
    one = Batch(make_ruleset(preset), 3, 16, shuffles="engine")
    two = Batch(make_ruleset(preset), 3, 16, shuffles="engine")
    player = RandomPlayer(two)
    for seed in range(600):
        one.play_random(1, seed, player.call, player.tap)
        two.step(two.random_actions(seed, player.call, player.tap))
        assert (one.Z == two.Z).all()
        assert (one.S == two.S).all()
        assert (one.hands == two.hands).all()
        assert (one.known_bits == two.known_bits).all()
    assert one.rounds_played.sum() > 16


@pytest.mark.parametrize("preset", ["boyo", "cabo", "kivo", "kaboom"])
def test_the_compiled_easy_player_is_easy_actions(preset: str) -> None:
    # The same random fallback given to both (and no random calls): the same action in every
    # game, over whole rounds of every phase; its own draws are legal actions.
    batch = Batch(make_ruleset(preset), 3, 64, shuffles="numpy")
    player = EasyPlayer(batch, call=0.0)
    rng = np.random.default_rng(5)
    phases = set()
    for _ in range(300):
        mask = batch.legal_mask()
        others = mask.copy()
        others[:, batch.codes.tap] = False
        fallback = random_actions(batch, rng, call=0.0, mask=others)
        want = easy_actions(batch, rng, call=0.0, fallback=fallback)
        live = ~batch.over
        got = player(rng, fallback=fallback)
        assert (got[live] == want[live]).all()
        own = player(rng)
        assert mask[np.arange(batch.games), own][live].all()
        phases |= set(batch.phase[live].tolist())
        batch.step(np.where(rng.random(batch.games) < 0.5, own, want))
    assert batch.rounds_played.sum() > 64
    assert len(phases) >= 4


def test_the_compiled_easy_player_beats_random() -> None:
    batch = Batch(make_ruleset("cabo"), 4, 256, shuffles="numpy")
    easy, rand = EasyPlayer(batch), RandomPlayer(batch)
    rng = np.random.default_rng(4)
    while not batch.over.all():
        batch.step(np.where(batch.actor % 2 == 0, easy(rng), rand(rng)))
    wins = batch.winners.sum(axis=0)
    assert wins[0] + wins[2] > 1.5 * (wins[1] + wins[3])
