"""Issue 33 §1: a card the seat's view shows face up shows its face, whether or not it is a
button to tap: in play (the drawn card, the discard taken, a face-up card another player holds,
the discard pile), at the reveal, in a replay, and in How to play; a Joker at a card's full size.

Every preset's deck is covered: the replay deals each preset's whole set of faces (Boyo's 52
cards and its Joker; the 0-13 deck of Cabo, Kivo and Kaboom) face up, and the game in play
passes each preset's special cards (Boyo's Joker and red King, the 0-13 deck's 0 and 13) through
the drawn card, the discard pile and a held card.  What is checked is the screenshot
(tests/web/faces.py), so a card drawn blank fails whatever the DOM says.
"""

from __future__ import annotations

import asyncio
import json
import random
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypedDict

import pytest
from playwright.sync_api import Browser, Page, expect

from facedown.engine.cards import standard_names, zero_to_thirteen_names
from facedown.engine.presets import PRESETS

from ..server.harness import RunningServer, create_table, play_to_end, seated
from .conftest import WEB, Shots
from .faces import assert_faces_shown
from .test_browser import end_opening, new_page, no_js_errors, open_table, opening_peek

PRESET_NAMES = ("boyo", "cabo", "kivo", "kaboom")
HOWTO = json.loads((WEB / "src" / "lib" / "howto.json").read_text(encoding="utf-8"))


# Each preset's special cards (Boyo's Joker and red King, the 0-13 deck's 0 and 13), in the
# places a player sees a card face up without tapping it.
class Special(TypedDict):
    drawn: str  # drawn from the deck by the first player
    discard: str  # first on the discard pile; the second player takes the drawn card from it
    hands: tuple[list[str], list[str]]  # no powers: the turns stay simple
    draw: list[str]  # the draw pile after the drawn card


SPECIAL: dict[str, Special] = {
    "boyo": {
        "drawn": "JK",
        "discard": "KH",
        "hands": (["2C", "5S", "9H", "3C"], ["AD", "4D", "6H", "8S"]),
        "draw": ["2H", "3H"],
    },
    "cabo": {
        "drawn": "0",
        "discard": "13",
        "hands": (["2", "5", "6", "3"], ["1", "4", "6", "5"]),
        "draw": ["2", "3"],
    },
    "kivo": {
        "drawn": "13",
        "discard": "0",
        "hands": (["2", "5", "6", "3"], ["1", "4", "6", "5"]),
        "draw": ["2", "3"],
    },
    "kaboom": {
        "drawn": "0",
        "discard": "13",
        "hands": (["2", "5", "6", "3"], ["1", "4", "6", "5"]),
        "draw": ["2", "3"],
    },
}


def distinct_faces(preset: str) -> list[str]:
    """Every face the preset's deck has, once each."""
    rules = PRESETS[preset]
    names = (
        standard_names(1, rules.jokers) if rules.deck == "standard" else zero_to_thirteen_names()
    )
    return list(dict.fromkeys(names))


# ---------------------------------------------------------------------------------------------
# How to play: the walk through a turn, the TAP pictures, the worked examples.


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_how_to_play_shows_every_face_up_card(
    browser: Browser, server: RunningServer, shots: Shots, preset: str
) -> None:
    context, page = new_page(browser, 1024, 900, reduced_motion=True)
    page.goto(f"{server.url}/howto/{preset}")
    expect(page.get_by_test_id("howto")).to_be_visible()
    # The walk through a turn: the pile, the drawn card, a card seen by a power.
    walk = assert_faces_shown(page, "[data-testid=walk]", least=4)
    assert HOWTO[preset]["turn"]["drawn"] in {s.face for s in walk}
    # Every hand of every worked example, card by card (Boyo's first holds the Joker, at a
    # card's full size: assert_faces_shown measures it).
    for n, example in enumerate(HOWTO[preset]["examples"], start=1):
        cards = [card for hand in example["hands"] for card in hand]
        seen = assert_faces_shown(page, f"[data-testid=example-{n}]", least=len(cards))
        assert sorted(s.face for s in seen) == sorted(cards)
    if preset == "boyo":
        # The TAP pictures: the discard pile and the card tapped, face up.
        tap = HOWTO[preset]["tap"]
        seen = assert_faces_shown(page, "[data-testid=tap]", least=3)
        assert {tap["top"], tap["mine"]} <= {s.face for s in seen}
    shots.take(page, preset)
    no_js_errors(page)
    context.close()


