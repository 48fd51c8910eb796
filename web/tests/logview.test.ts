import { describe, expect, it } from "vitest";
import { RECENT_MOVES, shownLines } from "../src/lib/logview";

// Lines as the game screen makes them: a move (seq) may tell more than one line.
const lines = [1, 2, 2, 3, 4, 5, 5, 5, 6, 7].map((seq, i) => ({ seq, text: `line ${i}` }));

describe("what the log shows", () => {
  it("keeps every line with Recollection", () => {
    expect(shownLines(lines, true)).toEqual(lines);
  });

  it("keeps the lines of the last moves only without it, each move whole", () => {
    const shown = shownLines(lines, false);
    expect(new Set(shown.map((l) => l.seq))).toEqual(new Set([4, 5, 6, 7]));
    expect(shown).toEqual(lines.slice(4));
    expect(shownLines(lines, false, 2)).toEqual(lines.slice(8));
    expect(shownLines(lines, false, 3).map((l) => l.seq)).toEqual([5, 5, 5, 6, 7]);
  });

  it("shows a short log whole, and nothing of an empty one", () => {
    expect(shownLines(lines.slice(0, 3), false)).toEqual(lines.slice(0, 3));
    expect(shownLines([], false)).toEqual([]);
  });

  it("shows a few moves, not a round", () => {
    expect(RECENT_MOVES).toBeGreaterThan(0);
    expect(RECENT_MOVES).toBeLessThanOrEqual(6);
  });
});
