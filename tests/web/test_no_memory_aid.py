"""No memory aid, proven in the DOM: a whole round in every preset, played in a real browser
against a bot through the real server, and at every step the page holds no card face the seat
is not being shown right now.

The truth comes from the table's log in the server's SQLite file, replayed by the engine
(benchmarks/oracle.py's TableOracle): the real cards at every place, and the seat's own
observation of that state (``observe``: what it is being shown now, and its knowledge where the
table has Recollection).  At every step the test reads the page in one go (the client's seq,
every element with a card face, every label and all the text) and checks:

* every face at a place is the real card there, and one the seat is being shown: now, or in
  the moment of its latest private reveal (the client keeps a look up for a moment, and the
  opening look until READY, never past the seat's next move or the card moving), or one it
  knows when the table has Recollection; the held card likewise; the discard is the real top;
* a card's label names a face only when it shows one (or, with Recollection, what it knows);
* no log line keeps a face shown to the seat alone ("You drew 7♠"), unless Recollection;
* in boyo (one standard deck: every name but the Joker is unique) no face of a card the seat
  may not see now, that was never public, is anywhere in the page's text or labels, as a face
  ("7♠") or in words ("7 of spades").
"""

from __future__ import annotations

import contextlib
import random
import re
import time
from dataclasses import dataclass, field
from typing import Any

import pytest
from playwright.sync_api import Browser, Page
from playwright.sync_api import Error as PlaywrightError

from benchmarks.oracle import TableOracle
from facedown.engine import Game, observe

from ..server.harness import RunningServer
from .conftest import Shots
from .test_browser import new_page, no_js_errors, open_table

SEAT = 0
# A leaving card may show a face the seat was shown up to this many steps of the log before the
# card left (a reveal's moment lasts to the seat's next move: the bot's turn comes between).
FLIGHT_STEPS = 4
SUITS = {"S": ("♠", "spades"), "H": ("♥", "hearts"), "D": ("♦", "diamonds"), "C": ("♣", "clubs")}
RANKS = {"A": "Ace", "J": "Jack", "Q": "Queen", "K": "King"}
PLACE = re.compile(r"^card-(\d+)-(\d+)$")
# A log line that keeps a face shown to you alone (the English texts of lib/i18n_en.ts).
PRIVATE_LOG = re.compile(
    r"^You (drew (?!a card$)|looked at your cards [\d, ]+: |peeked at your card \d+: "
    r"|spied on .+ card \d+: )"
)

# The page read in one go.  A card on its way out (a flight: inert, about to go) is read apart:
# it may show a face that was shown a step before it left (the card moving to where it lands);
# it carries the seq of the events that sent it off (``data-left-at``, lib/flight.ts).
SNAPSHOT = """() => {
  const c = window.__facedown;
  const leaving = (e) => e.closest("[inert]") !== null;
  const faces = [...document.querySelectorAll("[data-face]")].map((e) => ({
    where: e.closest("[data-testid]")?.getAttribute("data-testid") ?? "",
    face: e.getAttribute("data-face") ?? "",
    label: e.getAttribute("aria-label") ?? "",
    leaving: leaving(e),
    left_at: e.closest("[data-left-at]")?.getAttribute("data-left-at") ?? null,
    html: leaving(e) ? e.closest("[inert]").outerHTML.slice(0, 400) : "",
  }));
  const labels = [...document.querySelectorAll("[aria-label]")]
    .filter((e) => !leaving(e))
    .map((e) => e.getAttribute("aria-label"));
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const texts = [];
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (!leaving(n.parentElement)) texts.push(n.textContent);
  }
  const log = [...document.querySelectorAll("[data-testid=log] li > span[aria-hidden]")]
    .map((e) => e.textContent);
  return {
    seq: c && c.s ? c.s.seq : null,
    phase: document.querySelector("[data-testid=game]")?.getAttribute("data-phase") ?? null,
    faces,
    text: texts.join(" ") + "\\n" + labels.join("\\n"),
    log,
  };
}"""


