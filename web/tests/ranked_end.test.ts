import { describe, expect, it } from "vitest";
import { agentName, parseAgent } from "../src/lib/agent";
import { isRanked, nameList, ratingChange, suddenDeath, tiedForLowest, watchesSuddenDeath } from "../src/lib/ranked";
import { describeEvent, nameLabel, resultLine } from "../src/lib/words";

const RANKED = { rounds: 3, sudden_death: true };

describe("sudden death", () => {
  it("finds the seats tied for the lowest total", () => {
    expect(tiedForLowest([12, 12, 30])).toEqual([0, 1]);
    expect(tiedForLowest([30, 12, 40, 12])).toEqual([1, 3]);
    expect(tiedForLowest([10, 12])).toEqual([]);
    expect(tiedForLowest([12, 12, 10])).toEqual([]); // a tie above the lowest decides nothing
  });

  it("is announced after the fixed rounds when the lowest totals are tied", () => {
    const tied = { round: 3, phase: "round_over", totals: [20, 14, 14] };
    expect(suddenDeath(tied, RANKED)).toEqual({ when: "next", seats: [1, 2], total: 14 });
    expect(suddenDeath({ ...tied, round: 2 }, RANKED)).toBeNull(); // rounds are left to play
    expect(suddenDeath({ ...tied, totals: [20, 14, 13] }, RANKED)).toBeNull();
    expect(suddenDeath(tied, { rounds: 3, sudden_death: false })).toBeNull();
    expect(suddenDeath(tied, { rounds: null, sudden_death: true })).toBeNull();
  });

  it("names the seats the server says play the round (the others watch)", () => {
    const playing = { round: 4, phase: "turn_start", totals: [14, 20, 14], sudden_death: [0, 2] };
    const sudden = suddenDeath(playing, RANKED);
    expect(sudden).toEqual({ when: "playing", seats: [0, 2], total: 14 });
    expect(watchesSuddenDeath(sudden, 1)).toBe(true); // seat 1 is not in the tie
    expect(watchesSuddenDeath(sudden, 0)).toBe(false);
    expect(watchesSuddenDeath(sudden, null)).toBe(false);
    expect(watchesSuddenDeath(suddenDeath({ ...playing, round: 3, phase: "round_over" }, RANKED), 1)).toBe(false);
  });

  it("is said during the round that decides, and no more once it is over", () => {
    const playing = { round: 4, phase: "turn_start", totals: [14, 14] };
    expect(suddenDeath(playing, RANKED)).toEqual({ when: "playing", seats: [0, 1], total: 14 });
    expect(suddenDeath({ ...playing, phase: "opening" }, RANKED)?.when).toBe("playing");
    expect(suddenDeath({ ...playing, phase: "match_over" }, RANKED)).toBeNull();
    expect(suddenDeath({ ...playing, phase: "round_over", totals: [14, 20] }, RANKED)).toBeNull();
  });

  it("knows a ranked table and writes names and changes as people read them", () => {
    expect(isRanked({ mode: "ranked" })).toBe(true);
    expect(isRanked({ mode: "turn_based" })).toBe(false);
    expect(isRanked(undefined)).toBe(false);
    expect(nameList("en", ["Ann", "Bob", "Cleo"])).toBe("Ann, Bob, and Cleo");
    expect(nameList("de", ["Ann", "Bob", "Cleo"])).toBe("Ann, Bob und Cleo");
    expect(ratingChange(1000, 1012)).toBe("+12");
    expect(ratingChange(1012, 1000)).toBe("\u221212");
    expect(ratingChange(1000, 1000)).toBe("\u00b10");
  });
});

describe("user agents", () => {
  const agents: [string, string][] = [
    ["Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36", "Chrome on Android"],
    ["Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0", "Firefox on Linux"],
    ["Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/120.0.6099.224 Safari/537.36", "Chrome on Linux"],
    ["Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1", "Safari on iOS"],
    ["Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/126.0.6478.54 Mobile/15E148 Safari/604.1", "Chrome on iOS"],
    ["Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15", "Safari on macOS"],
    ["Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Edg/126.0.0.0", "Edge on Windows"],
    ["Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 OPR/111.0.0.0", "Opera on Windows"],
    ["Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/25.0 Chrome/121.0.0.0 Mobile Safari/537.36", "Samsung Internet on Android"],
    ["Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36", "Chrome on ChromeOS"],
  ];

  it.each(agents)("names %s", (agent, name) => {
    expect(agentName("en", agent)).toBe(name);
  });

  it("says it in German, and leaves what it cannot read unnamed", () => {
    expect(agentName("de", agents[1][0])).toBe("Firefox unter Linux");
    expect(agentName("en", "python-httpx/0.27.0")).toBe("");
    expect(agentName("en", "")).toBe("");
    expect(parseAgent("SomeBrowser/1 (X11; Linux x86_64)")).toEqual({ browser: null, system: "Linux" });
    expect(agentName("en", "SomeBrowser/1 (X11; Linux x86_64)")).toBe("another browser on Linux");
  });
});

describe("replay names", () => {
  it("translates the server's bot names, and no one else's", () => {
    expect(nameLabel("de", "Bot (easy)")).toBe("Bot (leicht)");
    expect(nameLabel("en", "Bot (hard)")).toBe("Bot (hard)");
    expect(nameLabel("de", "Bot (nonsense)")).toBe("Bot (nonsense)");
    expect(nameLabel("de", "Anna")).toBe("Anna");
  });
});

describe("the log's public part", () => {
  it("says your own look without a card when the event names none (a page loaded afresh)", () => {
    const cast = { locale: "en" as const, me: 0, names: ["Ann", "Bob"], callName: "Cabo", recollection: true };
    expect(describeEvent(cast, { type: "opening_peeked", by: 0, slots: [0, 1] })).toBe("You looked at your cards 1, 2");
    expect(describeEvent(cast, { type: "drew", by: 0 })).toBe("You drew a card");
    expect(describeEvent(cast, { type: "round_over", result: { round: 2, hands: [], hand_totals: [], round_scores: [], totals: [], caller: null, reasons: [] } })).toBe("Round 2 is over");
    // Live, at a Recollection table, the card is named.
    expect(describeEvent(cast, { type: "drew", by: 0, seen: ["7S"] })).toBe("You drew 7\u2660");
  });
});

describe("the result line", () => {
  const cast = { locale: "en" as const, me: 1, names: ["Ann", "Bob", "Cleo"], callName: "Cabo" };
  it("reads a shared first place as a draw, never as winners", () => {
    expect(resultLine(cast, [1, 2])).toBe("A draw: you share first place with Cleo.");
    expect(resultLine(cast, [0, 2])).toBe("A draw: Ann and Cleo share first place.");
    expect(resultLine({ ...cast, me: null }, [0, 1, 2])).toBe("A draw: Ann, Bob, and Cleo share first place.");
    expect(resultLine({ ...cast, locale: "de" }, [0, 2])).toBe("Unentschieden: Ann und Cleo teilen sich den ersten Platz.");
    expect(resultLine(cast, [1])).toBe("You win!");
    expect(resultLine(cast, [2])).toBe("Winner: Cleo");
  });
});
