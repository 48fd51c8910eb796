// A card shown to this seat alone leaves the client's state when its moment ends: the log
// never keeps it (unless the table has Recollection), and the reveal and the view's ``shown``
// let it go when the look is over.
import { describe, expect, it } from "vitest";
import type { ServerMessage } from "../src/lib/protocol";
import { SHOW_MS, endMoment, initialState, reduce, revealOver } from "../src/lib/state";
import { view } from "./fixtures";

const NOW = 1_000_000;

function spied(knowledge: Record<string, string> | null): ServerMessage {
  return {
    type: "event",
    now: 0,
    sets: 0,
    seq: 5,
    events: [{ type: "spied", by: 0, target: 1, target_slot: 2, seen: ["QS"] }],
    view: view({ phase: "turn_end", shown: { "1:2": "QS" }, knowledge }),
    legal: [],
    deadline: null,
  };
}

function faces(value: unknown): string[] {
  return JSON.stringify(value).match(/QS/g) ?? [];
}

describe("the moment of a private card", () => {
  it("is shown, but the log keeps no face of it without Recollection", () => {
    const s = reduce(initialState(), spied(null), NOW);
    expect(s.reveal?.cards).toEqual({ "1:2": "QS" });
    expect(s.log.map((e) => e.event)).toEqual([{ type: "spied", by: 0, target: 1, target_slot: 2 }]);
  });

  it("keeps the face in the log where the table has Recollection (the seat's knowledge)", () => {
    const s = reduce(initialState(), spied({ "1:2": "QS" }), NOW);
    expect(s.log[0].event.seen).toEqual(["QS"]);
  });

  it("missed events (a reconnect) are kept without a face too", () => {
    const snapshot: ServerMessage = { type: "snapshot", now: 0, sets: 0, seq: 4, view: view(), legal: [], deadline: null, rounds: [] };
    const before = reduce(initialState(), snapshot, NOW);
    const s = reduce(
      before,
      { type: "missed", seq: 5, events: [{ type: "drew", by: 0, seen: ["QS"] }] },
      NOW,
    );
    expect(s.log.at(-1)?.event).toEqual({ type: "drew", by: 0 });
  });

  it("ends with the look: no face is left anywhere in the client's state", () => {
    const s = reduce(initialState(), spied(null), NOW);
    expect(revealOver(s, NOW)).toBe(false);
    expect(revealOver(s, NOW + SHOW_MS)).toBe(true);
    const over = endMoment(s);
    expect(over.reveal).toBeNull();
    expect(over.view?.shown).toEqual({});
    expect(faces(over)).toEqual([]);
  });

  it("leaves the held card: the seat still decides what to do with it", () => {
    const drew = reduce(
      initialState(),
      {
        type: "event",
        now: 0,
        sets: 0,
        seq: 5,
        events: [{ type: "drew", by: 0, seen: ["QS"] }],
        view: view({ phase: "holding", holding: true, held: "QS", shown: { held: "QS" } }),
        legal: [],
        deadline: null,
      },
      NOW,
    );
    const over = endMoment(drew);
    expect(over.view?.held).toBe("QS");
    expect(over.view?.shown).toEqual({});
    expect(over.log[0].event.seen).toBeUndefined();
  });

  it("ends on this device when the seat's other device said READY (a snapshot without it)", () => {
    const s = reduce(initialState(), spied(null), NOW);
    const over: ServerMessage = {
      type: "snapshot",
      now: 0,
      sets: 0,
      seq: 5,
      view: view({ phase: "turn_end" }),
      legal: [],
      deadline: null,
      rounds: [],
    };
    const after = reduce(s, over, NOW + 10);
    expect(after.reveal).toBeNull();
    expect(faces(after)).toEqual([]);
    // A snapshot at a later seq (a reconnect after the table moved on) is not that.
    const later = reduce(s, { ...over, seq: 6 }, NOW + 10);
    expect(later.reveal?.cards).toEqual({ "1:2": "QS" });
  });
});