def face_of(name: str) -> str:
    if name == "JK":
        return "Joker"
    suit = name[-1]
    if len(name) > 1 and suit in SUITS and not name.isdigit():
        return name[:-1] + SUITS[suit][0]
    return name


def words_of(name: str) -> str:
    rank, suit = name[:-1], name[-1]
    return f"{RANKS.get(rank, rank)} of {SUITS[suit][1]}"


@dataclass
class Truth:
    """The replayed log, and what the seat may see, step by step."""

    oracle: TableOracle
    recollection: bool
    seat: int = SEAT  # whose eyes: the seat the page plays (pass-and-play: each in turn)
    moment: dict[str, str] = field(default_factory=dict)  # the latest private reveal's faces
    moment_seq: int = -1
    public_ever: set[str] = field(default_factory=set)  # every name shown to all this match
    names_at: dict[int, set[str]] = field(default_factory=dict)  # shown to the seat, by seq
    replayed: int = 0
    checks: int = 0
    faces_seen: int = 0

    def before(self, seq: int) -> set[str]:
        """The faces the seat was shown in the FLIGHT_STEPS steps of the log up to ``seq``: a
        card that left at ``seq`` may still show one in its flight (lib/flight.ts)."""
        steps = range(seq - FLIGHT_STEPS, seq + 1)
        return {n for s in steps for n in self.names_at.get(s, ())}

    def state(self, seq: int) -> Game:
        for _ in range(100):
            self.oracle.advance()
            if seq in self.oracle.states:
                return self.oracle.states[seq]
            time.sleep(0.05)
        raise AssertionError(f"seq {seq} is not in the table's log")

    def follow(self, seq: int) -> None:
        """Walk the log up to ``seq``: the latest private reveal and what was public."""
        for s in range(self.replayed + 1, seq + 1):
            game = self.state(s)
            names = game.deck.names
            self.public_ever |= {names[c] for c in game.discard_pile}
            self.public_ever |= {
                names[c] for hand in game.hands for c in hand if c >= 0 and (game.public >> c) & 1
            }
            if game.held >= 0 and game.held_from_discard:
                self.public_ever.add(names[game.held])
            for result in game.history:
                self.public_ever |= {names[c] for hand in result.hands for c in hand if c >= 0}
            seen = observe(game, self.seat).view
            shown = seen.shown
            self.names_at[s] = set(shown.values()) | ({seen.held} if seen.held else set())
            if shown:
                self.moment, self.moment_seq = dict(shown), s
            elif self._moved_on(s):
                self.moment = {}
        self.replayed = max(self.replayed, seq)

    def _moved_on(self, seq: int) -> bool:
        """Whether the seat acted at ``seq`` (the moment of a reveal ends with its next move)
        or a new round was dealt."""
        game, before = self.state(seq), self.oracle.states.get(seq - 1)
        if before is None or game.round_no != before.round_no:
            return True
        return before.awaiting().must(self.seat) and _acted(before, game, self.seat)


def _acted(before: Game, after: Game, seat: int) -> bool:
    """The seat made the move between two states (its turn's phase or its hand changed while it
    was the one asked)."""
    return (
        before.phase != after.phase
        or before.hands[seat] != after.hands[seat]
        or before.held != after.held
        or before.turn != after.turn
    )


@dataclass
class Now:
    """One step: the replayed state at the page's seq, and what the seat may see in it."""

    game: Game
    seq: int
    allowed: dict[str, str]  # faces by place ("owner:slot" or "held") it may see now
    known: dict[str, str]  # with Recollection: what it knows, by place
    held: str | None  # the held card's face as the seat's view gives it
    top: str | None
    said: str  # where we are, for the messages

    @property
    def names(self) -> set[str]:
        return set(self.allowed.values()) | ({self.held} if self.held else set())


