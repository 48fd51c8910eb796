import { describe, expect, it } from "vitest";
import { translate } from "../src/lib/i18n";
import { forfeitKey, formatWait, parseQueue, queueName } from "../src/lib/ranked";
import { parseRoute, routePath } from "../src/lib/router";

describe("ranked", () => {
  it("names queues and reads them back", () => {
    expect(queueName("cabo", 4)).toBe("cabo-4");
    expect(parseQueue("cabo-4")).toEqual({ preset: "cabo", players: 4 });
    expect(parseQueue("cabo")).toBeNull();
    expect(parseQueue("../x-2")).toBeNull();
  });

  it("says how long a wait is", () => {
    expect(formatWait("en", 8.4)).toBe("8 s");
    expect(formatWait("en", 125)).toBe("2 min 5 s");
    expect(formatWait("de", 3780)).toBe("1 Std. 3 Min.");
    expect(formatWait("en", -3)).toBe("0 s");
  });

  it("has routes for the queue and the leaderboards", () => {
    expect(parseRoute("/ranked")).toEqual({ page: "ranked" });
    expect(parseRoute("/ranked/leaderboard/kivo-2")).toEqual({ page: "leaderboard", queue: "kivo-2" });
    expect(parseRoute("/ranked/leaderboard/<script>")).toEqual({ page: "ranked" });
    expect(routePath({ page: "leaderboard", queue: "boyo-4" })).toBe("/ranked/leaderboard/boyo-4");
    expect(routePath({ page: "ranked" })).toBe("/ranked");
  });

  it("tells a forfeited player why, by the table's mode", () => {
    expect(translate("en", forfeitKey({ mode: "ranked" }))).toContain("grace period");
    expect(translate("en", forfeitKey({ mode: "turn_based" }))).toContain("Three missed deadlines");
    expect(translate("de", forfeitKey({ mode: "ranked" }))).toContain("Schonfrist");
    expect(translate("en", forfeitKey(null))).toContain("Three missed deadlines");
  });
});
