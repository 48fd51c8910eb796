"""``facedown train``: fit the `learned` level's value network by self-play, from a seed.

Each step plays ``--rounds`` rounds of `hard` against `hard` at every table trained (each preset
at 2 and 4 seats), notes at every turn start of every seat its inputs
(:func:`facedown.bots.value.inputs`) and, when the round is over, its round score minus the
others' mean, adds them to the data, and trains the network on all of it for ``--epochs``
passes (Adam, mean squared error of its correction to the expert's linear value).  The first
step also deals a held-out set of rounds, on which each step prints the network's error beside
that of the expert's linear values.  Every
``--eval-every`` steps it plays a small duplicate-deal match of the network's bot against
`expert` (both on an iteration budget, so the figures follow from the seed) and prints the
learned side's share of the round wins and the score difference, with their 95% intervals.

The checkpoint folder holds ``state.npz`` (data, network, optimiser, step) after every step, and
``value.npz`` (the weights alone, the file the bot loads); ``--resume`` goes on from it.  The
same seed and steps give the same weights, resumed or not.
"""

from __future__ import annotations

import argparse
import time
from multiprocessing import get_context
from pathlib import Path

import numpy as np

from .bots import EventFeed, make_bot
from .bots.driver import play_next
from .bots.leaf import leaf_value, leaf_weights
from .bots.value import INPUTS, PRESET_ORDER, SCALE, Array, ValueNet, inputs
from .engine import PRESETS, Game
from .engine.phases import TURN_START
from .sim import SimConfig, deal_means, mean_interval, run
from .sim.play import ignore_ctrl_c

TABLES = tuple((p, n) for p in PRESET_ORDER for n in (2, 4))
EXPERT = "expert(budget_ms=0, iterations=24)"
Job = tuple[str, int, int, int]  # preset, players, rounds, seed
Rows = tuple[Array, Array, Array]  # inputs, outcome, the linear values' prediction


def play_rows(job: Job) -> Rows:
    """Rows of ``rounds`` rounds of `hard` bots at one table, from ``seed``."""
    preset, players, rounds, seed = job
    rules = PRESETS[preset]
    weights = leaf_weights(preset, players)
    xs: list[list[float]] = []
    ys: list[float] = []
    linear: list[float] = []
    for r in range(rounds):
        game = Game(rules, players, seed=seed * 1_000_003 + r, first=r % players)
        bots = [make_bot("hard", seed=seed * 7919 + r * players + i) for i in range(players)]
        feed = EventFeed()  # the bots are told what happened, as in a tournament
        seen: list[int] = []
        previous: tuple[str, int] | None = None
        while not game.is_round_over:
            now = (game.phase, game.turn)
            if game.phase == TURN_START and game.caller < 0 and now != previous:
                x = inputs(game, game.turn)
                if x is not None:
                    xs.append(x)
                    seen.append(game.turn)
                    linear.append(leaf_value(game, game.turn, weights) if weights else 0.0)
            previous = now
            play_next(game, bots, feed)
        scores = game.history[-1].round_scores
        for seat in seen:
            others = (sum(scores) - scores[seat]) / (players - 1)
            ys.append(scores[seat] - others)
    k = len(INPUTS)
    return (
        np.asarray(xs, dtype=np.float64).reshape(-1, k),
        np.asarray(ys, dtype=np.float64),
        np.asarray(linear, dtype=np.float64),
    )


def collect(jobs: list[Job], processes: int) -> Rows:
    if processes > 1:
        with get_context("spawn").Pool(processes, initializer=ignore_ctrl_c) as pool:
            parts = pool.map(play_rows, jobs, chunksize=1)
    else:
        parts = [play_rows(j) for j in jobs]
    return (
        np.concatenate([p[0] for p in parts]),
        np.concatenate([p[1] for p in parts]),
        np.concatenate([p[2] for p in parts]),
    )


def step_seed(seed: int, step: int, table: int) -> int:
    return (seed * 1009 + step) * 17 + table + 1


