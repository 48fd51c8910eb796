import { describe, expect, it } from "vitest";
import type { GameEvent, ServerMessage, View } from "../src/lib/protocol";
import { SHOW_MS, hideReveal, initialState, reduce, secondsLeft, showMissed, visibleCards, withPending } from "../src/lib/state";
import { table, view } from "./fixtures";

function run(messages: ServerMessage[], now = 1_000_000) {
  return messages.reduce((s, m) => reduce(s, m, now), initialState());
}

describe("reduce", () => {
  it("takes the seat from welcome and the table from table messages without moving seq", () => {
    const s = run([
      { type: "welcome", v: 1, seat: 2, seq: 7 },
      { type: "table", seq: 7, seat: 2, table },
    ]);
    expect(s.seat).toBe(2);
    expect(s.table?.code).toBe("ABC234");
    expect(s.seq).toBeNull(); // seq comes only from events and snapshots
  });

  it("logs each event batch once, in order, and keeps the newest view", () => {
    const ev1: ServerMessage = {
      type: "event", now: 0, sets: 0,
      seq: 3,
      events: [{ type: "drew", by: 1 }],
      view: view({ phase: "holding", to_act: 1 }),
      legal: [],
      deadline: null,
    };
    const s = run([ev1, ev1, { ...ev1, seq: 4, events: [{ type: "discarded", by: 1, cards: ["7H"] }] }]);
    expect(s.log.map((e) => e.event.type)).toEqual(["drew", "discarded"]);
    expect(s.seq).toBe(4);
  });

  it("appends missed events and then takes the snapshot after a reconnect", () => {
    const s = run([
      { type: "snapshot", now: 0, sets: 0, rounds: [], seq: 2, view: view(), legal: [], deadline: null },
      { type: "missed", seq: 3, events: [{ type: "drew", by: 1 }] },
      { type: "missed", seq: 4, events: [{ type: "discarded", by: 1, cards: ["9S"] }] },
      { type: "snapshot", now: 0, sets: 0, rounds: [], seq: 4, view: view({ top_discard: "9S" }), legal: [{ by: 0, do: "draw" }], deadline: null },
    ]);
    expect(s.log).toHaveLength(2);
    expect(s.view?.top_discard).toBe("9S");
    expect(s.legal).toEqual([{ by: 0, do: "draw" }]);
  });

  it("starts the log of a page loaded afresh with the public events the snapshot carries, once", () => {
    const recent = [
      { seq: 3, events: [{ type: "drew", by: 1 }] as GameEvent[] },
      { seq: 4, events: [{ type: "discarded", by: 1, cards: ["9S"] }] as GameEvent[] },
    ];
    const snapshot: ServerMessage = {
      type: "snapshot", now: 0, sets: 0, rounds: [], seq: 4, view: view(), legal: [], deadline: null, recent,
    };
    const s = run([snapshot, snapshot]);
    expect(s.log.map((e) => [e.seq, e.event.type])).toEqual([[3, "drew"], [4, "discarded"]]);
    // Later events follow them; a log already shown is never filled again.
    const next = reduce(s, { type: "event", now: 0, sets: 0, seq: 5, events: [{ type: "turn_started", by: 0 }], view: view(), legal: [], deadline: null }, 0);
    expect(next.log.map((e) => e.seq)).toEqual([3, 4, 5]);
    expect(new Set(next.log.map((e) => e.n)).size).toBe(3);
  });

  it("clears the pending action on its answer: its event, its ack or its error, and keeps the error to show", () => {
    const applied: ServerMessage = {
      type: "event", now: 0, sets: 0, seq: 4, events: [{ type: "drew", by: 0 }],
      view: view({ phase: "holding", to_act: 0 }), legal: [], deadline: null,
    };
    let s = withPending(initialState(), { id: "a1", seq: 3, action: { do: "draw" } });
    s = reduce(s, { ...applied, ack: "other" }, 0); // another device's action of this seat
    expect(s.pending?.id).toBe("a1");
    s = reduce(s, applied, 0); // an event without an answer
    expect(s.pending?.id).toBe("a1");
    s = reduce(s, { ...applied, ack: "a1" }, 0);
    expect(s.pending).toBeNull();
    s = withPending(s, { id: "a0", seq: 4, action: { do: "draw" } });
    s = reduce(s, { type: "ack", id: "a0", seq: 4 }, 0); // a resent action, applied before
    expect(s.pending).toBeNull();
    s = withPending(s, { id: "a2", seq: 4, action: { do: "tap", slot: 1 } });
    s = reduce(s, { type: "error", id: "a2", code: "stale", message: "the table moved on" }, 0);
    expect(s.pending).toBeNull();
    expect(s.error?.code).toBe("stale");
  });

  it("shows a card shown to this seat for a moment, then hides it", () => {
    const now = 5_000_000;
    const s = reduce(
      initialState(),
      {
        type: "event", now: 0, sets: 0,
        seq: 9,
        events: [{ type: "peeked", by: 0, slots: [2], seen: ["KS"] }],
        view: view({ phase: "turn_end", shown: { "0:2": "KS" } }),
        legal: [],
        deadline: null,
      },
      now,
    );
    expect(visibleCards(s, now + 10)).toEqual({ "0:2": "KS" });
    expect(visibleCards(s, now + SHOW_MS + 1)).toEqual({});
  });

  it("keeps the opening peek up until READY or the opening timer", () => {
    const now = 1_000_000_000; // ms
    const deadline = now / 1000 + 20;
    let s = reduce(initialState(), { type: "table", seq: 1, seat: 0, table }, now);
    s = reduce(
      s,
      {
        type: "event", now: 0, sets: 0,
        seq: 2,
        events: [{ type: "opening_peeked", by: 0, slots: [1, 3], seen: ["7H", "10C"] }],
        view: view({ phase: "opening", to_act: null, shown: { "0:1": "7H", "0:3": "10C" } }),
        legal: [],
        deadline,
      },
      now,
    );
    expect(s.reveal?.opening).toBe(true);
    expect(Object.keys(visibleCards(s, now + 15_000))).toHaveLength(2);
    expect(visibleCards(hideReveal(s), now + 1)).toEqual({});
  });

  it("hides a card you were shown at your next move, not only after the moment", () => {
    const ev = (seq: number, events: GameEvent[], over: Partial<View> = {}): ServerMessage => ({
      type: "event", now: 0, sets: 0, seq, events, view: view(over), legal: [], deadline: null,
    });
    let s = reduce(initialState(), { type: "welcome", seat: 0 } as ServerMessage, 0);
    s = reduce(s, ev(2, [{ type: "spied", by: 0, target: 1, target_slot: 2, seen: ["5C"] }], { shown: { "1:2": "5C" } }), 0);
    expect(visibleCards(s, 10)).toEqual({ "1:2": "5C" });
    // Another player's move, or your turn coming round, does not end the moment ...
    s = reduce(s, ev(3, [{ type: "drew", by: 1 }, { type: "turn_started", by: 0 }]), 20);
    expect(visibleCards(s, 30)).toEqual({ "1:2": "5C" });
    // ... your own move does.
    s = reduce(s, ev(4, [{ type: "discarded", by: 0, cards: ["9H"] }]), 40);
    expect(visibleCards(s, 50)).toEqual({});
  });

  it("ends the opening look soon once play has started without READY", () => {
    const now = 1_000_000_000;
    const deadline = now / 1000 + 600;
    let s = reduce(initialState(), { type: "table", seq: 1, seat: 0, table }, now);
    s = reduce(s, {
      type: "event", now: 0, sets: 0, seq: 2,
      events: [{ type: "opening_peeked", by: 0, slots: [0, 1], seen: ["7H", "2C"] }],
      view: view({ phase: "opening", to_act: null, shown: { "0:0": "7H", "0:1": "2C" } }),
      legal: [], deadline,
    }, now);
    s = reduce(s, {
      type: "event", now: 0, sets: 0, seq: 3,
      events: [{ type: "opening_peeked", by: 1, slots: [0, 1] }, { type: "play_started", by: 1 }],
      view: view({ phase: "turn_start", to_act: 1 }), legal: [], deadline: now / 1000 + 60,
    }, now + 1000);
    expect(Object.keys(visibleCards(s, now + 2000))).toHaveLength(2);
    expect(visibleCards(s, now + 1000 + 3 * SHOW_MS + 1)).toEqual({});
  });

  it("keeps a peek the timer played face down until the player looks, then shows it", () => {
    const now = 1_000_000_000; // ms
    let s = reduce(initialState(), { type: "table", seq: 1, seat: 0, table }, now);
    const timedOut: ServerMessage & { type: "event" } = {
      type: "event", now: 0, sets: 0,
      seq: 2,
      events: [{ type: "opening_peeked", by: 0, slots: [0, 1], seen: ["7H", "10C"] }],
      view: view({ phase: "turn_start", to_act: 1, shown: { "0:0": "7H", "0:1": "10C" } }),
      legal: [],
      deadline: null,
      timed_out: { seat: 0, action: { do: "opening_peek", by: 0, slots: [0, 1] } },
    };
    s = reduce(s, timedOut, now);
    expect(s.reveal?.missed).toBe(true);
    expect(visibleCards(s, now + 60_000)).toEqual({}); // held: not shown yet
    // The next change still shows the same cards: they keep waiting.
    s = reduce(s, { ...timedOut, seq: 3, events: [], timed_out: null }, now + 1000);
    expect(visibleCards(s, now + 60_000)).toEqual({});
    // The player looks: shown for the time given, then hidden again.
    s = showMissed(s, now + 70_000, 20_000);
    expect(visibleCards(s, now + 85_000)).toEqual({ "0:0": "7H", "0:1": "10C" });
    expect(visibleCards(s, now + 91_000)).toEqual({});
    // A peek the player made themselves is not held.
    const own = reduce(
      reduce(initialState(), { type: "table", seq: 1, seat: 0, table }, now),
      { ...timedOut, timed_out: null },
      now,
    );
    expect(own.reveal?.held).toBeFalsy();
    expect(Object.keys(visibleCards(own, now + 1))).toHaveLength(2);
  });

  it("forgets a shown card once it is swapped away", () => {
    const now = 0;
    let s = reduce(
      initialState(),
      {
        type: "event", now: 0, sets: 0,
        seq: 2,
        events: [{ type: "spied", by: 0, target: 1, target_slot: 2, seen: ["5C"] }],
        view: view({ shown: { "1:2": "5C" } }),
        legal: [],
        deadline: null,
      },
      now,
    );
    s = reduce(
      s,
      {
        type: "event", now: 0, sets: 0,
        seq: 3,
        events: [{ type: "swapped", by: 2, slots: [0], target: 1, target_slot: 2 }],
        view: view(),
        legal: [],
        deadline: null,
      },
      now + 10,
    );
    expect(visibleCards(s, now + 20)).toEqual({});
  });

  it("estimates the server clock from a fresh turn timer", () => {
    const now = 2_000_000; // ms: the client's clock is 1000 s behind the server's
    let s = reduce(initialState(), { type: "table", seq: 1, seat: 0, table }, now);
    const serverNow = now / 1000 + 1000;
    s = reduce(
      s,
      { type: "event", now: 0, sets: 0, seq: 2, events: [{ type: "turn_started", by: 1 }], view: view({ to_act: 1 }), legal: [], deadline: serverNow + 60 },
      now,
    );
    expect(Math.round(secondsLeft(s, now + 5000)!)).toBe(55);
  });

  it("keeps every round result for the scoreboard", () => {
    const result = {
      round: 1,
      hands: [["6", "2"], ["10", "9"]],
      hand_totals: [8, 19],
      round_scores: [0, 19],
      totals: [0, 19],
      caller: 0,
      reasons: [["lowest_scores_zero"], []],
    };
    const s = run([
      { type: "missed", seq: 5, events: [{ type: "round_over", result }] },
      {
        type: "snapshot", now: 0, sets: 0,
        seq: 6,
        view: view({ round: 2, last_round: { ...result, round: 2 } }),
        legal: [],
        deadline: null,
        rounds: [result],
      },
    ]);
    expect(Object.keys(s.rounds)).toEqual(["1", "2"]);
  });
});

