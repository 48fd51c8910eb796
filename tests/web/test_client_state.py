"""No memory aid in the client's own state: after a moment, the page keeps no face of it.

The DOM tests (test_no_memory_aid.py) check what the page shows; these read what the web client
keeps in memory, as a script in the console could (``window.__facedown``, the table's client;
``window.__passplay``, every seat's client on a pass-and-play device): its whole state, the
log, the reveal and the last view, as JSON.  A card shown to the seat alone may be there during
its moment, never after it.  The moves go through the client's own methods (what the buttons
call), against the real server, from stacked deals of one standard deck (Boyo: every name but
the Joker is unique, so a name found is the card).
"""

from __future__ import annotations

import json
from typing import Any

from playwright.sync_api import Browser, Page

from ..server.harness import RunningServer
from .test_browser import new_page, no_js_errors, open_table

HAND = ["2S", "3S", "4S", "5S"]  # seat 0's cards
DEAL = {
    "hands": [HAND, ["2H", "3H", "4H", "5H"]],
    "discard": "6C",
    "draw": ["7S", "6D", "8D", "9D", "10D", "6H", "8H"],  # seat 0 draws 7S: a peek
    "first": 0,
}
# The reveal of a peek (not the drawn card's, which is up first): a card at a place.
PEEKED = "s.reveal !== null && Object.keys(s.reveal.cards).some((k) => k !== 'held')"


def client_state(page: Page, which: str = "window.__facedown") -> dict[str, Any]:
    """The client's whole state as its JSON (what the console reaches)."""
    text: str = page.evaluate(f"() => JSON.stringify({which}.s)")
    found: dict[str, Any] = json.loads(text)
    return found


def wait_state(page: Page, test: str, which: str = "window.__facedown") -> None:
    """Until ``test`` (a JS expression of the client's state ``s``) holds."""
    page.wait_for_function(
        f"() => {{ const c = {which}; if (!c) return false; const s = c.s; return {test}; }}"
    )


def act(page: Page, kind: str, which: str = "window.__facedown", pick: str = "") -> None:
    """Play the first legal action of ``kind`` (``pick``: a further JS test of it, on ``a``)."""
    test = f"a.do === {json.dumps(kind)}" + (f" && ({pick})" if pick else "")
    played = page.evaluate(
        f"""() => {{
          const c = {which};
          const a = c.s.legal.find((a) => {test});
          if (!a) return false;
          const {{ by, ...action }} = a;
          c.act(action);
          return true;
        }}"""
    )
    assert played, (kind, client_state(page, which)["legal"])


def faces_in(state: dict[str, Any], faces: set[str]) -> set[str]:
    text = json.dumps(state)
    return {f for f in faces if f'"{f}"' in text}


def test_a_live_seat_keeps_no_face_after_its_moment(
    browser: Browser, server: RunningServer
) -> None:
    body = {
        "preset": "boyo",
        "options": {"rounds": 1},
        "seats": 2,
        "name": "Ida",
        "bots": ["medium"],
        "peek_seconds": 600,
        "turn_seconds": 600,
        "deal": DEAL,
        "seed": 5,
    }
    created = open_table(server, body)
    context, page = new_page(browser)
    page.goto(f"{server.url}/t/{created['code']}#seat={created['token']}")
    wait_state(page, "s.table !== null")
    page.evaluate("() => window.__facedown.startMatch()")

    # The opening look: shown until READY, then gone from the client's state.
    wait_state(page, "s.legal.some((a) => a.do === 'opening_peek')")
    act(page, "opening_peek")
    wait_state(page, "s.reveal !== null")
    looked = set(client_state(page)["reveal"]["cards"].values())
    assert looked
    assert looked <= set(HAND)
    assert faces_in(client_state(page), looked) == looked  # during the moment: there
    page.evaluate("() => window.__facedown.ready()")
    wait_state(page, "s.reveal === null")
    assert faces_in(client_state(page), looked) == set(), "the opening look outlived READY"

    # Seat 0's turn: it draws 7S and peeks at a card it did not look at (Boyo: while holding).
    wait_state(page, "s.legal.some((a) => a.do === 'draw')")
    act(page, "draw")
    wait_state(page, "s.legal.some((a) => a.do === 'peek')")
    unseen = [i for i, name in enumerate(HAND) if name not in looked]
    act(page, "peek", pick=f"a.slot === {unseen[0]}")
    wait_state(page, PEEKED)
    peeked = {n for k, n in client_state(page)["reveal"]["cards"].items() if k != "held"}
    assert peeked == {HAND[unseen[0]]}
    # The look runs out by itself (no READY): its card leaves the reveal, the view and the log.
    wait_state(page, "s.reveal === null")
    kept = faces_in(client_state(page), looked | peeked)
    assert kept == set(), f"the client's state still holds {kept} after the moment"
    assert all("seen" not in e["event"] for e in client_state(page)["log"])

    # A second device of the seat (or a reload), before the table moved on: the server says
    # the moment is over (the first device told it), and sends no face of it either.
    other_context, other = new_page(browser)
    other.goto(f"{server.url}/t/{created['code']}#seat={created['token']}")
    wait_state(other, "s.view !== null")
    assert client_state(other)["seq"] == client_state(page)["seq"]
    kept = faces_in(client_state(other), looked | peeked)
    assert kept == set(), f"a second device was sent {kept} after the moment"
    no_js_errors(page, other)
    other_context.close()
    context.close()


