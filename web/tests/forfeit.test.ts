// A forfeited seat's player is out of the match: from the table frame that says so, the client
// keeps no card of the seat (the server sends none any more), and the rematch is theirs again.
import { describe, expect, it } from "vitest";
import type { ServerMessage, TableInfo } from "../src/lib/protocol";
import { initialState, reduce, visibleCards } from "../src/lib/state";
import { table, view } from "./fixtures";

const NOW = 1_000_000;

function seats(forfeited: boolean): TableInfo["seats"] {
  return [0, 1, 2].map((seat) => ({
    seat,
    kind: "human",
    name: `P${seat}`,
    level: null,
    connected: true,
    bot_standin: forfeited && seat === 0,
    missed: forfeited && seat === 0 ? 3 : 0,
    forfeited: forfeited && seat === 0,
  }));
}

function tableFrame(forfeited: boolean, match = 1): ServerMessage {
  return { type: "table", seq: 5, seat: 0, table: { ...table, match, seats: seats(forfeited) } };
}

// Seat 0 at a table with Recollection: it spied seat 1's third card (QS) and knows it.
const spied: ServerMessage = {
  type: "event",
  now: 0,
  sets: 1,
  seq: 5,
  events: [{ type: "spied", by: 0, target: 1, target_slot: 2, seen: ["QS"] }],
  view: view({ phase: "turn_end", shown: { "1:2": "QS" }, knowledge: { "1:2": "QS" } }),
  legal: [{ by: 0, do: "end_turn" }],
  deadline: null,
};

function faces(value: unknown): string[] {
  return JSON.stringify(value).match(/QS/g) ?? [];
}

describe("a forfeited seat", () => {
  it("leaves its player nothing of the seat's cards: the reveal, knowledge, the log's faces", () => {
    const before = [tableFrame(false), spied].reduce((s, m) => reduce(s, m, NOW), initialState());
    expect(visibleCards(before, NOW)).toEqual({ "1:2": "QS" });
    expect(faces(before).length).toBeGreaterThan(0);

    const out = reduce(before, tableFrame(true), NOW);
    expect(out.seat).toBe(0); // still the seat's player: the page says their seat was forfeited
    expect(visibleCards(out, NOW)).toEqual({});
    expect(out.reveal).toBeNull();
    expect(out.view?.knowledge).toBeNull();
    expect(out.sets).toBe(0);
    expect(out.legal).toEqual([]);
    expect(out.log.map((e) => e.event)).toEqual([{ type: "spied", by: 0, target: 1, target_slot: 2 }]);
    expect(faces(out)).toEqual([]);
  });

  it("drops a look the timer played and the player has not seen yet", () => {
    const peeked: ServerMessage = {
      type: "event",
      now: 0,
      sets: 0,
      seq: 5,
      events: [{ type: "opening_peeked", by: 0, slots: [0, 1], seen: ["QS", "2H"] }],
      view: view({ phase: "opening", shown: { "0:0": "QS", "0:1": "2H" } }),
      legal: [],
      deadline: null,
      timed_out: { seat: 0, action: { by: 0, do: "opening_peek", slots: [0, 1] } },
    };
    const before = [tableFrame(false), peeked].reduce((s, m) => reduce(s, m, NOW), initialState());
    expect(before.reveal?.missed).toBe(true);
    const out = reduce(before, tableFrame(true), NOW);
    expect(out.reveal).toBeNull();
    expect(faces(out)).toEqual([]);
  });

  it("is the player's again in the rematch", () => {
    const out = [tableFrame(false), spied, tableFrame(true), tableFrame(false, 2)].reduce(
      (s, m) => reduce(s, m, NOW),
      initialState(),
    );
    const dealt = reduce(
      out,
      {
        type: "event",
        now: 0,
        sets: 0,
        seq: 6,
        events: [{ type: "opening_peeked", by: 0, slots: [0, 1], seen: ["QS", "2H"] }],
        view: view({ phase: "opening", shown: { "0:0": "QS", "0:1": "2H" }, knowledge: {} }),
        legal: [],
        deadline: null,
      },
      NOW,
    );
    expect(visibleCards(dealt, NOW)).toEqual({ "0:0": "QS", "0:1": "2H" });
  });
});