def check(page: Page, truth: Truth) -> None:
    snap: dict[str, Any] = page.evaluate(SNAPSHOT)
    seq = snap["seq"]
    if seq is None:
        return
    truth.follow(seq)
    game = truth.state(seq)
    view = observe(game, truth.seat).view
    known = dict(view.knowledge or {}) if truth.recollection else {}
    now = Now(
        game,
        seq,
        {**truth.moment, **view.shown, **known},
        known,
        view.held,
        view.top_discard,
        f"seq {seq}, phase {snap['phase']}",
    )
    over = game.is_round_over or game.is_match_over
    for item in snap["faces"]:
        if not over and not item["where"].startswith("reveal"):
            _check_face(item, now, truth)
    if not truth.recollection:
        kept = [line for line in snap["log"] if PRIVATE_LOG.match(line or "")]
        assert kept == [], (kept, now.said)
    if game.rules.deck == "standard" and not over:
        _no_hidden_names(snap["text"], now, truth)
    truth.checks += 1


def _check_face(item: dict[str, Any], now: Now, truth: Truth) -> None:
    where, face = item["where"], item["face"]
    names = now.game.deck.names
    place = PLACE.match(where)
    if item["leaving"]:
        # A card on its way to where it lands: a face shown a step before it left, or a public
        # one.  It left at the seq it carries: a browser short of CPU may run the flight late.
        if face:
            left_at = item["left_at"]
            assert left_at is not None, f"a leaving card without its seq: {item['html']}"
            seen = truth.before(int(left_at)) | now.names | truth.public_ever
            assert face in seen, f"{face} in flight ({now.said}): {item['html']}"
        return
    if place and not face:
        # A face-down card's label names no card (with Recollection: only what it knows).
        spot = f"{place.group(1)}:{place.group(2)}"
        label = item["label"]
        wanted = f"remembered: {_said(now.known[spot])}" if spot in now.known else ": face down"
        assert label.endswith(wanted), (label, now.said)
        return
    if not face:
        return
    truth.faces_seen += 1
    if place:
        owner, slot = int(place.group(1)), int(place.group(2))
        real = names[now.game.hands[owner][slot]]
        assert face == real, f"{where} shows {face}, the card there is {real} ({now.said})"
        shown = now.allowed.get(f"{owner}:{slot}")
        assert shown == face, f"{where} shows {face}: not shown now ({now.said})"
    elif where == "held":
        assert now.game.held >= 0, (face, now.said)
        assert face == names[now.game.held], (face, now.said)
        assert face in (now.held, now.allowed.get("held")), (face, now.said)
    elif where.startswith("held-"):
        assert now.held == face, f"another's held card {face} shown ({now.said})"
    elif where == "discard":
        assert face == now.top, (face, now.top, now.said)
    else:
        raise AssertionError(f"a face {face} at {where!r} ({now.said})")


def _said(name: str) -> str:
    return "Joker" if name == "JK" else words_of(name) if name[-1] in SUITS else name


def _no_hidden_names(text: str, now: Now, truth: Truth) -> None:
    game = now.game
    names = game.deck.names
    visible = now.names | truth.public_ever | ({now.top} if now.top else set())
    hidden = {names[c] for hand in game.hands for c in hand if c >= 0}
    if game.held >= 0:
        hidden.add(names[game.held])
    for name in sorted(hidden - visible - {"JK"}):
        for said in (face_of(name), words_of(name)):
            found = re.search(rf"(?<![\w♠♥♦♣]){re.escape(said)}(?![\w♠♥♦♣])", text)
            context = text[max(0, found.start() - 80) : found.end() + 40] if found else ""
            assert found is None, f"{said} is in the page, not shown now ({now.said}): {context}"


def _click_any(page: Page, selector: str, rng: random.Random) -> bool:
    cards = page.locator(selector)
    n = cards.count()
    if not n:
        return False
    cards.nth(rng.randrange(n)).click()
    return True


def _visible(page: Page, testid: str) -> bool:
    return page.get_by_test_id(testid).is_visible()


