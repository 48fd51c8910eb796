"""What a seat infers from the events of which cards each player knows (facedown/bots/aware.py),
and how the expert's sampler deals with it (facedown/bots/determinize.py)."""

from __future__ import annotations

import hashlib
import random
from pathlib import Path

import pytest

from facedown.bots import EventFeed, HeuristicBot, seat_info
from facedown.bots.aware import Awareness
from facedown.bots.determinize import Sampler
from facedown.bots.driver import play_next
from facedown.bots.kept import KeptCards
from facedown.bots.memory import Memory
from facedown.bots.search import ExpertBot
from facedown.engine import PRESETS, Action, Event, Game, observe, seen_event, view
from facedown.engine import actions as A
from facedown.keptfit import fit

from .tables import RULESETS, random_action, random_states

KIVO = PRESETS["kivo"]


def follow(aware: Awareness, game: Game, seat: int, events: list[Event]) -> None:
    """``seat``'s awareness given ``events`` with its observation of ``game`` now."""
    aware.follow([seen_event(e, game.deck, seat) for e in events], view(game, seat))


def play(game: Game, aware: Awareness, seat: int, *actions: Action) -> None:
    for action in actions:
        follow(aware, game, seat, game.apply(action))


def opened(seed: int = 3, players: int = 2) -> tuple[Game, Awareness]:
    """A kivo round after everyone's opening peek at slots 0 and 1, followed by seat 0."""
    game = Game(KIVO, players, seed)
    aware = Awareness()
    follow(aware, game, 0, [])  # the first deal's events are not given: seen from the peek
    for p in range(players):
        play(game, aware, 0, Action(p, A.OPENING_PEEK, (0, 1)))
    return game, aware


def stack(game: Game, *names: str) -> None:
    """Move cards of these names to the top of the draw pile, to be drawn in this order."""
    pile, deck_names = game.draw_pile, game.deck.names
    for name in reversed(names):
        card = next(c for c in pile if deck_names[c] == name)
        pile.remove(card)
        pile.append(card)


def engine_places(game: Game, seat: int) -> set[tuple[int, int]]:
    return set(game.knowledge(seat))


@pytest.mark.parametrize("name", sorted(RULESETS))
def test_the_events_say_what_the_engine_says_each_seat_knows(name: str) -> None:
    """Followed by one seat through random play of every kind (peeks, spies, swaps, sets,
    TAPs and penalty cards where the rules have them), the places each seat knows are the
    engine's own knowledge, every action, over rounds."""
    rules = RULESETS[name]
    rng = random.Random(5)
    for seed in range(3):
        game = Game(rules, 3, seed)
        watcher = seed % 3
        aware = Awareness()
        follow(aware, game, watcher, game.start_round())
        for _ in range(400):
            if game.is_match_over:
                break
            action = random_action(game, rng, call_chance=0.02)
            play(game, aware, watcher, action)
            assert aware.tracks(game.round_no)
            if not game.is_round_over:
                for p in range(3):
                    assert aware.known[p] == engine_places(game, p), (p, action)


def test_the_opening_peek_is_known_since_before_the_first_turn() -> None:
    game, aware = opened()
    assert aware.known[1] == {(1, 0), (1, 1)}
    assert aware.kept_turns((1, 0)) == 0
    assert not aware.chosen
    stack(game, "3", "13")  # no powers
    play(game, aware, 0, Action(0, A.DRAW), Action(0, A.DISCARD))  # seat 0's turn
    play(game, aware, 0, Action(1, A.DRAW), Action(1, A.DISCARD))  # 1 threw its drawn card away
    assert aware.known[1] == {(1, 0), (1, 1)}
    assert aware.kept_turns((1, 0)) == 1  # and so kept the cards it knew once more


def test_a_replaced_card_is_known_and_chosen_by_its_owner_alone() -> None:
    game, aware = opened()
    stack(game, "3", "1", "4")
    play(game, aware, 0, Action(0, A.DRAW), Action(0, A.DISCARD))
    play(game, aware, 0, Action(1, A.DRAW), Action(1, A.REPLACE, (3,)))
    assert aware.known[1] == {(1, 0), (1, 1), (1, 3)}
    assert (1, 3) in aware.chosen
    assert (1, 3) not in aware.known[0]
    assert aware.kept_turns((1, 3)) == 0  # put there in the turn just ended
    play(game, aware, 0, Action(0, A.DRAW), Action(0, A.DISCARD))
    play(game, aware, 0, Action(1, A.TAKE_DISCARD), Action(1, A.REPLACE, (2,)))
    assert (1, 2) in aware.known[0]
    assert (1, 2) in aware.known[1]
    assert aware.kept_turns((1, 3)) == 1


