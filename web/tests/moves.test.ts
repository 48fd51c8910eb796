import { describe, expect, it } from "vitest";
import { NONE, clickCard, isClickable, keepMode, setAction, simpleActions, toggleMode } from "../src/lib/moves";
import type { Action } from "../src/lib/protocol";

const holding: Action[] = [
  { by: 0, do: "replace", slots: [0] },
  { by: 0, do: "replace", slots: [1] },
  { by: 0, do: "discard" },
  { by: 0, do: "peek", slot: 0 },
  { by: 0, do: "peek", slot: 1 },
  { by: 0, do: "swap", slot: 1, target: 1, target_slot: 3 },
  { by: 0, do: "tap", slot: 0 },
];

describe("moves", () => {
  it("sends only what the server listed", () => {
    expect(clickCard(holding, NONE, 0, 0, 1).send).toEqual({ by: 0, do: "replace", slots: [1] });
    expect(clickCard(holding, NONE, 0, 1, 1).send).toBeNull(); // not my card, no mode
    expect(isClickable(holding, NONE, 0, 0, 3)).toBe(false); // no such replace listed
  });

  it("peeks, swaps and taps through modes", () => {
    expect(clickCard(holding, toggleMode(NONE, "peek"), 0, 0, 1).send).toEqual({ by: 0, do: "peek", slot: 1 });
    let click = clickCard(holding, toggleMode(NONE, "swap"), 0, 0, 1);
    expect(click.send).toBeNull();
    click = clickCard(holding, click.mode, 0, 1, 3);
    expect(click.send).toEqual({ by: 0, do: "swap", slot: 1, target: 1, target_slot: 3 });
    expect(clickCard(holding, toggleMode(NONE, "tap"), 0, 0, 0).send?.do).toBe("tap");
  });

  it("replaces a set of the server's size, of cards it lists for replacing", () => {
    let mode = toggleMode(NONE, "set");
    mode = clickCard(holding, mode, 0, 0, 1).mode;
    expect(setAction(mode, 4)).toBeNull(); // one card is not a set
    expect(clickCard(holding, mode, 0, 0, 3).mode).toEqual(mode); // slot 3: no replace listed
    mode = clickCard(holding, mode, 0, 0, 0).mode;
    expect(setAction(mode, 4)).toEqual({ do: "replace", slots: [0, 1] });
    expect(setAction(mode, 0)).toBeNull(); // the server allows no set now
    expect(keepMode(holding, mode, 0)).toEqual(NONE);
  });

  it("picks the opening cards and sends the look when enough are picked", () => {
    const opening: Action[] = [
      { by: 2, do: "opening_peek", slots: [0, 1] },
      { by: 2, do: "opening_peek", slots: [0, 2] },
      { by: 2, do: "opening_peek", slots: [1, 2] },
    ];
    const first = clickCard(opening, NONE, 2, 2, 2);
    expect(first.send).toBeNull();
    expect(clickCard(opening, first.mode, 2, 2, 0).send).toEqual({ by: 2, do: "opening_peek", slots: [0, 2] });
  });

  it("drops a mode the table no longer offers", () => {
    expect(keepMode([{ by: 0, do: "draw" }], toggleMode(NONE, "peek"))).toEqual(NONE);
    expect(simpleActions(holding).map((a) => a.do)).toEqual(["discard"]);
  });
});

describe("stale actions", () => {
  it("resends an opening peek that lost a race, never a turn action", async () => {
    const { resendAfterStale } = await import("../src/lib/moves");
    const legal: Action[] = [
      { by: 0, do: "opening_peek", slots: [0, 1] },
      { by: 0, do: "draw" },
    ];
    expect(resendAfterStale({ do: "opening_peek", slots: [1, 0] }, legal)).toEqual(legal[0]);
    expect(resendAfterStale({ do: "draw" }, legal)).toBeNull();
  });
});