def step(page: Page, rng: random.Random, turns: list[int], seat: int = SEAT) -> None:  # noqa: C901 - one move of a simple player, top to bottom
    """One move, if there is one to make: the opening look, a power now and then, replace or
    discard, end the turn; the call after a few turns of its own."""
    mine = f"[data-testid^=card-{seat}-].clickable"
    theirs = f"[data-testid^=card-]:not([data-testid^=card-{seat}-]).clickable"
    if _visible(page, "act-ready"):
        page.get_by_test_id("act-ready").click()
        return
    phase = page.get_by_test_id("game").get_attribute("data-phase")
    if phase == "opening":
        _click_any(page, mine, rng)
        return
    for power in ("peek", "spy", "swap"):
        if _visible(page, f"act-{power}") and rng.random() < 0.8:
            page.get_by_test_id(f"act-{power}").click()
            if power in ("peek", "swap"):
                _click_any(page, mine, rng)
            if power in ("spy", "swap"):
                _click_any(page, theirs, rng)
            return
    for simple in ("act-end_turn", "act-skip"):
        if _visible(page, simple):
            page.get_by_test_id(simple).click()
            return
    if _visible(page, "held"):
        if rng.random() < 0.5 and _click_any(page, mine, rng):
            return
        if _visible(page, "act-discard"):
            page.get_by_test_id("act-discard").click()
        else:
            _click_any(page, mine, rng)
        return
    if _visible(page, "act-draw"):
        turns[0] += 1
        if turns[0] > 5 and _visible(page, "act-call"):
            page.get_by_test_id("act-call").click()
        elif rng.random() < 0.2 and _visible(page, "act-take_discard"):
            page.get_by_test_id("act-take_discard").click()
        else:
            page.get_by_test_id("act-draw").click()
        return
    time.sleep(0.1)


# Recollection is on at turn-based tables, and only there (a Live table refuses it).
TURN_BASED = {"mode": "turn_based"}
CASES = [
    ("boyo", {}),
    ("cabo", {}),
    ("kivo", {}),
    ("kaboom", {}),
    ("kivo", TURN_BASED),
]


@pytest.mark.parametrize(
    ("preset", "mode"), CASES, ids=["boyo", "cabo", "kivo", "kaboom", "kivo-recollection"]
)
def test_no_face_the_seat_is_not_shown_now_is_in_the_dom(
    browser: Browser, logged_server: Any, shots: Shots, preset: str, mode: dict[str, Any]
) -> None:
    server, db = logged_server
    assert isinstance(server, RunningServer)
    body = {
        "preset": preset,
        "options": {},
        "seats": 2,
        "name": "Ida",
        "bots": ["medium"],
        "peek_seconds": 600,
        "turn_seconds": 600,
        **mode,
    }
    created = open_table(server, body)
    assert created["table"]["rules"]["recollection"] is (mode == TURN_BASED)
    truth = Truth(TableOracle(db, created["code"]), recollection=mode == TURN_BASED)
    context, page = new_page(browser, 360, 740)
    page.goto(f"{server.url}/t/{created['code']}#seat={created['token']}")
    page.get_by_test_id("start").click()
    page.get_by_test_id("game").wait_for()
    page.set_default_timeout(3_000)  # a move whose button went is given up and looked for again
    rng = random.Random(preset + str(mode))
    turns = [0]
    private_steps = 0
    for _ in range(600):
        check(page, truth)
        if page.get_by_test_id("reveal").is_visible():
            break
        if truth.moment:
            private_steps += 1
            if private_steps == 1:
                shots.take(page, f"{preset}-private")
        with contextlib.suppress(PlaywrightError):  # the button went: look again
            step(page, rng, turns)
    else:
        raise AssertionError("the round did not end")
    check(page, truth)
    shots.take(page, f"{preset}-reveal")
    assert truth.checks > 5
    assert truth.faces_seen > 0  # faces were on the page, and each one was checked
    assert private_steps > 0
    no_js_errors(page)
    context.close()
