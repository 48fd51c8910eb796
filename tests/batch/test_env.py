"""The batch's PettingZoo parallel environment passes PettingZoo's own API test."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium import spaces
from pettingzoo.test import parallel_api_test

from facedown.batch.env import BatchParallelEnv
from facedown.rl.observation import ObservationEncoder


@pytest.mark.parametrize("preset", ["boyo", "cabo", "kivo", "kaboom"])
def test_the_parallel_api_test_passes(preset: str) -> None:
    parallel_api_test(BatchParallelEnv(preset, 3, 3), num_cycles=3000)


def play(env: BatchParallelEnv, seed: int) -> dict[str, float]:
    observations, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    returns = dict.fromkeys(env.possible_agents, 0.0)
    while env.agents:
        actions = {}
        for agent in env.agents:
            legal = np.flatnonzero(observations[agent]["action_mask"])
            actions[agent] = int(rng.choice(legal))
        observations, rewards, _, _, _ = env.step(actions)
        for agent, r in rewards.items():
            returns[agent] += r
    return returns


def test_win_rewards_share_one_per_match() -> None:
    env = BatchParallelEnv("cabo", 2, 3)
    returns = play(env, 5)
    for g in range(3):
        assert sum(returns[f"game_{g}_seat_{s}"] for s in range(2)) == pytest.approx(1.0)


def test_score_rewards_are_minus_the_totals() -> None:
    env = BatchParallelEnv("kivo", 2, 2, reward="score")
    returns = play(env, 6)
    for g in range(2):
        for s in range(2):
            assert returns[f"game_{g}_seat_{s}"] == -env.batch.totals[g, s]


def test_same_encoding_as_facedown_rl() -> None:
    env = BatchParallelEnv("cabo", 3, 2)
    observations, _ = env.reset(seed=1)
    encoder = ObservationEncoder(env.rules, 3, env.rules.max_hand)
    space = env.observation_space("game_0_seat_0")
    assert isinstance(space, spaces.Dict)
    assert observations["game_0_seat_0"]["observation"].shape == (encoder.size,)
    assert space["observation"].shape == (encoder.size,)
    assert space["action_mask"].shape == (env.batch.codec.size,)


def test_a_wrong_action_is_refused_and_changes_nothing() -> None:
    env = BatchParallelEnv("cabo", 2, 2)
    observations, _ = env.reset(seed=2)
    before = env.batch.peeked.copy()
    actor = env.batch.actor
    actions = {a: 0 for a in env.agents}
    with pytest.raises(ValueError, match="not legal"):
        env.step(actions)  # the deciding seats may not PASS
    other = f"game_0_seat_{1 - int(actor[0])}"
    legal = {a: int(np.flatnonzero(o["action_mask"])[0]) for a, o in observations.items()}
    legal[other] = 3
    with pytest.raises(ValueError, match="may only PASS"):
        env.step(legal)
    assert (env.batch.peeked == before).all()


def test_a_tap_window_is_an_optional_decision() -> None:
    # Boyo: a seat offered a TAP out of turn may PASS, and its observation says the decision
    # is optional (facedown.rl's last feature); the turn player's never does.
    env = BatchParallelEnv("boyo", 3, 4)
    observations, _ = env.reset(seed=3)
    rng = np.random.default_rng(3)
    windows = turns = 0
    for _ in range(300):
        if not env.agents:
            break
        actor, in_window = env.batch.actor, env.batch.in_window
        for g in range(env.games):
            if actor[g] < 0:
                continue
            seen = observations[f"game_{g}_seat_{actor[g]}"]
            assert seen["observation"][-1] == float(in_window[g])
            assert seen["action_mask"][0] == int(in_window[g])
            windows += int(in_window[g])
            turns += int(not in_window[g])
        actions = {}
        for agent in env.agents:
            legal = np.flatnonzero(observations[agent]["action_mask"])
            actions[agent] = int(legal[0]) if legal[0] == 0 else int(rng.choice(legal))
        observations, _, _, _, _ = env.step(actions)
    assert windows > 100
    assert turns > 100
