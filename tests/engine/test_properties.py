"""Property tests: random legal and illegal play under every preset and random valid options.

A table is a preset plus random options that ``Ruleset.with_options`` accepts; a seeded policy
plays it through ``game.all_legal_actions()``.  After every step each test checks one family of
invariants against the engine or against an independent oracle (``tests/engine/oracles.py``).

Sizes scale with the Hypothesis profile (``HYPOTHESIS_PROFILE``: dev, ci, thorough; see
tests/conftest.py).
"""

from __future__ import annotations

import dataclasses
import json
import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, NamedTuple

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from facedown.engine import (
    EMPTY,
    EVERYONE,
    SPECTATOR,
    Action,
    Event,
    EventKind,
    Game,
    IllegalAction,
    Phase,
    Ruleset,
    StackedDeal,
    Timer,
    View,
    make_ruleset,
    observe,
    seen_event,
)
from facedown.engine import actions as A
from facedown.engine.phases import HOLDING, OPENING, ROUND_OVER, TAKEN

from .oracles import KnowledgeOracle, MatchOracle, round_scores

ROUND_BOUND = 20_000  # actions; a round of random play must end well within this
LONG_ROUND = 400  # actions; from here on the policy calls whenever it may


def examples(n: int) -> int:
    """``n`` examples under the default profile (100 examples), scaled for the others."""
    profile = settings.default
    assert profile is not None
    return max(1, n * profile.max_examples // 100)


# -------------------------------------------------------------------------------- tables


@dataclass(frozen=True)
class Table:
    """A preset, options, the number of players, the deal seed and the policy's parameters."""

    preset: str
    options: dict[str, Any]
    players: int
    seed: int
    policy_seed: int
    call_weight: float
    tap_weight: float
    max_rounds: int

    def rules(self) -> Ruleset:
        return make_ruleset(self.preset, self.options)


@st.composite
def tables(draw: st.DrawFn, max_rounds: int = 2) -> Table:
    preset = draw(st.sampled_from(["boyo", "cabo", "kivo", "kaboom"]))
    opts: dict[str, Any] = {}
    if preset == "boyo":
        opts["decks"] = draw(st.integers(1, 2))
        opts["jokers"] = draw(st.booleans())
    hand_size = draw(st.sampled_from([4, 4, 4, 2, 3, 5]))
    opts["hand_size"] = hand_size
    opts["opening_peek"] = draw(st.integers(0, min(4, hand_size)))
    if preset in ("cabo", "kaboom"):
        opts["rounds"] = draw(st.sampled_from([None, 1, 2, 3]))
    elif preset == "kivo":  # a mode of kivo: 1 or 3 rounds (5 would outlast max_rounds)
        opts["rounds"] = draw(st.sampled_from([1, 3]))
    else:
        opts["rounds"] = draw(st.integers(1, 3))
    if opts["rounds"] is not None and (preset != "kivo" or opts["rounds"] == 3):
        opts["sudden_death"] = draw(st.booleans())  # kivo: Ranked's, after three rounds
    # Boyo plays with TAP; a custom table of any preset may add or drop it.
    opts["tap"] = draw(
        st.sampled_from([True, True, True, False] if preset == "boyo" else [True, False])
    )
    opts["tap_penalty_cards"] = draw(st.integers(0, 2))
    opts["set_replace"] = draw(st.booleans())
    opts["failed_set"] = draw(st.sampled_from(["discard_taken", "keep_taken"]))
    undo, give_back = draw(st.sampled_from([(False, False), (True, False), (False, True)]))
    opts["undo_take_discard"] = undo
    opts["return_taken_discard"] = give_back
    opts["power_timing"] = draw(st.sampled_from(["holding", "discard"]))
    explicit = draw(st.booleans())
    opts["explicit_end_turn"] = explicit
    after = explicit and draw(st.booleans())
    opts["call_after_action"] = after
    opts["call_at_turn_start"] = draw(st.booleans()) if after else True
    # Kivo has Recollection in Turn-Based games only, where there is no sudden death.
    kivo_ranked = preset == "kivo" and opts.get("sudden_death", False)
    opts["recollection"] = not kivo_ranked and draw(st.booleans())
    opts["round_action_limit"] = draw(st.sampled_from([2000, 2000, 100, 150]))
    return Table(
        preset=preset,
        options=opts,
        players=draw(st.integers(2, 8)),
        seed=draw(st.integers(0, 2**32)),
        policy_seed=draw(st.integers(0, 2**32)),
        call_weight=draw(st.sampled_from([0.02, 0.05, 0.2, 0.5])),
        tap_weight=draw(st.sampled_from([0.0, 0.05, 0.15])),
        max_rounds=max_rounds,
    )


# -------------------------------------------------------------------------------- random play


class Step(NamedTuple):
    """The game after ``action`` (None: the fresh deal) was applied, and the events it caused."""

    game: Game
    action: Action | None
    events: list[Event]


def choose(game: Game, rng: random.Random, table: Table, in_round: int = 0) -> Action:
    """A random legal action: first a kind (taps and calls weighted, the others alike), then,
    for a replace, a set size, then one action uniformly.  Calls grow likely in long rounds
    (hands swollen by penalty cards make every later step costly)."""
    if game.phase == ROUND_OVER:
        seat = rng.randrange(game.players)
        assert list(game.legal_actions(seat)) == [Action(seat, A.NEXT_ROUND)]
        return Action(seat, A.NEXT_ROUND)
    legal = game.all_legal_actions()
    assert legal, f"no seat can act in phase {game.phase}"
    by_kind: dict[str, list[Action]] = {}
    for action in legal:
        by_kind.setdefault(action.kind, []).append(action)
    weight = {A.TAP: table.tap_weight, A.CALL: table.call_weight if in_round < LONG_ROUND else 1.0}
    kinds = list(by_kind)
    kind = rng.choices(kinds, [max(weight.get(k, 1.0), 1e-3) for k in kinds])[0]
    group = by_kind[kind]
    if kind == A.REPLACE:
        size = rng.choice(sorted({len(a.slots) for a in group}))
        group = [a for a in group if len(a.slots) == size]
    elif kind == A.TAP and rng.random() < 0.5:
        # Half the taps are hits when one is possible (a blind tap nearly always misses).
        ranks, top = game.deck.ranks, game.top_discard
        hits = [a for a in group if ranks[game.hands[a.player][a.slot]] == ranks[top]]
        group = hits or group
    return rng.choice(group)


def play(table: Table) -> Iterator[Step]:
    """Play ``table`` to the end of the match or ``max_rounds`` rounds, yielding every step."""
    game = Game(table.rules(), table.players, table.seed)
    rng = random.Random(table.policy_seed)
    yield Step(game, None, [])
    rounds = 0
    in_round = 0
    while not game.is_match_over:
        if game.phase == ROUND_OVER:
            rounds += 1
            if rounds >= table.max_rounds:
                return
            in_round = 0
        action = choose(game, rng, table, in_round)
        events = game.apply(action)
        in_round += 1
        assert in_round <= ROUND_BOUND, f"round {game.round_no} lasts over {ROUND_BOUND} actions"
        yield Step(game, action, events)


def in_play(game: Game) -> bool:
    return game.phase.in_play


# -------------------------------------------------------------------------------- cards


def check_cards_conserved(game: Game) -> None:
    cards = [c for hand in game.hands for c in hand if c != EMPTY]
    cards += game.draw_pile + game.discard_pile
    if game.phase in (HOLDING, TAKEN):
        cards.append(game.held)
    else:
        assert game.held == EMPTY
    assert sorted(cards) == list(range(len(game.deck)))


@settings(max_examples=examples(40), deadline=None)
@given(tables(max_rounds=3))
def test_cards_are_conserved_and_every_round_ends(table: Table) -> None:
    # Every card of the deck lies exactly once in a hand, a pile or the held place; a round of
    # random legal play ends within ROUND_BOUND actions (checked inside play()).
    rounds_ended = 0
    for step in play(table):
        check_cards_conserved(step.game)
        if step.game.is_round_over:
            rounds_ended += int(any(e.kind == "round_over" for e in step.events))
    assert rounds_ended >= 1


@settings(max_examples=examples(30), deadline=None)
@given(tables(max_rounds=2), st.integers(0, 2**32))
def test_every_round_ends_at_its_bound_though_nobody_calls(table: Table, policy: int) -> None:
    """A table that never calls, and TAPs (mostly missing) whenever it can: each round still
    ends, after at most round_action_limit actions of its play, counted as the rules count them
    (each action made in play that leaves the round in play)."""
    limit = random.Random(policy).choice([100, 150])  # low bounds: rounds reach them soon
    rules = make_ruleset(table.preset, {**table.options, "round_action_limit": limit})
    game = Game(rules, table.players, table.seed)
    rng = random.Random(policy)
    counted, rounds = 0, 0
    while not game.is_match_over and rounds < table.max_rounds:
        if game.phase == ROUND_OVER:
            rounds += 1
            counted = 0
            game.apply(Action(rng.randrange(game.players), A.NEXT_ROUND))
            continue
        legal = [a for a in game.all_legal_actions() if a.kind != A.CALL]
        taps = [a for a in legal if a.kind == A.TAP]
        action = rng.choice(taps if taps and rng.random() < 0.7 else legal)
        playing = game.phase.in_play
        game.apply(action)
        if playing and game.phase.in_play:
            counted += 1
        assert game.round_actions == (counted if game.phase.in_play else game.round_actions)
        assert counted < rules.round_action_limit
        check_cards_conserved(game)
    assert rounds >= 1 or game.is_match_over


# -------------------------------------------------------------------------------- refusals


def canonical(action: Action) -> Action:
    """The form legal_actions lists: the slots of a replace or opening peek in order."""
    if action.kind in (A.REPLACE, A.OPENING_PEEK):
        return action._replace(slots=tuple(sorted(action.slots)))
    return action


def universe_action(game: Game, rng: random.Random) -> Action:
    """Any action of the universe: every kind, seat, slot and target, including nonsense."""
    n = game.players
    widest = max(len(h) for h in game.hands) + 1
    legal = game.all_legal_actions()
    roll = rng.random()
    if legal and roll < 0.5:
        # A near miss: a legal action of some seat, with one field changed.
        a = rng.choice(legal)
        field = rng.randrange(5)
        if field == 0:
            return a._replace(player=rng.randrange(-1, n + 1))
        if field == 1:
            return a._replace(kind=rng.choice([*A.KINDS, "bogus"]))
        if field == 2 and a.slots:
            shifted = list(a.slots)
            i = rng.randrange(len(shifted))
            shifted[i] += rng.choice([-1, 1, widest])
            return a._replace(slots=tuple(shifted))
        if field == 3:
            return a._replace(target=rng.randrange(-1, n + 1))
        return a._replace(target_slot=rng.randrange(-1, widest + 1))
    kind = rng.choice([*A.KINDS, "bogus"])
    count = rng.choice([0, 1, 1, 1, 2, 2, 3, 4, 5])
    slots = tuple(rng.randrange(-1, widest + 1) for _ in range(count))
    target = rng.randrange(-1, n + 1) if kind in (A.SPY, A.SWAP) or rng.random() < 0.2 else -1
    target_slot = rng.randrange(-1, widest + 1) if kind == A.SWAP else -1
    return Action(rng.randrange(-1, n + 1), kind, slots, target, target_slot)


def is_listed(game: Game, action: Action) -> bool:
    """Listed as legal, or one of the set replaces the rules allow (sets are not listed)."""
    if not 0 <= action.player < game.players:
        return False
    seat = action.player
    return canonical(action) in game.legal_actions(seat) + game.set_replaces(seat)


@settings(max_examples=examples(30), deadline=None)
@given(tables(max_rounds=2), st.integers(0, 2**32))
def test_refused_actions_change_nothing(table: Table, probe_seed: int) -> None:
    # Game.apply raises an IllegalAction exactly for the actions legal_actions does not list
    # (set replaces aside: they are a rule, listed by set_replaces), and a refusal leaves the
    # state (snapshot and version) as it was.
    rng = random.Random(probe_seed)
    for step in play(table):
        game = step.game
        for _ in range(3):
            action = universe_action(game, rng)
            assert game.is_legal(canonical(action)) == is_listed(game, action)
            if is_listed(game, action):
                trial = game.clone()
                trial.apply(action)  # accepted: must not raise
                continue
            before, version = game.snapshot(), game.version
            with pytest.raises(IllegalAction):
                game.apply(action)
            assert game.snapshot() == before, action
            assert game.version == version


# -------------------------------------------------------------------------------- views


CARD_PATHS = ("top_discard", "held", "shown", "knowledge", "last_round")
VIEW_KEYS = {
    "holding",
    "seat",
    "preset",
    "players",
    "round",
    "phase",
    "to_act",
    "first",
    "hands",
    "top_discard",
    "discard_size",
    "draw_size",
    "caller",
    "final_turns_left",
    "totals",
    "peeked",
    "sudden_death",
    "held",
    "held_value",
    "held_powers",
    "powers",
    "shown",
    "last_round",
    "winners",
    "knowledge",
}


def walk(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    """Every leaf of a JSON value with its path."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield from walk(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from walk(v, (*path, i))
    else:
        yield path, value


def check_view(game: Game, seat: int) -> None:
    names = game.deck.names
    card_names = set(names)
    seen = observe(game, seat, knowledge=True)
    v = seen.view.to_json()
    json.dumps(v)
    assert set(v) == VIEW_KEYS == {f.name for f in dataclasses.fields(View)}
    know = dict(seen.knowledge)
    for path, leaf in walk(v):
        if isinstance(leaf, str) and leaf in card_names:
            assert path[0] in CARD_PATHS, f"card name {leaf!r} at {path} in seat {seat}'s view"
            if path[0] == "last_round":
                assert path[1] == "hands", path
    draw_order = [names[c] for c in game.draw_pile]
    if len(draw_order) > 1:
        assert all(leaf != draw_order for _, leaf in walk(v))
    top = game.top_discard
    assert v["top_discard"] == (names[top] if top >= 0 else None)
    if game.phase in (HOLDING, TAKEN):
        sees_held = game.held_from_discard or (seat >= 0 and seat == game.turn)
        assert v["holding"]
        assert v["held"] == (names[game.held] if sees_held else None)
        # The held card's worth and powers come with its face, never without it.
        worth = game.deck.values[game.held] if sees_held else None
        assert v["held_value"] == worth
        drawn = sees_held and not game.held_from_discard
        gives = list(game.deck.powers[game.held]) if drawn else []
        assert v["held_powers"] == gives
    else:
        assert not v["holding"]
        assert v["held"] is None
        assert (v["held_value"], v["held_powers"]) == (None, [])
    for key, name in v["shown"].items():
        if key == "held":
            assert seat == game.turn
            assert game.phase == HOLDING
            assert name == names[game.held]
        else:
            assert know.get(key) == name, f"seat {seat} is shown {key}={name} it does not know"
    if seat < 0:
        assert v["shown"] == {}
        assert v["knowledge"] is None
        assert v["powers"] == []
        assert seen.legal == ()
    else:
        assert v["knowledge"] == know
        if v["powers"]:
            assert seat == game.turn


def check_events(game: Game, events: list[Event]) -> None:
    deck = game.deck
    for event in events:
        full = seen_event(event, deck, EVERYONE).to_json()
        json.dumps(full)
        public = {k: v for k, v in full.items() if k != "seen"}
        spectator = seen_event(event, deck, SPECTATOR).to_json()
        assert spectator == public
        assert not {"seen", "shown", "knowledge"} & set(spectator)
        for seat in range(game.players):
            seen_by = observe(game, seat, [event]).events[0].to_json()
            if seat == event.player:
                assert seen_by == full
            else:
                assert seen_by == public, f"seat {seat} sees {event}"


# Found by a run: the round's action limit ends it while a drawn card is held (the card goes
# back on the draw pile, and nobody is shown it any more).
HELD_AT_THE_LIMIT = Table(
    "cabo",
    {
        "hand_size": 4,
        "opening_peek": 0,
        "rounds": None,
        "tap": True,
        "tap_penalty_cards": 0,
        "set_replace": False,
        "failed_set": "discard_taken",
        "undo_take_discard": False,
        "return_taken_discard": False,
        "power_timing": "holding",
        "explicit_end_turn": False,
        "call_after_action": False,
        "call_at_turn_start": True,
        "recollection": False,
        "round_action_limit": 100,
    },
    players=2,
    seed=0,
    policy_seed=1,
    call_weight=0.02,
    tap_weight=0.0,
    max_rounds=2,
)


@settings(max_examples=examples(25), deadline=None)
@given(tables(max_rounds=2))
@example(HELD_AT_THE_LIMIT)
def test_views_and_events_hold_only_known_cards(table: Table) -> None:
    # A seat's view names a card only where it is public or known to that seat; the draw pile
    # order never appears; only the actor of an event gets its "seen" cards; spectators see
    # public information only.
    for step in play(table):
        game = step.game
        for seat in (SPECTATOR, *range(game.players)):
            check_view(game, seat)
        check_events(game, step.events)


# -------------------------------------------------------------------------------- knowledge


def engine_knowledge(game: Game, seat: int) -> dict[tuple[int, int], str]:
    names = game.deck.names
    return {place: names[c] for place, c in game.knowledge(seat).items()}


# Found by a full run: a sudden-death round among two of three tied seats (the third holds no
# cards in it).
SUDDEN_AMONG_TWO = Table(
    "boyo",
    {
        "decks": 2,
        "jokers": True,
        "hand_size": 4,
        "opening_peek": 0,
        "rounds": 1,
        "sudden_death": True,
        "tap": True,
        "tap_penalty_cards": 0,
        "set_replace": False,
        "failed_set": "discard_taken",
        "undo_take_discard": True,
        "return_taken_discard": False,
        "power_timing": "holding",
        "explicit_end_turn": True,
        "call_after_action": False,
        "call_at_turn_start": True,
        "recollection": False,
        "round_action_limit": 2000,
    },
    players=3,
    seed=2,
    policy_seed=0,
    call_weight=0.02,
    tap_weight=0.05,
    max_rounds=3,
)


@settings(max_examples=examples(40), deadline=None)
@given(tables(max_rounds=3))
@example(SUDDEN_AMONG_TWO)
def test_knowledge_matches_an_oracle_fed_by_events(table: Table) -> None:
    # game.knowledge(seat) is exactly what that seat has legitimately learned by place,
    # following opening peeks, draws, replaces, peeks, spies, blind swaps, public cards,
    # penalty cards and reshuffles, as an oracle reads it from the event stream.
    oracle: KnowledgeOracle | None = None
    for step in play(table):
        game = step.game
        if oracle is None:
            oracle = KnowledgeOracle(game.players, game.rules.hand_size)
        for event in step.events:
            oracle.feed(seen_event(event, game.deck, EVERYONE).to_json())
            if event.kind == EventKind.ROUND_STARTED and game.sudden_seats():
                oracle.sit_out([p for p in range(game.players) if p not in game.sudden_seats()])
        for p, hand in enumerate(game.hands):
            assert oracle.occupied[p] == {s for s, c in enumerate(hand) if c != EMPTY}
        for seat in range(game.players):
            assert oracle.known[seat] == engine_knowledge(game, seat), f"seat {seat}"


# -------------------------------------------------------------------------------- replay


def check_codecs(action: Action) -> None:
    assert Action.from_json(json.loads(json.dumps(action.to_json()))) == action
    assert Action.from_text(action.text()) == action


@settings(max_examples=examples(25), deadline=None)
@given(tables(max_rounds=3))
def test_replaying_the_log_reproduces_the_state(table: Table) -> None:
    # The state is a function of (rules, seed, actions): replaying the log from a new Game
    # gives the same snapshot; every action survives its JSON and text forms.
    log: list[Action] = []
    game: Game | None = None
    for step in play(table):
        game = step.game
        if step.action is not None:
            check_codecs(step.action)
            log.append(step.action)
        if step.game.is_round_over and step.events:
            replay(table, log, game)
    assert game is not None
    replay(table, log, game)


def replay(table: Table, log: list[Action], game: Game) -> None:
    fresh = Game(table.rules(), table.players, table.seed)
    for action in log:
        decoded = Action.from_text(action.text())
        fresh.apply(decoded)
    assert fresh.snapshot() == game.snapshot()


@settings(max_examples=examples(15), deadline=None)
@given(tables(max_rounds=2))
def test_a_snapshot_restores_the_game(table: Table) -> None:
    # Game.from_snapshot rebuilds the state from its JSON snapshot: the same snapshot, the
    # same legal actions and knowledge, and the same continuation.
    restored: Game | None = None
    for step in play(table):
        game = step.game
        if restored is not None and step.action is not None:
            restored.apply(step.action)
            assert restored.snapshot() == game.snapshot()
        restored = Game.from_snapshot(json.loads(json.dumps(game.snapshot())))
        assert restored.snapshot() == game.snapshot()
        for seat in range(game.players):
            assert restored.legal_actions(seat) == game.legal_actions(seat)
            assert restored.knowledge(seat) == game.knowledge(seat)


# -------------------------------------------------------------------------------- scoring


# Found by a run: a sudden-death round between seats 4 and 5 of seven, after seat 0 started the
# round before: seat 4, the first of the tied from the next seat (1) on, starts it.
SUDDEN_STARTER = Table(
    "kaboom",
    {
        "hand_size": 4,
        "opening_peek": 1,
        "rounds": 1,
        "sudden_death": True,
        "tap": False,
        "tap_penalty_cards": 0,
        "set_replace": False,
        "failed_set": "discard_taken",
        "undo_take_discard": True,
        "return_taken_discard": False,
        "power_timing": "holding",
        "explicit_end_turn": False,
        "call_after_action": False,
        "call_at_turn_start": True,
        "recollection": False,
        "round_action_limit": 2000,
    },
    players=7,
    seed=39798,
    policy_seed=2696,
    call_weight=0.02,
    tap_weight=0.0,
    max_rounds=4,
)


@settings(max_examples=examples(30), deadline=None)
@given(tables(max_rounds=4))
@example(SUDDEN_STARTER)
def test_scores_and_match_end_follow_the_rules(table: Table) -> None:
    # Round scores, totals (with the 100 rule), the end of the match, the winners and the next
    # starting player equal an independent reading of each preset's text.
    rules = table.rules()
    match = MatchOracle(
        table.preset, table.players, rules.rounds, rules.sudden_death, rules.first_player
    )
    caller: int | None = None
    first = 0
    for step in play(table):
        game = step.game
        for event in step.events:
            if event.kind == "called":
                caller = event.player
            if event.kind == "round_started":
                caller = None
                assert game.first == match.next_first(first)
                assert game.turn == game.first
        first = game.first
        if not any(e.kind == "round_over" for e in step.events):
            continue
        result = game.history[-1]
        assert [list(h) for h in result.hands] == game.hands
        names = game.deck.names
        hands = [[names[c] for c in hand if c != EMPTY] for hand in result.hands]
        assert result.caller == (caller if caller is not None else -1)
        expected = match.score_round(hands, caller)
        assert list(result.round_scores) == expected, (hands, caller)
        assert list(result.totals) == match.totals
        assert game.totals == match.totals
        winners = match.winners()
        assert game.is_match_over == (winners is not None)
        if winners is not None:
            assert list(game.winners) == winners


@dataclass(frozen=True)
class Reveal:
    """A stacked round that ends at once: hands as dealt, one caller, starting totals."""

    preset: str
    options: dict[str, Any]
    hands: list[list[int]]
    discard: int
    caller: int
    totals: list[int]


@st.composite
def reveals(draw: st.DrawFn) -> Reveal:
    preset = draw(st.sampled_from(["boyo", "cabo", "kivo", "kaboom"]))
    players = draw(st.integers(2, 5))
    hand_size = draw(st.integers(1, 4))
    options: dict[str, Any] = {"opening_peek": 0, "hand_size": hand_size}
    if preset == "boyo":
        options["jokers"] = draw(st.booleans())
    deck = make_ruleset(preset, options).build_deck()
    ids = list(range(len(deck)))
    needed = players * hand_size + 1
    if draw(st.booleans()):
        # Low cards only: equal totals (ties for the lowest) become common.
        ids = sorted(ids, key=lambda c: deck.values[c])[: needed + 3]
    order = list(draw(st.permutations(ids)))
    hands = [order[p * hand_size : (p + 1) * hand_size] for p in range(players)]
    discard = order[needed - 1]
    if preset in ("cabo", "kaboom") and hand_size == 4 and draw(st.booleans()):
        # Shooting the Moon / Harakiri: two 12s and both 13s in one hand.
        moon = [c for c in range(len(deck)) if deck.names[c] in ("12", "13")]
        moon = [c for c in moon if deck.names[c] == "13"] + [
            c for c in moon if deck.names[c] == "12"
        ][:2]
        mooner = draw(st.integers(0, players - 1))
        rest = [c for c in range(len(deck)) if c not in moon]
        rest = [c for c in order if c in rest] + [c for c in rest if c not in order]
        hands = [
            moon if p == mooner else rest[p * hand_size : (p + 1) * hand_size]
            for p in range(players)
        ]
        discard = rest[players * hand_size]
    caller = draw(st.integers(0, players - 1))
    totals = draw(st.lists(st.integers(0, 100), min_size=players, max_size=players))
    if draw(st.booleans()):
        # Aim one player at exactly 100 to exercise the 100 rule.
        names = [[deck.names[c] for c in hand] for hand in hands]
        scores = round_scores(preset, names, caller)
        p = draw(st.integers(0, players - 1))
        if 0 <= 100 - scores[p] <= 100:
            totals[p] = 100 - scores[p]
    return Reveal(preset, options, hands, discard, caller, totals)


@settings(max_examples=examples(100), deadline=None)
@given(reveals())
def test_round_scores_of_dealt_hands_follow_the_rules(reveal: Reveal) -> None:
    # A round called at once and revealed with the hands as dealt scores as the preset's text
    # says: ties, the caller's reward or penalty, Shooting the Moon and the 100 rule.
    rules = make_ruleset(reveal.preset, reveal.options)
    players = len(reveal.hands)
    deal = StackedDeal(hands=reveal.hands, discard=reveal.discard, first=reveal.caller)
    game = Game(rules, players, 0, totals=reveal.totals, deal=deal)
    game.apply(Action(reveal.caller, A.CALL))
    while not game.is_round_over:
        p = game.turn
        for kind in (A.DRAW, A.DISCARD, A.SKIP, A.END_TURN):
            if Action(p, kind) in game.legal_actions(p):
                game.apply(Action(p, kind))
    names = game.deck.names
    hands = [[names[c] for c in hand] for hand in reveal.hands]
    assert [list(h) for h in game.history[-1].hands] == reveal.hands
    match = MatchOracle(reveal.preset, players, rules.rounds, rules.sudden_death, "rotate")
    match.totals = list(reveal.totals)
    expected = match.score_round(hands, reveal.caller)
    assert list(game.history[-1].round_scores) == expected
    assert game.totals == match.totals
    assert game.is_match_over == (match.winners() is not None)


# -------------------------------------------------------------------------------- turn flow


@settings(max_examples=examples(30), deadline=None)
@given(tables(max_rounds=2))
def test_the_player_to_act_always_has_a_turn_action(table: Table) -> None:
    # During play the player whose turn it is always has an action other than TAP (a player
    # with no possible turn action passes); during the opening look every seat that has not
    # looked has a look to take.
    for step in play(table):
        game = step.game
        if in_play(game):
            own = [a for a in game.legal_actions(game.turn) if a.kind != A.TAP]
            assert own, f"seat {game.turn} has no turn action in phase {game.phase}"
        elif game.phase == OPENING:
            for seat in range(game.players):
                assert bool(game.legal_actions(seat)) != game.peeked[seat]


# -------------------------------------------------------------------------------- the arbiter


@settings(max_examples=examples(40), deadline=None)
@given(tables(max_rounds=2))
def test_the_arbiter_names_exactly_the_seats_that_can_act(table: Table) -> None:
    # Game.awaiting() is the one answer to "who acts now": the seats it waits for are those
    # with a legal action other than a TAP, the seats it lets tap out of turn are those with a
    # legal TAP (the turn player aside), its timer follows the phase, and its timer key changes
    # exactly when a new turn or phase of the round begins.
    previous: tuple[Any, ...] | None = None
    for step in play(table):
        game = step.game
        waiting = game.awaiting()
        own = {
            s for s in range(game.players) if any(a.kind != A.TAP for a in game.legal_actions(s))
        }
        taps = {
            s
            for s in range(game.players)
            if s != game.turn and any(a.kind == A.TAP for a in game.legal_actions(s))
        }
        assert set(waiting.must_act) == own, (game.phase, waiting)
        assert len(waiting.must_act) == len(own)
        assert set(waiting.may_tap) == taps
        assert waiting.phase == game.phase
        assert waiting.any_one == (game.phase == ROUND_OVER)
        expected_timer = {
            OPENING: Timer.PEEK,
            ROUND_OVER: Timer.REVEAL,
            Phase.MATCH_OVER: None,
        }.get(game.phase, Timer.TURN)
        assert waiting.timer == expected_timer
        if game.phase.in_play:
            assert waiting.must_act == (game.turn,)
            n = game.players
            order = [(game.turn + i) % n for i in range(1, n)]
            assert list(waiting.may_tap) == [s for s in order if s in taps]
        key = (game.round_no, waiting.timer, game.turn if game.phase.in_play else None)
        if previous is not None:
            assert (waiting.timer_key == previous[1]) == (key == previous[0])
        previous = (key, waiting.timer_key)
