"""A PettingZoo AEC environment: one Facedown match (or round) per episode.

Agents are ``seat_0`` ... ``seat_{n-1}``.  The selected agent is the seat that decides next, as
:mod:`facedown.bots.driver` asks: in the opening peek each seat in turn; in play the turn player,
except that where the rules have TAP every other seat that could tap is first offered the chance,
in seat order after the turn player, once per state of the table (PASS declines it).  The
table's ``next_round`` is taken by the environment itself.

Observations are ``{"observation": float32 vector, "action_mask": int8 vector}``
(:mod:`facedown.rl.observation`, :mod:`facedown.rl.actions`); the mask is all zeros for an agent
that is not selected.  Rewards: ``"win"`` gives each of the ``k`` winners ``1/k`` when the episode
ends; ``"score"`` gives every seat minus its round score at the end of every round.  An action
outside the mask raises :class:`ValueError` and changes nothing.
"""

from __future__ import annotations

import random
from typing import Any, Literal

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from ..bots import seat_info
from ..engine import SPECTATOR, Event, EventKind, Game, Phase, make_ruleset, view
from ..engine.actions import NEXT_ROUND, Action
from .actions import ActionCodec
from .observation import ObservationEncoder

Observation = dict[str, Any]  # "observation": float32 vector, "action_mask": int8 vector
ActionIndex = int | np.integer[Any]
Unit = Literal["match", "round"]
Reward = Literal["win", "score"]


