import { describe, expect, it } from "vitest";
import { flightTime } from "../src/lib/flight";
import {
  DISCARD,
  DRAW,
  advance,
  flightsOf,
  heldPlace,
  initialMotion,
  receiveKey,
  sendKey,
  sendParams,
  slotPlace,
} from "../src/lib/motion";
import type { GameEvent, ServerMessage, View } from "../src/lib/protocol";
import { initialState, reduce } from "../src/lib/state";

const route = (seq: number, events: Parameters<typeof flightsOf>[1]) =>
  flightsOf(seq, events).map((f) => `${f.from} -> ${f.to}`);

describe("which cards the events move", () => {
  it("a drawn card goes from the draw pile to the drawer's hand, a discard onto the pile", () => {
    expect(route(5, [{ type: "drew", by: 1 }])).toEqual(["draw -> held:1"]);
    expect(route(6, [{ type: "discarded", by: 1, cards: ["7"] }])).toEqual(["held:1 -> discard"]);
    expect(route(7, [{ type: "took_discard", by: 2, cards: ["7"] }])).toEqual(["discard -> held:2"]);
    expect(route(8, [{ type: "undid", by: 2, cards: ["7"] }])).toEqual(["held:2 -> discard"]);
  });

  it("a replacement puts the held card in the slot and the slot's card on the pile", () => {
    expect(route(9, [{ type: "replaced", by: 0, slots: [2], cards: ["9"] }])).toEqual([
      "held:0 -> 0:2",
      "0:2 -> discard",
    ]);
    // A set: the held card takes the first slot; the pile shows the last card put on it.
    expect(route(9, [{ type: "replaced", by: 0, slots: [0, 3], cards: ["4", "4"] }])).toEqual([
      "held:0 -> 0:0",
      "0:3 -> discard",
    ]);
  });

  it("a swap moves two cards between seats, each to the other's place", () => {
    expect(route(4, [{ type: "swapped", by: 0, slots: [3], target: 2, target_slot: 1 }])).toEqual([
      "0:3 -> 2:1",
      "2:1 -> 0:3",
    ]);
  });

  it("a TAP's card goes onto the pile; a penalty card comes from the draw pile", () => {
    expect(route(3, [{ type: "tap_hit", by: 1, slots: [0], cards: ["5"] }])).toEqual(["1:0 -> discard"]);
    expect(
      route(3, [
        { type: "tap_missed", by: 1, slots: [0], cards: ["5"] },
        { type: "penalty", by: 1, slots: [4] },
      ]),
    ).toEqual(["draw -> 1:4"]);
  });

  it("a failed set kept as an extra card goes from the hand to the new slot", () => {
    expect(
      route(2, [
        { type: "set_failed", by: 0, slots: [0, 1], cards: ["3", "8"] },
        { type: "kept", by: 0, slots: [4] },
      ]),
    ).toEqual(["held:0 -> 0:4"]);
  });

  it("events that move no card make no flight", () => {
    const still: GameEvent["type"][] = ["peeked", "spied", "called", "skipped", "turn_started", "round_started", "opening_peeked"];
    for (const type of still) expect(route(1, [{ type, by: 0, slots: [0] }])).toEqual([]);
  });
});

describe("pairing the card that leaves with the card that arrives", () => {
  it("gives both ends of a flight the same key, unique to the batch", () => {
    const m = advance(initialMotion(), 12, [{ type: "replaced", by: 0, slots: [1], cards: ["9"] }]);
    expect(sendKey(m, heldPlace(0))).toBe(receiveKey(m, slotPlace(0, 1)));
    expect(sendKey(m, slotPlace(0, 1))).toBe(receiveKey(m, DISCARD));
    expect(sendKey(m, heldPlace(0))).not.toBe(sendKey(m, slotPlace(0, 1)));
    const next = advance(m, 13, [{ type: "drew", by: 1 }]);
    expect(sendKey(next, DRAW)).not.toBe(sendKey(m, heldPlace(0)));
  });

  it("a leaving card carries the seq of the events that sent it off", () => {
    const m = advance(initialMotion(), 12, [{ type: "replaced", by: 0, slots: [1], cards: ["9"] }]);
    expect(sendParams(m, heldPlace(0))).toEqual({ key: sendKey(m, heldPlace(0)), seq: 12 });
    const next = advance(m, 15, [{ type: "drew", by: 1 }]);
    expect(sendParams(next, slotPlace(0, 1)).seq).toBe(15);
  });

  it("a place no flight touches gets a key of its own: its card appears or goes in place", () => {
    const m = advance(initialMotion(), 3, [{ type: "drew", by: 1 }]);
    const a = receiveKey(m, slotPlace(2, 0));
    const b = sendKey(m, slotPlace(2, 0));
    expect(a).not.toBe(b);
    expect([sendKey(m, DRAW), receiveKey(m, heldPlace(1))]).not.toContain(a);
  });

  it("renews exactly the places the flights touch, once per batch", () => {
    let m = advance(initialMotion(), 1, [{ type: "drew", by: 0 }]);
    expect(m.gens).toEqual({ [DRAW]: 1, [heldPlace(0)]: 1 });
    m = advance(m, 2, [{ type: "replaced", by: 0, slots: [2], cards: ["9"] }]);
    expect(m.gens).toEqual({ [DRAW]: 1, [heldPlace(0)]: 2, [slotPlace(0, 2)]: 1, [DISCARD]: 1 });
    m = advance(m, 3, [{ type: "called", by: 1 }]);
    expect(m.flights).toEqual([]);
    expect(m.gens[slotPlace(0, 2)]).toBe(1);
  });
});

describe("the reducer keeps the motion of live events only", () => {
  const view = { seat: 0, hands: [[true]], phase: "holding" } as unknown as View;
  it("moves on an event, not on a snapshot or events missed while away", () => {
    const drew: ServerMessage = { type: "event", now: 0, sets: 0, seq: 4, events: [{ type: "drew", by: 0 }], view, legal: [], deadline: null };
    let s = reduce(initialState(), drew, 0);
    expect(s.motion.seq).toBe(4);
    expect(s.motion.flights.map((f) => f.to)).toEqual([heldPlace(0)]);
    s = reduce(s, { type: "missed", seq: 5, events: [{ type: "discarded", by: 0 }] }, 0);
    s = reduce(s, { type: "snapshot", now: 0, sets: 0, rounds: [], seq: 5, view, legal: [], deadline: null }, 0);
    expect(s.motion.seq).toBe(4);
    s = reduce(s, drew, 0); // the same batch again (a resync) flies nothing twice
    expect(s.motion.gens[DRAW]).toBe(1);
  });
});

describe("flight time", () => {
  it("is quick, longer for a longer way, and zero with reduced motion", () => {
    expect(flightTime(0, false)).toBeGreaterThan(200);
    expect(flightTime(900, false)).toBeGreaterThan(flightTime(100, false));
    expect(flightTime(10_000, false)).toBeLessThanOrEqual(600);
    expect(flightTime(400, true)).toBe(0);
  });
});