# ---------------------------------------------------------------------------------------------
# A replay: each preset's whole set of faces dealt, face up at the deal.


async def _finish(server: RunningServer, code: str, tokens: list[str]) -> None:
    async with seated(server, code, tokens) as clients:
        await clients[0].send({"type": "start"})
        for c in clients:
            await c.until("event")
        await play_to_end(clients, random.Random(5))


def _full_deck_match(server: RunningServer, preset: str) -> tuple[dict[str, str], list[str]]:
    """A one-round match whose deal puts every face of the preset's deck in a hand (8 cards a
    hand; Boyo's 53 faces need 7 seats and a second deck); played to its end; its share link."""
    faces = distinct_faces(preset)
    hand = 8
    seats = -(-len(faces) // hand)
    # One round: a score limit of 1 ends the match after it (Kivo has no score limit in Live
    # tables: one round of the 1, 3 or 5 it plays).
    options: dict[str, Any] = {"hand_size": hand}
    options |= {"rounds": 1} if preset == "kivo" else {"score_limit": 1}
    if preset == "boyo":
        options["decks"] = 2
    dealt = faces + faces[: seats * hand - len(faces)]
    hands = [dealt[i * hand : (i + 1) * hand] for i in range(seats)]
    discard = faces[seats * hand - len(faces)]
    deal = {"hands": hands, "discard": discard, "draw": [], "first": 0}
    code, tokens = create_table(
        server,
        preset,
        seats,
        options=options,
        seed=3,
        deal=deal,
        peek_seconds=600,
        turn_seconds=86400,
    )
    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, _finish(server, code, tokens)).result(timeout=300)
    with server.http() as http:
        r = http.post(f"/api/tables/{code}/share", headers={"authorization": f"Bearer {tokens[0]}"})
        assert r.status_code == 200, r.text
        link: dict[str, str] = r.json()
    return link, dealt


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_a_replay_shows_every_face_of_the_deck(
    browser: Browser, server: RunningServer, shots: Shots, preset: str
) -> None:
    link, dealt = _full_deck_match(server, preset)
    context, page = new_page(browser, 1024, 900, reduced_motion=True)
    page.goto(server.url + link["url"])
    expect(page.get_by_test_id("replay-where")).to_contain_text("Step 0 of")
    expect(page.locator("[data-testid^=replay-card-]")).to_have_count(len(dealt))
    expect(page.locator("[data-testid^=replay-card-][data-face='']")).to_have_count(0)
    seen = assert_faces_shown(page, "[data-testid=replay]", least=len(dealt))
    assert sorted(s.face for s in seen) == sorted(dealt)
    assert set(distinct_faces(preset)) <= {s.face for s in seen}
    shots.take(page, f"{preset}-deal")
    # And at the end of the match (the cards as they lie then).
    page.get_by_test_id("replay-last").click()
    expect(page.get_by_test_id("replay-winner")).to_be_visible()
    assert_faces_shown(page, "[data-testid=replay]", least=len(dealt) // 2)
    # Through the first seat's eyes, with what it knew: the cards it knows, face up.
    page.get_by_test_id("replay-first").click()
    page.get_by_test_id("replay-seat").select_option("0")
    page.get_by_test_id("replay-knew").check()
    for n in (1, 2):  # every seat's opening look (in any order)
        page.get_by_test_id("replay-forward").click()
        expect(page.get_by_test_id("replay-where")).to_contain_text(f"Step {n} of")
    if len(dealt) > 16:  # seven seats: the seven looks
        for n in range(3, 8):
            page.get_by_test_id("replay-forward").click()
            expect(page.get_by_test_id("replay-where")).to_contain_text(f"Step {n} of")
    expect(page.get_by_test_id("replay-hand-0").locator(".card.up")).to_have_count(2)
    seen = assert_faces_shown(page, "[data-testid=replay]", least=2)
    for card in seen:  # each is the card dealt there
        assert card.what.startswith("replay-card-0-"), card
        assert card.face == dealt[int(card.what.rsplit("-", 1)[1])], card
    no_js_errors(page)
    context.close()


# ---------------------------------------------------------------------------------------------
# In play: two people at a table, the special cards passing through every place that shows a
# card face up without it being a card to tap; then the reveal.


def _turn_done(page: Page, preset: str) -> None:
    """End the turn where the game asks for it (Boyo), else it has ended by itself."""
    if PRESETS[preset].explicit_end_turn:
        page.get_by_test_id("act-end_turn").click()


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_in_play_and_at_the_reveal_every_face_up_card_shows(
    browser: Browser, server: RunningServer, shots: Shots, preset: str
) -> None:
    special = SPECIAL[preset]
    drawn, top = special["drawn"], special["discard"]
    hands = [list(h) for h in special["hands"]]
    body = {
        "preset": preset,
        "seats": 2,
        "name": "Ann",
        "bots": [],
        "peek_seconds": 600,
        "turn_seconds": 600,
        "seed": 11,
        "deal": {"hands": hands, "discard": top, "draw": [drawn, *special["draw"]], "first": 0},
    }
    created = open_table(server, body)
    with server.http() as http:
        r = http.post(f"/api/tables/{created['code']}/join", json={"name": "Bo"})
        assert r.status_code == 200, r.text
        joined = r.json()
    ann_context, ann = new_page(browser, 1024, 900, reduced_motion=True)
    bo_context, bo = new_page(browser, 1024, 900, reduced_motion=True)
    ann.goto(f"{server.url}/t/{created['code']}#seat={created['token']}")
    bo.goto(f"{server.url}/t/{created['code']}#seat={joined['token']}")
    ann.get_by_test_id("start").click()
    assert opening_peek(ann, 0) == hands[0][:2]
    # The opening look: your own two cards (buttons), face up.
    assert_faces_shown(ann, "[data-testid=my-hand]", least=2)
    assert opening_peek(bo, 1) == hands[1][:2]
    end_opening(ann)  # play starts once both have looked: Ann first

    # The discard pile, to the player whose turn it is and to the other.
    expect(ann.get_by_test_id("act-draw")).to_be_visible()
    for page in (ann, bo):
        expect(page.get_by_test_id("discard")).to_have_attribute("data-face", top)
        assert_faces_shown(page, "[data-testid=discard]")

    # Ann draws: the card drawn from the deck, hers alone, face up to her.
    ann.get_by_test_id("act-draw").click()
    held = ann.get_by_test_id("held")
    expect(held.locator("[data-face]")).to_have_attribute("data-face", drawn)
    assert_faces_shown(ann, "[data-testid=held]")
    expect(bo.get_by_test_id("held-0").locator("[data-face]")).to_have_attribute("data-face", "")
    shots.take(ann, f"{preset}-drawn")
    ann.get_by_test_id("act-discard").click()
    _turn_done(ann, preset)

    # Bo takes it from the pile: face up in his hand, and to Ann in his.
    for page in (ann, bo):
        expect(page.get_by_test_id("discard")).to_have_attribute("data-face", drawn)
        assert_faces_shown(page, "[data-testid=discard]")
    bo.get_by_test_id("discard").click()
    expect(bo.get_by_test_id("held").locator("[data-face]")).to_have_attribute("data-face", drawn)
    assert_faces_shown(bo, "[data-testid=held]")
    other = ann.get_by_test_id("held-1")
    expect(other.locator("[data-face]")).to_have_attribute("data-face", drawn)
    assert_faces_shown(ann, "[data-testid=held-1]")
    shots.take(ann, f"{preset}-held-by-another")
    bo.get_by_test_id("card-1-2").click()  # it replaces his third card, which goes on the pile
    _turn_done(bo, preset)
    for page in (ann, bo):
        expect(page.get_by_test_id("discard")).to_have_attribute("data-face", hands[1][2])
        assert_faces_shown(page, "[data-testid=discard]")
        assert_faces_shown(page, "[data-testid=game]", least=1)

    # Ann calls; Bo's last turn; the reveal: every card of both hands, on the table and in the
    # scores.
    ann.get_by_test_id("act-call").click()
    bo.get_by_test_id("act-draw").click()
    last = special["draw"][0]
    expect(bo.get_by_test_id("held").locator("[data-face]")).to_have_attribute("data-face", last)
    assert_faces_shown(bo, "[data-testid=held]")
    bo.get_by_test_id("act-discard").click()
    _turn_done(bo, preset)
    for page in (ann, bo):
        expect(page.get_by_test_id("reveal")).to_be_visible()
        seen = assert_faces_shown(page, "[data-testid=game]", least=16)
        assert drawn in {s.face for s in seen}
        no_js_errors(page)
    shots.take(ann, f"{preset}-reveal")
    ann_context.close()
    bo_context.close()