class FacedownEnv(AECEnv[str, Observation, ActionIndex | None]):
    """Facedown as an agent-environment cycle game (see the module docstring)."""

    def __init__(
        self,
        preset: str = "cabo",
        players: int = 2,
        *,
        options: dict[str, Any] | None = None,
        unit: Unit = "match",
        reward: Reward = "win",
        max_hand: int | None = None,
        max_steps: int = 20_000,
        render_mode: str | None = None,
    ) -> None:
        # AECEnv.__init__ does nothing (and is untyped): not called.
        self.metadata = {
            "name": "facedown_v0",
            "render_modes": ["ansi"],
            "is_parallelizable": False,
        }
        if unit not in ("match", "round") or reward not in ("win", "score"):
            raise ValueError("unit is 'match' or 'round'; reward is 'win' or 'score'")
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        self.rules = make_ruleset(preset, options)
        Game(self.rules, players, 0)  # refuse an impossible table now, not at reset
        self.players = players
        self.unit = unit
        self.reward = reward
        self.max_steps = max_steps
        self.render_mode = render_mode
        hand = self.rules.hand_size
        self.max_hand = max_hand if max_hand is not None else 2 * hand + 4
        self.codec = ActionCodec(players, self.max_hand, hand, self.rules.opening_peek)
        self.encoder = ObservationEncoder(self.rules, players, self.max_hand)
        self.possible_agents = [f"seat_{s}" for s in range(players)]
        self.agents: list[str] = []
        self.action_spaces = {a: spaces.Discrete(self.codec.size) for a in self.possible_agents}
        observation = spaces.Dict(
            {
                "observation": spaces.Box(-1.0, 1.0, (self.encoder.size,), np.float32),
                "action_mask": spaces.Box(0, 1, (self.codec.size,), np.int8),
            }
        )
        self.observation_spaces = {a: observation for a in self.possible_agents}
        self.game = Game(self.rules, players, 0)
        self.seeds = random.Random()
        self.optional = False
        self.window: list[int] = []  # seats still to be offered a tap in this state
        self.window_version = -1
        self.steps = 0

    def observation_space(self, agent: str) -> spaces.Space[Observation]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[ActionIndex | None]:
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ the cycle
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new match; with ``seed``, this and the following episodes are reproducible."""
        if seed is not None:
            self.seeds = random.Random(seed)
        self.game = Game(self.rules, self.players, self.seeds.getrandbits(32))
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.window = []
        self.window_version = -1
        self.steps = 0
        self._select()

    def observe(self, agent: str) -> Observation:
        seat = self.possible_agents.index(agent)
        info = seat_info(self.game, seat)
        acting = agent == self.agent_selection and not (
            self.terminations.get(agent) or self.truncations.get(agent)
        )
        optional = acting and self.optional
        if acting:
            mask = self.codec.mask(self._choices(seat), optional=optional)
        else:
            mask = np.zeros(self.codec.size, dtype=np.int8)
        return {"observation": self.encoder.encode(info, optional=optional), "action_mask": mask}

    def _choices(self, seat: int) -> tuple[Action, ...]:
        """Every action ``seat`` may take now: the legal list and the set replaces the rules
        allow (the engine lists sets apart; the codec gives each its own index)."""
        return self.game.legal_actions(seat) + self.game.set_replaces(seat)

    def step(self, action: ActionIndex | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} must act: None is only for an agent whose episode ended")
        seat = self.possible_agents.index(agent)
        index = int(action)
        if (
            not 0 <= index < self.codec.size
            or not self.codec.mask(self._choices(seat), optional=self.optional)[index]
        ):
            raise ValueError(f"action {index} is not legal for {agent} now")
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        chosen = self.codec.decode(index, seat)
        if chosen is None:
            self.window.pop(0)  # PASS: no tap from this seat in this state
        else:
            self._score(self.game.apply(chosen))
        self.steps += 1
        self._select()
        if self.steps >= self.max_steps and not any(self.terminations.values()):
            self.truncations = dict.fromkeys(self.agents, True)
        self._accumulate_rewards()

    def _deal_on(self) -> bool:
        """Deal on past a finished round (no decision in it); True once the episode is over."""
        game = self.game
        while True:
            if game.is_match_over or (self.unit == "round" and game.is_round_over):
                self._finish()
                return True
            if not game.is_round_over:
                return False
            first = game.awaiting().first
            if first is None:
                raise RuntimeError("a round is over but no seat may deal the next")
            game.apply(Action(first, NEXT_ROUND))

    def _select(self) -> None:
        """Point ``agent_selection`` at the seat that decides next (or end the episode)."""
        if self._deal_on():
            return
        game = self.game
        self.optional = False
        waiting = game.awaiting()
        turn = waiting.first
        if turn is None:  # never: the round is not over, so someone must act
            raise RuntimeError("the round is not over but no seat may act")
        if waiting.phase is Phase.OPENING:
            self.agent_selection = self.possible_agents[turn]
            return
        if waiting.may_tap:
            if self.window_version != game.version:
                self.window = list(waiting.may_tap)
                self.window_version = game.version
            while (
                self.window
                and not self.codec.mask(game.legal_actions(self.window[0]), optional=False).any()
            ):
                self.window.pop(0)
            if self.window:
                self.optional = True
                self.agent_selection = self.possible_agents[self.window[0]]
                return
        self.agent_selection = self.possible_agents[turn]
        legal = game.legal_actions(turn)
        if not legal:
            raise RuntimeError(f"the engine left seat {turn}, whose turn it is, with no action")
        if not self.codec.mask(legal, optional=False).any():
            raise RuntimeError(
                f"seat {turn} has no action within max_hand={self.max_hand} slots: "
                "make the environment with a larger max_hand"
            )

    def _score(self, events: list[Event]) -> None:
        if self.reward != "score":
            return
        if any(event.kind is EventKind.ROUND_OVER for event in events):
            result = self.game.history[-1]
            for s, agent in enumerate(self.possible_agents):
                self.rewards[agent] -= float(result.round_scores[s])

    def _finish(self) -> None:
        game = self.game
        self.terminations = dict.fromkeys(self.agents, True)
        if self.reward == "win":
            if self.unit == "round":
                scores = game.history[-1].round_scores
                winners = [s for s in range(game.players) if scores[s] == min(scores)]
            else:
                winners = list(game.winners)
            for s in winners:
                self.rewards[self.possible_agents[s]] += 1.0 / len(winners)

    # ------------------------------------------------------------------ display
    def render(self) -> str | None:
        """``ansi``: the public table, one line (no card a spectator may not see)."""
        if self.render_mode != "ansi":
            return None
        v = view(self.game, SPECTATOR)
        hands = " ".join(str(sum(h)) for h in v.hands)
        return (
            f"round {v.round} {v.phase}: to act {v.to_act}, cards {hands}, "
            f"top {v.top_discard}, draw {v.draw_size}, totals {list(v.totals)}"
        )

    def close(self) -> None:
        pass


def env(**kwargs: Any) -> FacedownEnv:
    """A :class:`FacedownEnv` (PettingZoo's usual module-level constructor)."""
    return FacedownEnv(**kwargs)