def test_a_peek_and_a_spy_are_known_to_the_one_who_looked() -> None:
    game, aware = opened()
    stack(game, "7")  # peek
    play(game, aware, 0, Action(0, A.DRAW), Action(0, A.DISCARD), Action(0, A.PEEK, (2,)))
    assert (0, 2) in aware.known[0]
    stack(game, "9")  # spy
    play(game, aware, 0, Action(1, A.DRAW), Action(1, A.DISCARD), Action(1, A.SPY, (3,), 0))
    assert (0, 3) in aware.known[1]
    assert (0, 3) not in aware.known[0]


def test_a_swap_takes_what_each_seat_knew_with_the_cards() -> None:
    game, aware = opened()
    stack(game, "11")  # swap
    play(game, aware, 0, Action(0, A.DRAW), Action(0, A.DISCARD), Action(0, A.SWAP, (2,), 1, 0))
    # 1's known card went to 0's slot 2; the card that came to 1's slot 0 nobody had seen.
    assert aware.known[1] == {(1, 1), (0, 2)}
    assert (1, 0) not in aware.since
    stack(game, "9", "12")
    play(game, aware, 0, Action(1, A.DRAW), Action(1, A.DISCARD), Action(1, A.SPY, (0,), 0))
    play(game, aware, 0, Action(0, A.DRAW), Action(0, A.DISCARD), Action(0, A.SWAP, (0,), 1, 1))
    # 1 had looked at 0's slot 0 (a spy): the card that came to it is known to it, not chosen.
    assert (1, 1) in aware.known[1]
    assert (1, 1) not in aware.chosen
    assert aware.kept_turns((1, 1)) == 0


def test_a_tap_hit_empties_a_place_and_a_penalty_card_is_known_to_nobody() -> None:
    rules = RULESETS["custom-cabo"]  # TAP with two penalty cards
    game = Game(rules, 2, 4)
    aware = Awareness()
    follow(aware, game, 0, game.start_round())  # no opening peek: followed from round_started
    top = game.deck.ranks[game.top_discard]
    miss = next(s for s, c in enumerate(game.hands[1]) if game.deck.ranks[c] != top)
    play(game, aware, 0, Action(1, A.TAP, (miss,)))
    assert aware.known[0] == aware.known[1] == {(1, miss)}  # shown to everyone
    hand = len(game.hands[1])
    assert not any((1, s) in k for k in aware.known for s in (hand - 2, hand - 1))
    assert engine_places(game, 1) == aware.known[1]


def test_a_round_is_tracked_only_from_its_start_and_once_events_were_given() -> None:
    game = Game(KIVO, 2, 3)
    never = Awareness()
    follow(never, game, 0, [])
    assert not never.tracks(game.round_no)  # an old driver: no events, nothing tracked
    game, aware = opened()
    assert aware.tracks(game.round_no)
    late = Awareness()
    play(game, late, 0, Action(0, A.DRAW))
    assert not late.tracks(game.round_no)  # it never saw the deal nor the peeks


# ---------------------------------------------------------------------------- the sampler
def sampler_after(game: Game, seat: int, events: list[Event], **options: object) -> Sampler:
    info = observe(game, seat, events, knowledge=True)
    memory = Memory()
    memory.follow_events = True
    memory.observe(info)
    return Sampler(info, memory, game.rules.to_json(), **options)  # type: ignore[arg-type]


def test_the_sampler_deals_the_tracked_known_places_low_and_the_others_as_any() -> None:
    game = Game(KIVO, 2, 3)
    events = game.start_round()
    for p in range(2):
        events += game.apply(Action(p, A.OPENING_PEEK, (0, 1)))
    values = KIVO.deck_cards.values
    sampler = sampler_after(game, 0, events, opponent_knows=0.5, keep_low=1.0, track_events=True)
    low: list[int] = []
    other: list[int] = []
    rng = random.Random(2)
    for _ in range(400):
        sampled = sampler.sample(rng)
        hand = sampled.hands[1]
        low += [values[hand[s]] for s in (0, 1)]
        other += [values[hand[s]] for s in (2, 3)]
        # What the opponent knows in the sampled game is what it looked at, every time.
        assert set(sampled.knowledge(1)) == {(1, 0), (1, 1)}
    assert sum(low) / len(low) < sum(other) / len(other) - 1.5
    assert 5.5 < sum(other) / len(other) < 7.5
    blind = sampler_after(game, 0, events, opponent_knows=0.5, keep_low=1.0, track_events=False)
    guessed = {frozenset(blind.sample(rng).knowledge(1)) for _ in range(40)}
    assert len(guessed) > 4  # not told to follow the events: a guess each deal


def test_a_spied_card_is_known_to_the_spy_in_the_sampled_game() -> None:
    game = Game(KIVO, 2, 3)
    events = game.start_round()
    for p in range(2):
        events += game.apply(Action(p, A.OPENING_PEEK, (0, 1)))
    stack(game, "3", "9")
    events += game.apply(Action(0, A.DRAW)) + game.apply(Action(0, A.DISCARD))
    for action in (Action(1, A.DRAW), Action(1, A.DISCARD), Action(1, A.SPY, (3,), 0)):
        events += game.apply(action)
    sampled = sampler_after(game, 0, events, track_events=True).sample(random.Random(1))
    assert (0, 3) in sampled.knowledge(1)