class Trainer:
    """The network, its Adam state and its data; saved to and loaded from a folder."""

    def __init__(self, seed: int, hidden: int, lr: float) -> None:
        self.seed = seed
        self.hidden = hidden
        self.lr = lr
        self.step = 0
        self.net: ValueNet | None = None
        k = len(INPUTS)
        self.x = np.zeros((0, k))
        self.y = np.zeros(0)
        self.val: Rows = (np.zeros((0, k)), np.zeros(0), np.zeros(0))
        self.moments: list[Array] = []
        self.t = 0

    @property
    def model(self) -> ValueNet:
        if self.net is None:
            raise RuntimeError("no network yet: add rows first")
        return self.net

    # -------------------------------------------------------------- persistence
    def save(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.model.steps = self.step
        arrays = {f"net_{k}": v for k, v in self.model.arrays().items()}
        arrays.update({f"m{i}": m for i, m in enumerate(self.moments)})
        tmp = folder / "state.tmp.npz"
        with tmp.open("wb") as stream:
            np.savez(
                stream,
                x=self.x,
                y=self.y,
                vx=self.val[0],
                vy=self.val[1],
                vl=self.val[2],
                meta=np.array([self.seed, self.hidden, self.step, self.t], dtype=np.int64),
                lr=np.float64(self.lr),
                **arrays,
            )
        tmp.replace(folder / "state.npz")
        self.model.save(folder / "value.npz")

    @classmethod
    def load(cls, folder: Path) -> Trainer:
        with np.load(folder / "state.npz") as d:
            seed, hidden, step, t = (int(v) for v in d["meta"])
            out = cls(seed, hidden, float(d["lr"]))
            out.step, out.t = step, t
            out.x, out.y = d["x"], d["y"]
            out.val = (d["vx"], d["vy"], d["vl"])
            out.moments = [d[f"m{i}"] for i in range(8)]
            out.net = ValueNet(
                w1=d["net_w1"],
                b1=d["net_b1"],
                w2=d["net_w2"],
                b2=float(d["net_b2"]),
                mean=d["net_mean"],
                std=d["net_std"],
                seed=seed,
                steps=step,
            )
        return out

    # -------------------------------------------------------------- fitting
    def add(self, rows: Rows) -> None:
        self.x = np.concatenate([self.x, rows[0]])
        self.y = np.concatenate([self.y, rows[1]])
        if self.net is None:
            rng = np.random.default_rng(self.seed)
            mean = self.x.mean(axis=0)
            std = self.x.std(axis=0)
            std[std < 1e-6] = 1.0
            self.net = ValueNet.fresh(self.hidden, rng, mean, std)
            self.net.seed = self.seed
            net = self.net
            self.moments = [np.zeros_like(p) for p in (net.w1, net.b1, net.w2, np.zeros(1))] * 2

    def fit(self, epochs: int, batch: int = 1024) -> float:
        """``epochs`` passes of Adam over all the data; the last pass's mean squared error."""
        net = self.model
        rng = np.random.default_rng([self.seed, self.step])
        z = (self.x - net.mean) / net.std
        target = self.y / SCALE - self.x[:, -1]  # the correction to the linear value
        b2 = np.array([net.b2])
        params = [net.w1, net.b1, net.w2, b2]
        m, v = self.moments[:4], self.moments[4:]
        beta1, beta2, eps = 0.9, 0.999, 1e-8
        loss = 0.0
        for _ in range(epochs):
            order = rng.permutation(len(z))
            total = 0.0
            for start in range(0, len(z), batch):
                idx = order[start : start + batch]
                xb, yb = z[idx], target[idx]
                h = np.tanh(xb @ net.w1 + net.b1)
                out = h @ net.w2 + b2[0]
                err = out - yb
                total += float(err @ err)
                g_out = 2.0 * err / len(idx)
                g_w2 = h.T @ g_out
                g_b2 = np.array([g_out.sum()])
                g_h = np.outer(g_out, net.w2) * (1.0 - h * h)
                g_w1 = xb.T @ g_h
                g_b1 = g_h.sum(axis=0)
                self.t += 1
                for i, (p, g) in enumerate(zip(params, (g_w1, g_b1, g_w2, g_b2), strict=True)):
                    m[i] = beta1 * m[i] + (1 - beta1) * g
                    v[i] = beta2 * v[i] + (1 - beta2) * g * g
                    mh = m[i] / (1 - beta1**self.t)
                    vh = v[i] / (1 - beta2**self.t)
                    p -= self.lr * mh / (np.sqrt(vh) + eps)
            loss = total / len(z) * SCALE * SCALE
        net.b2 = float(b2[0])
        self.moments = m + v
        return loss

    def held_out(self) -> tuple[float, float]:
        """Mean squared error on the held-out rows: the network's, the linear values'."""
        vx, vy, vl = self.val
        pred = self.model.predict_rows(vx)
        return float(np.mean((pred - vy) ** 2)), float(np.mean((vl - vy) ** 2))


def duel(
    weights: Path, preset: str, players: int, rounds: int, seed: int, jobs: int
) -> tuple[float, float, float, float, float]:
    """A duplicate-deal match of single rounds, the learned bot with ``weights`` against
    `expert`: its share of the wins and the 95% interval, and the interval of the score
    difference (learned minus expert, per round; lower is better)."""
    up = f'learned(budget_ms=0, iterations=24, weights="{weights}")'
    down = EXPERT
    bots = (up, down) if players == 2 else (up, down, up, down)
    rounds -= rounds % players
    config = SimConfig(preset, players, bots, rounds, seed=seed, unit="round", duplicate=True)
    results = run(config, jobs=jobs)
    seats = players / 2

    def share(game: object) -> float:
        return sum(s.share for s in game.seats if s.bot == up)  # type: ignore[attr-defined]

    def diff(game: object) -> float:
        mine = sum(s.total for s in game.seats if s.bot == up)  # type: ignore[attr-defined]
        theirs = sum(s.total for s in game.seats if s.bot == down)  # type: ignore[attr-defined]
        return (mine - theirs) / seats

    mean, low, high = mean_interval(deal_means(config, results, share))
    _, dlow, dhigh = mean_interval(deal_means(config, results, diff))
    return mean, low, high, dlow, dhigh


def train(args: argparse.Namespace) -> int:
    folder: Path = args.checkpoints
    if args.resume and (folder / "state.npz").exists():
        trainer = Trainer.load(folder)
        print(f"resumed from {folder} at step {trainer.step} ({len(trainer.y):,} rows)", flush=True)
    else:
        trainer = Trainer(args.seed, args.hidden, args.lr)
        jobs = [
            (p, n, args.held_out, step_seed(args.seed, 10**6, i)) for i, (p, n) in enumerate(TABLES)
        ]
        trainer.val = collect(jobs, args.jobs)
        print(f"held-out set: {len(trainer.val[1]):,} rows", flush=True)
    start = time.monotonic()
    tables: list[tuple[str, int]] = args.eval_tables
    while True:
        if args.steps is not None and trainer.step >= args.steps:
            break
        if time.monotonic() - start > args.hours * 3600:
            break
        jobs = [
            (p, n, args.rounds, step_seed(trainer.seed, trainer.step, i))
            for i, (p, n) in enumerate(TABLES)
        ]
        trainer.add(collect(jobs, args.jobs))
        loss = trainer.fit(args.epochs, args.batch)
        trainer.step += 1
        trainer.save(folder)
        net_mse, linear_mse = trainer.held_out()
        minutes = (time.monotonic() - start) / 60
        print(
            f"step {trainer.step}: {len(trainer.y):,} rows, training MSE {loss:.2f}, held-out "
            f"MSE {net_mse:.2f} (the expert's linear values {linear_mse:.2f}), {minutes:.1f} min",
            flush=True,
        )
        if args.eval_every and trainer.step % args.eval_every == 0:
            for preset, seats in tables:
                share, low, high, dlow, dhigh = duel(
                    folder / "value.npz", preset, int(seats), args.eval_rounds, args.seed, args.jobs
                )
                print(
                    f"  against expert, {preset} {seats} seats, {args.eval_rounds} rounds: "
                    f"{share:.1%} of the wins [{low:.1%}, {high:.1%}], score difference "
                    f"[{dlow:+.2f}, {dhigh:+.2f}]",
                    flush=True,
                )
    if args.out is not None and trainer.net is not None:
        trainer.net.save(args.out)
        print(f"weights written to {args.out}", flush=True)
    return 0
