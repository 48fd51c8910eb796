import { describe, expect, it } from "vitest";
import type { YourGame } from "../src/lib/api";
import { newlyWaiting, tabTitle } from "../src/lib/games.svelte";

function game(code: string, yourMove: boolean): YourGame {
  return {
    code,
    preset: "kivo",
    mode: "turn_based",
    status: "playing",
    match: 1,
    seats: [],
    you: [0],
    your_move: yourMove,
    waiting_for: yourMove ? [0] : [1],
    deadline: 1,
    missed: 0,
    updated_at: 1,
  };
}

describe("your games", () => {
  it("announces only games that started waiting for you since the last look", () => {
    const list = [game("AAAAAA", true), game("BBBBBB", true), game("CCCCCC", false)];
    expect(newlyWaiting(null, list)).toEqual([]); // the first look is no news
    expect(newlyWaiting(new Set(["AAAAAA"]), list)).toEqual(["BBBBBB"]);
    expect(newlyWaiting(new Set(["AAAAAA", "BBBBBB"]), list)).toEqual([]);
  });

  it("counts the games waiting for you in the tab's title", () => {
    expect(tabTitle(0)).toBe("Facedown");
    expect(tabTitle(2)).toBe("(2) Facedown");
  });
});
