"""A PettingZoo parallel environment over a batch: many matches, every seat an agent.

Agents are ``game_{g}_seat_{s}`` for each game ``g`` of the batch and seat ``s``.  Every step,
each live agent gives an action; in each game one seat decides (the batch's :attr:`actor`: the
seat the engine's arbiter asks first) and its action is applied, while every other seat's mask
offers only PASS (index 0), which does nothing.  Observations are ``{"observation": float32
vector, "action_mask": int8 vector}`` in :mod:`facedown.rl`'s encoding and action numbering
(``max_hand`` is the ruleset's).  Rewards: ``"win"`` gives each of a match's ``k`` winners
``1/k`` when it ends; ``"score"`` gives every seat minus its round score at the end of each
round.  A game's agents terminate when its match is over; an action outside the mask raises
:class:`ValueError` and changes nothing.
"""

from __future__ import annotations

import random
from typing import Any, Literal

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv

from ..engine import make_ruleset
from .core import Batch, Shuffles
from .observe import encode, size

Observation = dict[str, Any]
Reward = Literal["win", "score"]


class BatchParallelEnv(ParallelEnv[str, Observation, int]):
    """``games`` matches of a preset (and options) at ``players`` seats (module docstring)."""

    metadata = {"name": "facedown_batch_v0", "render_modes": []}  # noqa: RUF012 - PettingZoo's

    def __init__(
        self,
        preset: str = "cabo",
        players: int = 2,
        games: int = 4,
        *,
        options: dict[str, Any] | None = None,
        reward: Reward = "win",
        shuffles: Shuffles = "engine",
        max_cycles: int = 100_000,
    ) -> None:
        if reward not in ("win", "score"):
            raise ValueError("reward is 'win' or 'score'")
        self.rules = make_ruleset(preset, options)
        self.players, self.games, self.reward = players, games, reward
        self.shuffles: Shuffles = shuffles
        self.max_cycles = max_cycles
        self.batch = Batch(self.rules, players, games, shuffles=shuffles)
        self.possible_agents = [f"game_{g}_seat_{s}" for g in range(games) for s in range(players)]
        self._place = {a: i for i, a in enumerate(self.possible_agents)}
        self.agents: list[str] = []
        obs_size, actions = size(self.batch), self.batch.codec.size
        self._observation_space = spaces.Dict(
            {
                "observation": spaces.Box(-1.0, 1.0, (obs_size,), np.float32),
                "action_mask": spaces.Box(0, 1, (actions,), np.int8),
            }
        )
        self._action_space = spaces.Discrete(actions)
        self.seeds = random.Random()
        self.cycles = 0

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self._action_space

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Observation], dict[str, dict[str, Any]]]:
        """Deal new matches; with ``seed``, these and the following ones are reproducible."""
        if seed is not None:
            self.seeds = random.Random(seed)
        seeds = [self.seeds.getrandbits(32) for _ in range(self.games)]
        rng = np.random.default_rng(seeds[0])
        self.batch = Batch(
            self.rules, self.players, self.games, seeds=seeds, shuffles=self.shuffles, rng=rng
        )
        self.agents = self.possible_agents[:]
        self.cycles = 0
        return self._observations(), {a: {} for a in self.agents}

    def _observations(self) -> dict[str, Observation]:
        b, n = self.batch, self.players
        mask = b.legal_mask().astype(np.int8)
        actor, in_window = b.actor, b.in_window
        pass_only = np.zeros(b.codec.size, dtype=np.int8)
        pass_only[0] = 1
        out: dict[str, Observation] = {}
        live = set(self.agents)
        for s in range(n):
            # A seat offered a TAP out of turn is told its decision is optional (PASS).
            vectors = encode(b, np.full(b.games, s), optional=in_window & (actor == s))
            for g in range(b.games):
                agent = self.possible_agents[g * n + s]
                if agent in live:
                    acting = actor[g] == s
                    out[agent] = {
                        "observation": vectors[g],
                        "action_mask": mask[g] if acting else pass_only,
                    }
        return out

    def step(
        self, actions: dict[str, int]
    ) -> tuple[
        dict[str, Observation],
        dict[str, float],
        dict[str, bool],
        dict[str, bool],
        dict[str, dict[str, Any]],
    ]:
        b, n = self.batch, self.players
        b.step(self._chosen(actions))  # refuses an action outside the mask, changing nothing
        self.cycles += 1
        rewards = self._rewards()
        over = b.over
        terminations = {a: bool(over[self._place[a] // n]) for a in self.agents}
        cut = self.cycles >= self.max_cycles
        truncations = {a: cut and not terminations[a] for a in self.agents}
        infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agents = [a for a in self.agents if not (terminations[a] or truncations[a])]
        observations = self._observations()
        for a in terminations:
            if a not in observations:
                observations[a] = {
                    "observation": np.zeros(
                        self._observation_space["observation"].shape, np.float32
                    ),
                    "action_mask": np.zeros(b.codec.size, np.int8),
                }
        return observations, rewards, terminations, truncations, infos

    def _chosen(self, actions: dict[str, int]) -> np.ndarray:
        """The deciding seat's action in each game; every other seat must PASS."""
        b, n = self.batch, self.players
        chosen = np.zeros(b.games, dtype=np.int64)
        actor = b.actor
        for g in range(b.games):
            if actor[g] >= 0:
                agent = self.possible_agents[g * n + int(actor[g])]
                if agent not in actions:
                    raise ValueError(f"{agent} must act")
                chosen[g] = int(actions[agent])
        for agent, action in actions.items():
            g, s = divmod(self._place[agent], n)
            if actor[g] != s and int(action) != 0:
                raise ValueError(f"{agent} may only PASS (0) now, not {action}")
        return chosen

    def _rewards(self) -> dict[str, float]:
        b, n = self.batch, self.players
        rewards = dict.fromkeys(self.agents, 0.0)
        for g in np.flatnonzero(b.round_ended | b.match_ended).tolist():
            for s in range(n):
                agent = self.possible_agents[g * n + s]
                if self.reward == "score" and b.round_ended[g]:
                    rewards[agent] -= float(b.round_scores[g, s])
                if self.reward == "win" and b.match_ended[g] and b.winners[g, s]:
                    rewards[agent] += 1.0 / int(b.winners[g].sum())
        return rewards

    def render(self) -> None:
        return None

    def close(self) -> None:
        pass

    def state(self) -> np.ndarray:
        raise NotImplementedError("the batch has no global state vector")
