import { describe, expect, it } from "vitest";
import { confirmMissed, keepMissed, loadMissed, startWith } from "../src/lib/missed";
import type { ServerMessage, TableInfo, View } from "../src/lib/protocol";
import { MemoryStore } from "../src/lib/session";
import { type ClientState, hideReveal, reduce, showMissed, visibleCards } from "../src/lib/state";
import { table as boyoTable } from "./fixtures";

const table: TableInfo = { ...boyoTable, preset: "cabo" };

function view(over: Partial<View> = {}): View {
  return {
    seat: 0, preset: "cabo", players: 2, round: 2, phase: "opening", to_act: null, first: 1,
    hands: [[true, true, true, true], [true, true, true, true]],
    top_discard: "4", discard_size: 1, draw_size: 43, caller: null, final_turns_left: null,
    totals: [10, 12], peeked: [true, false], sudden_death: [], holding: false, held: null, held_value: null,
    held_powers: [], powers: [], shown: {}, last_round: null, winners: [], knowledge: null,
    ...over,
  };
}

const NOW = 1_000_000_000;
const CARDS = { "0:0": "7", "0:1": "10" };

// The timer looks at two cards for seat 0 while its scores are still up: held face down.
const timedOut: ServerMessage = {
  type: "event", now: 0, sets: 0, seq: 12,
  events: [{ type: "opening_peeked", by: 0, slots: [0, 1], seen: ["7", "10"] }],
  view: view({ shown: CARDS }),
  legal: [], deadline: null,
  timed_out: { seat: 0, action: { do: "opening_peek", by: 0, slots: [0, 1] } },
};

/** A page (lib/client.svelte.ts): it starts from the peek ``tab`` kept, if any, folds the
 *  messages in, confirms the peek at the first snapshot and keeps it after each message. */
function page(tab: MemoryStore, messages: ServerMessage[], now = NOW): ClientState {
  let kept = loadMissed(tab, "ABC234");
  let s = startWith(kept);
  for (const msg of [{ type: "table", seq: 1, seat: 0, table } as ServerMessage, ...messages]) {
    const caughtUp = s.seq;
    s = reduce(s, msg, now);
    if (msg.type === "snapshot" && kept) {
      s = confirmMissed(kept, s, caughtUp, now);
      kept = null;
    }
    keepMissed(tab, "ABC234", s);
  }
  return s;
}

function snapshot(seq: number, over: Partial<View> = {}): ServerMessage {
  // After a reload: the server shows the opening cards no more (the bot has looked since).
  return { type: "snapshot", now: 0, sets: 0, rounds: [], seq, view: view(over), legal: [], deadline: null };
}

const bot: ServerMessage = {
  type: "event", now: 0, sets: 0, seq: 13,
  events: [{ type: "opening_peeked", by: 1, slots: [0, 1] }],
  view: view({ peeked: [true, true] }), // the server shows seat 0's cards no more
  legal: [], deadline: null, timed_out: null,
};

/** A tab that kept the peek, at seq 13 (the bot looked after the timer looked for you). */
function kept(): MemoryStore {
  const tab = new MemoryStore();
  const before = page(tab, [timedOut, bot]);
  expect(before.reveal?.held).toBe(true);
  return tab;
}

const PLAY: Partial<View> = { phase: "turn_start", to_act: 1, peeked: [true, true] };

describe("a peek the timer played, across a reload", () => {
  it("waits face down after the reload until the player looks, then shows for the look", () => {
    const tab = kept();
    const after = page(tab, [snapshot(13)]);
    expect(after.reveal?.missed).toBe(true);
    expect(visibleCards(after, NOW)).toEqual({}); // still face down under the scores
    const looking = showMissed(after, NOW + 5_000, 20_000);
    expect(visibleCards(looking, NOW + 6_000)).toEqual(CARDS);
    keepMissed(tab, "ABC234", looking);
    // Reloaded during the look: the rest of the look; after it, nothing.
    expect(visibleCards(page(tab, [snapshot(13)], NOW + 10_000), NOW + 10_000)).toEqual(CARDS);
    expect(page(tab, [snapshot(13)], NOW + 30_000).reveal).toBeNull();
  });

  it("follows the events it missed: a card swapped away meanwhile is no longer shown", () => {
    const after = page(kept(), [
      { type: "missed", seq: 14, events: [{ type: "play_started", by: 1 }] },
      { type: "missed", seq: 15, events: [{ type: "drew", by: 1 }] },
      { type: "missed", seq: 16, events: [{ type: "swapped", by: 1, slots: [2], target: 0, target_slot: 1 }] },
      snapshot(16, PLAY),
    ]);
    expect(after.reveal?.cards).toEqual({ "0:0": "7" });
    expect(showMissed(after, NOW, 20_000).reveal?.cards).toEqual({ "0:0": "7" });
  });

  it("is dropped when what happened meanwhile is not known, or it is another round or seat", () => {
    // Play went on and the server sent a fresh snapshot alone: a card may have moved.
    expect(page(kept(), [snapshot(20, PLAY)]).reveal).toBeNull();
    // Still the opening: nobody can move a card.
    expect(page(kept(), [snapshot(15)]).reveal?.cards).toEqual(CARDS);
    expect(page(kept(), [snapshot(30, { round: 3 })]).reveal).toBeNull();
    expect(page(kept(), [snapshot(15, { seat: 1 })]).reveal).toBeNull();
  });

  it("is let go after READY, and a page never shown it keeps none", () => {
    const tab = kept();
    const s = page(tab, [snapshot(13)]);
    keepMissed(tab, "ABC234", hideReveal(s));
    expect(page(tab, [snapshot(13)]).reveal).toBeNull();
    expect(page(new MemoryStore(), [timedOut]).reveal?.held).toBe(true); // (this one is live)
    expect(page(new MemoryStore(), [snapshot(12)]).reveal).toBeNull();
  });
});
