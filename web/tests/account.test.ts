import { describe, expect, it } from "vitest";
import { scoreLine, winnerNames } from "../src/lib/account.svelte";
import type { HistoryMatch } from "../src/lib/api";
import { missingKeys } from "../src/lib/i18n";
import { parseRoute, replayHref, routePath } from "../src/lib/router";

const match: HistoryMatch = {
  table_id: "t/1 x",
  code: "ABC234",
  match_no: 2,
  preset: "kivo",
  finished_at: 1_700_000_000,
  seats: [
    { seat: 0, name: "Ann", kind: "human", bot_level: null },
    { seat: 1, name: "Bot", kind: "bot", bot_level: "easy" },
  ],
  scores: [12, 20],
  winners: [0],
  you: [0],
  won: true,
};

describe("accounts", () => {
  it("has a profile route", () => {
    expect(parseRoute("/profile")).toEqual({ page: "profile" });
    expect(routePath({ page: "profile" })).toBe("/profile");
  });

  it("links a match to its replay route, the table id escaped", () => {
    expect(replayHref("abc123", 2)).toBe("#/replay/abc123/2");
    expect(replayHref(match.table_id, match.match_no)).toBe("#/replay/t%2F1%20x/2");
  });

  it("shows each seat's total and the winners by name", () => {
    expect(scoreLine(match)).toBe("Ann 12 · Bot 20");
    expect(winnerNames(match)).toEqual(["Ann"]);
    expect(winnerNames({ ...match, winners: [0, 1] })).toEqual(["Ann", "Bot"]);
    // A bot the server named by its level, in the page's language (a person's name as given).
    const bots = { ...match, seats: [match.seats[0], { ...match.seats[1], name: "Bot (medium)" }], winners: [1] };
    expect(scoreLine(bots, "de")).toBe("Ann 12 · Bot (mittel) 20");
    expect(winnerNames(bots, "de")).toEqual(["Bot (mittel)"]);
    expect(scoreLine(bots, "en")).toBe("Ann 12 · Bot (medium) 20");
  });

  it("has every account text in German too", () => {
    expect(missingKeys("de").filter((k) => k.startsWith("account."))).toEqual([]);
  });
});