def test_a_pass_and_play_device_keeps_no_face_after_a_moment(
    browser: Browser, server: RunningServer
) -> None:
    with server.http() as http:
        body = {"preset": "boyo", "names": ["Maya", "Bo"], "deal": DEAL, "seed": 5}
        r = http.post("/api/tables/pass-and-play", json=body)
        assert r.status_code == 200, r.text
        made = r.json()
    context, page = new_page(browser)
    page.goto(f"{server.url}/")
    kept = [{"code": made["code"], "preset": "boyo", "seats": made["seats"], "at": 1}]
    page.evaluate("v => localStorage.setItem('facedown.passplay', v)", json.dumps(kept))
    page.goto(f"{server.url}/t/{made['code']}")
    page.get_by_test_id("pass-curtain").wait_for()
    seat = [f"window.__passplay.clients[{s}]" for s in range(2)]
    everything = "window.__passplay.clients.map((c) => c.s)"

    def device() -> str:
        text: str = page.evaluate(f"() => JSON.stringify({everything})")
        return text

    shown: set[str] = set()
    for s in (0, 1):  # each seat looks at its opening cards, then hides them (the button's call)
        wait_state(page, "s.legal.some((a) => a.do === 'opening_peek')", seat[s])
        act(page, "opening_peek", seat[s])
        wait_state(page, "s.reveal !== null", seat[s])
        cards = set(client_state(page, seat[s])["reveal"]["cards"].values())
        assert cards
        page.evaluate(f"() => {seat[s]}.hideShown()")
        wait_state(page, "s.reveal === null", seat[s])
        shown |= cards
    # Seat 0's turn: a draw and a peek, hidden before the device is passed on.
    wait_state(page, "s.legal.some((a) => a.do === 'draw')", seat[0])
    act(page, "draw", seat[0])
    wait_state(page, "s.legal.some((a) => a.do === 'peek')", seat[0])
    act(page, "peek", seat[0])
    wait_state(page, PEEKED, seat[0])
    shown |= {
        name
        for where, name in client_state(page, seat[0])["reveal"]["cards"].items()
        if where != "held"
    }
    page.evaluate(f"() => {seat[0]}.hideShown()")
    wait_state(page, "s.reveal === null", seat[0])
    # The held card is the seat's decision, not a moment: it is still in its hand.
    held = client_state(page, seat[0])["view"]["held"]
    found = {f for f in shown if f'"{f}"' in device()}
    assert found <= {held}, f"the device still holds {found - {held}} after the moments"
    for s in (0, 1):
        assert all("seen" not in e["event"] for e in client_state(page, seat[s])["log"])
    # A reload of the device: every seat's client says hello again, and is sent none of them.
    seq = client_state(page, seat[0])["seq"]
    page.reload()
    page.get_by_test_id("pass-curtain").wait_for()
    for s in (0, 1):
        wait_state(page, f"s.view !== null && s.seq === {seq}", seat[s])
    found = {f for f in shown if f'"{f}"' in device()}
    assert found <= {held}, f"after a reload the device holds {found - {held}}"
    no_js_errors(page)
    context.close()
