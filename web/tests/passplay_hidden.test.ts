import { describe, expect, it } from "vitest";
import { hiddenAt, rememberHidden, stillHidden } from "../src/lib/passplay";
import { MemoryStore } from "../src/lib/session";
import { initialState, type ClientState } from "../src/lib/state";

function shownAt(seq: number): ClientState {
  return { ...initialState(), seat: 1, seq, reveal: { cards: { "1:2": "K" }, until: Infinity, opening: false } };
}

describe("a pass-and-play seat's hidden cards after a reload", () => {
  it("remembers, per table and seat, the seq at which the player hid", () => {
    const store = new MemoryStore();
    expect(hiddenAt(store, "ABC123", 1)).toBeNull();
    rememberHidden(store, "ABC123", 1, 40);
    rememberHidden(store, "ABC123", 0, 38);
    expect(hiddenAt(store, "ABC123", 1)).toBe(40);
    expect(hiddenAt(store, "ABC123", 0)).toBe(38);
    rememberHidden(store, "ABC123", 1, 44);
    expect(hiddenAt(store, "ABC123", 1)).toBe(44);
    // Another table on this tab starts afresh: nothing of the first applies to it.
    rememberHidden(store, "XYZ789", 1, 3);
    expect(hiddenAt(store, "XYZ789", 1)).toBe(3);
    expect(hiddenAt(store, "ABC123", 1)).toBeNull();
  });

  it("keeps hidden what was hidden at the same seq, and shows what came later", () => {
    expect(stillHidden(shownAt(40), 40).reveal).toBeNull();
    expect(stillHidden(shownAt(41), 40).reveal).toEqual(shownAt(41).reveal);
    expect(stillHidden(shownAt(40), null).reveal).toEqual(shownAt(40).reveal);
  });

  it("reads nothing from damaged storage", () => {
    const store = new MemoryStore();
    store.setItem("facedown.passplay.hidden", "{not json");
    expect(hiddenAt(store, "ABC123", 1)).toBeNull();
    store.setItem("facedown.passplay.hidden", JSON.stringify({ code: "ABC123", seats: null }));
    expect(hiddenAt(store, "ABC123", 1)).toBeNull();
    rememberHidden(store, "ABC123", 1, 7);
    expect(hiddenAt(store, "ABC123", 1)).toBe(7);
  });
});