def test_without_events_the_sampler_deals_as_it_always_has() -> None:
    """The same seeds give the same deals as before the events were followed (the digest was
    taken on the sampler before that change)."""
    digest = hashlib.sha256()
    for name in sorted(PRESETS):
        rules = PRESETS[name]
        rng = random.Random(7)
        for game in random_states(rules, 3, seed=11, count=30):
            seat = game.to_act
            if seat is None:
                continue
            info = seat_info(game, seat)
            bot = HeuristicBot(seed=1)
            bot.memory.observe(info)
            sampler = Sampler(info, bot.memory, rules.to_json(), opponent_knows=0.6, keep_low=1.5)
            d = sampler.sample(rng)
            digest.update(repr((d.hands, d.draw_pile, d.discard_pile, d.known, d.seed)).encode())
    assert digest.hexdigest() == "f3d28211e1c50248fdc55574d5d25cccff951bb203254573e8ada28c7107e5dc"


@pytest.mark.parametrize("track", [True, False])
def test_only_an_expert_told_to_follow_the_events_follows_them(track: bool) -> None:
    """Through the driver (which gives the events to the bots that read them): the expert built with
    ``track_events`` follows the round in its memory; the default expert, and the heuristic
    bots, do not pay for following it."""
    game = Game(PRESETS["kivo"], 2, 5)
    expert = ExpertBot(seed=1, budget_ms=0, iterations=2, track_events=track)
    hard = HeuristicBot(seed=2)
    feed = EventFeed()
    for _ in range(12):
        play_next(game, [expert, hard], feed)
    assert expert.base.memory.aware.tracks(game.round_no) is track
    assert not hard.memory.aware.tracks(game.round_no)


def test_the_kept_model_deals_a_chosen_card_lower_than_one_just_looked_at() -> None:
    """With a fitted model (facedown/bots/kept.py) the sampler deals an opponent's known card by
    what the events say of it: a card just looked at as any card, one its owner chose low."""
    game = Game(KIVO, 2, 3)
    events = game.start_round()
    for p in range(2):
        events += game.apply(Action(p, A.OPENING_PEEK, (0, 1)))
    stack(game, "3", "2")  # no powers
    for _ in range(2):  # a turn each: seat 0 throws its card away, seat 1 keeps its in slot 0
        seat = game.turn
        events += game.apply(Action(seat, A.DRAW))
        move = Action(1, A.REPLACE, (0,)) if seat == 1 else Action(0, A.DISCARD)
        events += game.apply(move)
    model = KeptCards({"kivo/2": {"0,0": 1.0, "1,0": 6.0}})
    lowest_of = model.lowest_of("kivo", 2)
    assert lowest_of is not None
    assert model.lowest_of("cabo", 2) is None  # a table not fitted: the sampler's own way
    sampler = sampler_after(game, 0, events, track_events=True, lowest_of=lowest_of)
    assert sampler.tracked is not None
    assert lowest_of(sampler.tracked, (1, 0)) == 6.0  # chosen this turn
    assert lowest_of(sampler.tracked, (1, 1)) == 1.0  # looked at, never kept through a turn
    values = KIVO.deck_cards.values
    rng = random.Random(4)
    hands = [sampler.sample(rng).hands[1] for _ in range(400)]
    chosen = sum(values[h[0]] for h in hands) / len(hands)
    looked = sum(values[h[1]] for h in hands) / len(hands)
    assert chosen < looked - 2.0
    # Without the events followed, the model is not used.
    blind = sampler_after(game, 0, events, track_events=False, lowest_of=lowest_of)
    assert blind.lowest_of is None


def test_the_kept_model_is_fitted_from_self_play_and_survives_a_round_trip(
    tmp_path: Path,
) -> None:
    model = fit([("kivo", 2)], rounds=30, seed=2, least=5)
    cells = model.tables["kivo/2"]
    assert cells
    assert all(k >= 1.0 for k in cells.values())
    # Cards chosen are kept for being low: their k is above that of cards just looked at.
    assert cells["1,0"] > cells["0,0"]
    path = tmp_path / "kept.json"
    model.save(path)
    assert KeptCards.load(path) == model
    assert fit([("kivo", 2)], rounds=30, seed=2, least=5) == model  # from the seed
    rare = fit([("kivo", 2)], rounds=30, seed=2, least=10**6).tables["kivo/2"]
    assert rare == {}  # nothing seen often enough: the sampler's own way for every card
    with pytest.raises(ValueError, match="format"):
        KeptCards.from_json({"format": 0, "tables": {}})
