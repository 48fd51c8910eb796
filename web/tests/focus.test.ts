import { describe, expect, it } from "vitest";
import { arrowTarget, nextFocus, type Focusable, type FocusKind } from "../src/lib/focus";

const c = (kind: FocusKind | null, place: string | null = null): Focusable => ({ kind, place });
const lostButton = c("action");

describe("where the focus goes when the focused control goes away", () => {
  it("after Draw: the first of the player's cards to choose, not the pile or the bar", () => {
    // Page order: the others' cards, the discard pile, the player's cards, the action bar.
    const page = [
      c("status"),
      c("card", "1:0"),
      c("card", "discard"),
      c("card", "0:0"),
      c("my-choice", "0:1"),
      c("my-choice", "0:2"),
      c("action"),
    ];
    expect(nextFocus(lostButton, page)).toBe(4);
  });

  it("with no card of theirs to choose: the first button of the action bar", () => {
    // After a replace in boyo: END TURN (the card that moved in is still there, not chosen).
    const page = [c("status"), c("choice", "discard"), c("card", "0:2"), c("action"), c("action")];
    expect(nextFocus(c("my-choice", "0:2"), page)).toBe(3);
  });

  it("with nothing to do: the card now in the place of the one that moved away", () => {
    const page = [c("status"), c("card", "1:0"), c("card", "0:1"), c("card", "0:2")];
    expect(nextFocus(c("card", "0:2"), page)).toBe(3);
  });

  it("then another card to choose (the discard pile), then the line saying whose turn it is", () => {
    expect(nextFocus(lostButton, [c("card", "0:0"), c("status"), c("choice", "discard")])).toBe(2);
    expect(nextFocus(lostButton, [c("card", "0:0"), c("status")])).toBe(1);
    expect(nextFocus(c("card", "0:3"), [c("card", "0:0"), c("status")])).toBe(1);
  });

  it("finds nothing on a page without table controls (the caller then takes the first stop)", () => {
    expect(nextFocus(lostButton, [])).toBe(-1);
    expect(nextFocus(lostButton, [c(null), c("card", "0:0")])).toBe(-1);
  });
});

describe("arrowTarget", () => {
  const hands = [4, 0, 6, 4]; // the second hand has no card to focus

  it("moves along a hand, and stops at its ends", () => {
    expect(arrowTarget("ArrowRight", hands, { hand: 0, card: 1 })).toEqual({ hand: 0, card: 2 });
    expect(arrowTarget("ArrowRight", hands, { hand: 0, card: 3 })).toEqual({ hand: 0, card: 3 });
    expect(arrowTarget("ArrowLeft", hands, { hand: 0, card: 0 })).toEqual({ hand: 0, card: 0 });
    expect(arrowTarget("Home", hands, { hand: 2, card: 4 })).toEqual({ hand: 2, card: 0 });
    expect(arrowTarget("End", hands, { hand: 2, card: 1 })).toEqual({ hand: 2, card: 5 });
  });

  it("moves up and down to the same place, over an empty hand, to the last card of a shorter", () => {
    expect(arrowTarget("ArrowDown", hands, { hand: 0, card: 2 })).toEqual({ hand: 2, card: 2 });
    expect(arrowTarget("ArrowUp", hands, { hand: 2, card: 1 })).toEqual({ hand: 0, card: 1 });
    expect(arrowTarget("ArrowDown", hands, { hand: 2, card: 5 })).toEqual({ hand: 3, card: 3 });
    expect(arrowTarget("ArrowUp", hands, { hand: 0, card: 0 })).toBeNull();
    expect(arrowTarget("ArrowDown", hands, { hand: 3, card: 0 })).toBeNull();
  });

  it("leaves other keys alone", () => {
    expect(arrowTarget("Enter", hands, { hand: 0, card: 0 })).toBeNull();
    expect(arrowTarget("a", hands, { hand: 0, card: 0 })).toBeNull();
  });
});