describe("a move played because time ran out", () => {
  it("is kept until the next change, and then forgotten", () => {
    const out = { seat: 0, action: { by: 0, do: "discard" as const } };
    let s = run([
      { type: "event", now: 0, sets: 0, seq: 3, events: [{ type: "discarded", by: 0, cards: ["9"] }], view: view(), legal: [], deadline: null, timed_out: out },
    ]);
    expect(s.timedOut).toEqual(out);
    s = reduce(s, { type: "event", now: 0, sets: 0, seq: 4, events: [{ type: "turn_started", by: 1 }], view: view(), legal: [], deadline: null }, 0);
    expect(s.timedOut).toBeNull();
    // The log keeps it, with the move's first event.
    expect(s.log.map((e) => e.timedOut ?? null)).toEqual([out, null]);
  });
});

describe("scoreboard and seats from the server", () => {
  it("takes every round of the match from a snapshot (a reload keeps the scoreboard)", () => {
    const r = (round: number) => ({
      round,
      hands: [[], [], []],
      hand_totals: [1, 2, 3],
      round_scores: [1, 2, 3],
      totals: [round, 2 * round, 3 * round],
      caller: null,
      reasons: [[], [], []],
    });
    const snap: ServerMessage = {
      type: "snapshot", now: 0, sets: 0,
      seq: 40,
      view: view({ round: 3 }),
      legal: [],
      deadline: null,
      rounds: [r(1), r(2)],
    };
    const s = reduce(initialState(), snap, 0);
    expect(Object.keys(s.rounds).map(Number)).toEqual([1, 2]);
  });

  it("follows its seat when the host's removal of a seat renumbers the seats", () => {
    let s = reduce(initialState(), { type: "welcome", v: 1, seat: 3, seq: 0 } as ServerMessage, 0);
    s = reduce(s, { type: "table", seq: 0, seat: 2, table } as ServerMessage, 0);
    expect(s.seat).toBe(2);
  });
});
