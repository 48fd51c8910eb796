"""The PettingZoo environment: the API test, the action numbering, and no leak of hidden cards."""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test

from facedown.bots import seat_info
from facedown.engine import Action, Game, find_preset
from facedown.rl import PASS, ActionCodec, FacedownEnv, ObservationEncoder, env

# PettingZoo warns these for any dict observation; its own classic envs are exempt by name.
DICT_OBSERVATION_WARNINGS = (
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be gymnasium.spaces.box",
)


@pytest.mark.parametrize(
    ("preset", "players"), [("boyo", 2), ("boyo", 4), ("cabo", 2), ("kivo", 3), ("kaboom", 4)]
)
def test_pettingzoo_api_test(preset: str, players: int) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(env(preset=preset, players=players), num_cycles=1000)
    unexpected = [
        str(w.message) for w in caught if not str(w.message).startswith(DICT_OBSERVATION_WARNINGS)
    ]
    assert unexpected == []


def play(e: FacedownEnv, rng: random.Random) -> dict[str, float]:
    """Play one episode with uniformly random masked actions; the total reward of each agent."""
    totals = dict.fromkeys(e.possible_agents, 0.0)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, _ = e.last()
        assert obs is not None
        totals[agent] += reward
        if terminated or truncated:
            e.step(None)
        else:
            e.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
    return totals


def test_win_rewards_share_one_point_per_episode() -> None:
    e = env(preset="kivo", players=3)
    rng = random.Random(1)
    for seed in range(3):
        e.reset(seed=seed)
        totals = play(e, rng)
        assert sum(totals.values()) == pytest.approx(1.0)
        winners = [f"seat_{s}" for s in e.game.winners]
        assert all(totals[a] == pytest.approx(1 / len(winners)) for a in winners)


def test_score_rewards_are_minus_the_round_scores() -> None:
    e = env(preset="cabo", players=2, reward="score")
    e.reset(seed=4)
    totals = play(e, random.Random(2))
    for s in range(2):
        assert totals[f"seat_{s}"] == -sum(r.round_scores[s] for r in e.game.history)


def test_a_round_episode_ends_with_the_round() -> None:
    e = env(preset="kaboom", players=2, unit="round")
    e.reset(seed=3)
    totals = play(e, random.Random(3))
    assert e.game.round_no == 1
    assert e.game.is_round_over
    assert sum(totals.values()) == pytest.approx(1.0)


def test_reset_with_a_seed_replays() -> None:
    e = env(preset="boyo", players=3)

    def trace() -> list[bytes]:
        e.reset(seed=9)
        rng = random.Random(0)
        out = []
        for _ in range(200):
            obs, *_ = e.last()
            assert obs is not None
            out.append(obs["observation"].tobytes())
            e.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
        return out

    assert trace() == trace()


def test_an_action_outside_the_mask_is_refused_and_changes_nothing() -> None:
    e = env(preset="cabo", players=2)
    e.reset(seed=1)
    mask = e.observe(e.agent_selection)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    version = e.game.version
    with pytest.raises(ValueError, match="not legal"):
        e.step(illegal)
    assert e.game.version == version


def test_only_the_selected_agent_has_a_mask() -> None:
    e = env(preset="kivo", players=3)
    e.reset(seed=2)
    for agent in e.agents:
        assert e.observe(agent)["action_mask"].any() == (agent == e.agent_selection)


def test_taps_are_offered_out_of_turn_with_pass() -> None:
    # Boyo has TAP: before the turn player acts, every other seat may tap or PASS.
    e = env(preset="boyo", players=3)
    e.reset(seed=5)
    rng = random.Random(5)
    offered = 0
    while not e.terminations[e.agent_selection]:
        obs = e.observe(e.agent_selection)
        seat = e.possible_agents.index(e.agent_selection)
        if seat != e.game.turn and e.game.to_act is not None:
            offered += 1
            assert obs["action_mask"][PASS] == 1
            assert obs["observation"][-1] == 1.0  # the optional flag
            offers = [e.codec.decode(int(i), seat) for i in np.flatnonzero(obs["action_mask"])]
            assert {a.kind if a else "pass" for a in offers} == {"tap", "pass"}
            e.step(PASS)
        else:
            assert obs["action_mask"][PASS] == 0
            e.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
    assert offered > 0


def test_codec_numbers_every_legal_action_both_ways() -> None:
    for preset in ("boyo", "cabo", "kivo", "kaboom"):
        rules = find_preset(preset)
        codec = ActionCodec(4, 12, rules.hand_size, rules.opening_peek)
        rng = random.Random(preset)
        game = Game(rules, 4, 1)
        for _ in range(2000):
            if game.is_match_over:
                break
            for action in game.all_legal_actions():
                index = codec.encode(action)
                # Only actions on slots past max_hand have no number (random TAPs grow hands).
                past = max((*action.slots, action.target_slot), default=-1) >= codec.max_hand
                assert (index is None) == past, action
                if index is not None:
                    assert codec.decode(index, action.player) == action
            game.apply(rng.choice(game.all_legal_actions()))


def test_targets_are_seat_relative() -> None:
    codec = ActionCodec(3, 4, 4, 2)
    spy_next = codec.encode(Action(0, "spy", (2,), 1))
    assert spy_next == codec.encode(Action(2, "spy", (2,), 0))
    assert spy_next is not None
    assert codec.decode(spy_next, 1) == Action(1, "spy", (2,), 2)


def test_observations_do_not_depend_on_cards_the_seat_does_not_know() -> None:
    # Exchange two cards that seat 0 does not know (one in a hand, one in the draw pile):
    # seat 0's observation must not change.
    rules = find_preset("cabo")
    encoder = ObservationEncoder(rules, 3, 12)
    rng = random.Random(0)
    game = Game(rules, 3, 8)
    checked = 0
    for _ in range(400):
        if game.is_round_over:
            break
        before = encoder.encode(seat_info(game, 0))
        for owner in range(3):
            for slot, card in enumerate(game.hands[owner]):
                if card < 0 or game.knows(0, card) or not game.draw_pile:
                    continue
                other = game.clone()
                hidden = other.draw_pile[0]
                if game.knows(0, hidden):
                    continue
                other.hands[owner][slot], other.draw_pile[0] = hidden, card
                assert np.array_equal(encoder.encode(seat_info(other, 0)), before)
                checked += 1
        game.apply(rng.choice(game.all_legal_actions()))
    assert checked > 100


def test_render_shows_public_information_only() -> None:
    e = env(preset="cabo", players=2, render_mode="ansi")
    e.reset(seed=1)
    text = e.render()
    assert text is not None
    assert text.startswith("round 1 opening")
    assert env(preset="cabo").render() is None


def test_an_episode_is_truncated_after_max_steps() -> None:
    e = env(preset="cabo", players=2, max_steps=10)
    e.reset(seed=1)
    rng = random.Random(1)
    for _ in range(10):
        obs = e.observe(e.agent_selection)
        e.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
    assert all(e.truncations.values())
    assert not any(e.terminations.values())
    for _ in e.agent_iter():
        e.step(None)
    assert e.agents == []


def test_public_names() -> None:
    import facedown.rl

    assert set(facedown.rl.__all__) == {
        "PASS",
        "ActionCodec",
        "FacedownEnv",
        "ObservationEncoder",
        "env",
    }
