import { describe, expect, it } from "vitest";
import type { Action, TableInfo, View } from "../src/lib/protocol";
import { isPassAndPlay, loadPassTables, momentOf, namesProblem, passTableFor, savePassTable, tappers } from "../src/lib/passplay";
import { MemoryStore } from "../src/lib/session";
import { heldUp, initialState, visibleCards } from "../src/lib/state";
import { view as shared } from "./fixtures";

// Cabo's opening: seat 1 starts the round, nobody has looked at their cards yet.
function view(over: Partial<View> = {}): View {
  return shared({
    preset: "cabo",
    phase: "opening",
    to_act: null,
    first: 1,
    top_discard: "4",
    draw_size: 39,
    peeked: [false, false, false],
    ...over,
  });
}

describe("whose moment it is", () => {
  it("goes player by player through the opening looks, from the round's first player", () => {
    expect(momentOf(view())).toBe(1);
    expect(momentOf(view({ peeked: [false, true, false] }))).toBe(2);
    expect(momentOf(view({ peeked: [false, true, true] }))).toBe(0);
  });

  it("is the turn player's in play, and nobody's once the round is over", () => {
    expect(momentOf(view({ phase: "turn_start", to_act: 2, peeked: [true, true, true] }))).toBe(2);
    expect(momentOf(view({ phase: "holding", to_act: 0 }))).toBe(0);
    expect(momentOf(view({ phase: "round_over", to_act: null }))).toBeNull();
    expect(momentOf(view({ phase: "match_over", to_act: null }))).toBeNull();
  });
});

describe("who may TAP", () => {
  it("is every seat whose own legal actions hold a TAP", () => {
    const tap: Action = { do: "tap", slot: 0 };
    const draw: Action = { do: "draw" };
    expect(tappers([[draw, tap], [], [tap]])).toEqual([0, 2]);
    expect(tappers([[draw], [], []])).toEqual([]);
  });
});

describe("the names typed in", () => {
  it("are 2 to 8, each filled in and each its own", () => {
    expect(namesProblem(["Maya", "Bo"])).toBeNull();
    expect(namesProblem(["Maya"])).toBe("pass.problemCount");
    expect(namesProblem(Array.from({ length: 9 }, (_, i) => `P${i}`))).toBe("pass.problemCount");
    expect(namesProblem(["Maya", "  "])).toBe("pass.problemBlank");
    expect(namesProblem(["Maya", "Bo", " maya "])).toBe("pass.problemSame");
  });
});

describe("the device's tables", () => {
  it("keeps every seat's token by table code, newest first", () => {
    const store = new MemoryStore();
    const seats = [
      { seat: 0, name: "Maya", token: "t0" },
      { seat: 1, name: "Bo", token: "t1" },
    ];
    savePassTable(store, { code: "ABC234", preset: "cabo", seats, at: 1 });
    savePassTable(store, { code: "XYZ789", preset: "boyo", seats, at: 2 });
    expect(loadPassTables(store).map((t) => t.code)).toEqual(["XYZ789", "ABC234"]);
    expect(passTableFor(store, "abc234")?.seats).toEqual(seats);
    expect(passTableFor(store, "NOPE22")).toBeNull();
    store.setItem("facedown.passplay", "[{\"code\": 1}, \"x\"]");
    expect(loadPassTables(store)).toEqual([]);
  });

  it("knows a pass-and-play table by its settings' mode", () => {
    const info = { settings: { mode: "pass_and_play" } } as unknown as TableInfo;
    expect(isPassAndPlay(info)).toBe(true);
    expect(isPassAndPlay({ settings: {} } as unknown as TableInfo)).toBe(false);
  });
});

describe("a card shown on a pass-and-play device", () => {
  it("stays up until it is hidden, not for a moment", () => {
    const shown = { ...initialState(), reveal: { cards: { "0:1": "7" }, until: 1000, opening: false } };
    const held = heldUp(shown);
    expect(visibleCards(held, 10 ** 12)).toEqual({ "0:1": "7" });
    expect(visibleCards(shown, 10 ** 12)).toEqual({});
  });
});
