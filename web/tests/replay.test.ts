import { describe, expect, it } from "vitest";
import { faceAt, PAGE, roundAt, StepCache } from "../src/lib/replay";
import { parseReplay, parseRoute, routePath } from "../src/lib/router";
import type { ReplayStep, View } from "../src/lib/wire";

function step(n: number, extra: Partial<ReplayStep> = {}): ReplayStep {
  const view = { shown: {}, knowledge: null } as unknown as View;
  return { step: n, round: 1, action: null, text: null, seat: null, view, events: [], ...extra };
}

describe("replay routes", () => {
  it("reads a match and a share key from the fragment, and writes them back", () => {
    expect(parseRoute("/", "#/replay/ab12/3")).toEqual({ page: "replay", table: "ab12", match: 3 });
    expect(parseRoute("/profile", "#/replay/shared/k.e-y_1")).toEqual({ page: "shared", key: "k.e-y_1" });
    expect(routePath({ page: "replay", table: "ab12", match: 3 })).toBe("/#/replay/ab12/3");
    expect(routePath({ page: "shared", key: "abc" })).toBe("/#/replay/shared/abc");
    for (const bad of ["#/replay/ab12/0", "#/replay/a-b/1", "#/replay/ab12", "#/replay/shared/a b", "#seat=x"]) {
      expect(parseReplay(bad)).toBeNull();
    }
    expect(parseRoute("/t/abc234", "#seat=tok")).toEqual({ page: "table", code: "ABC234" });
  });
});

describe("the step cache", () => {
  it("fetches a page once per viewpoint and answers from it going back and forth", async () => {
    const asked: string[] = [];
    const cache = new StepCache(async (seat, start, count, knowledge) => {
      asked.push(`${seat}:${start}:${count}:${knowledge}`);
      return Array.from({ length: count }, (_, i) => step(start + i, { seat }));
    });
    expect((await cache.get(null, 3)).step).toBe(3);
    expect((await cache.get(null, PAGE + 1)).step).toBe(PAGE + 1);
    expect((await cache.get(null, 2)).step).toBe(2);
    expect((await cache.get(1, 2)).seat).toBe(1);
    expect((await cache.get(1, 2, true)).seat).toBe(1);
    expect((await cache.get(null, 2, true)).seat).toBeNull(); // face up: knowledge means nothing
    expect(asked).toEqual([`null:0:${PAGE}:false`, `null:${PAGE}:${PAGE}:false`, `1:0:${PAGE}:false`, `1:0:${PAGE}:true`]);
  });

  it("asks again for a page that failed", async () => {
    let fail = true;
    const cache = new StepCache(async (_seat, start) => {
      if (fail) throw new Error("offline");
      return [step(start)];
    });
    await expect(cache.get(null, 0)).rejects.toThrow("offline");
    fail = false;
    expect((await cache.get(null, 0)).step).toBe(0);
  });
});

describe("what a replayed card shows", () => {
  it("face up: the hand; a seat's eyes: what it was shown or knew", () => {
    expect(faceAt(step(0, { hands: [["7", null]] }), 0, 0)).toBe("7");
    expect(faceAt(step(0, { hands: [["7", null]] }), 0, 1)).toBeNull();
    const seen = step(0, { seat: 0, view: { shown: { "0:1": "K" }, knowledge: { "1:0": "3" } } as unknown as View });
    expect(faceAt(seen, 0, 1)).toBe("K");
    expect(faceAt(seen, 1, 0)).toBe("3");
    expect(faceAt(seen, 1, 1)).toBeNull();
    expect(roundAt([{ round: 1, step: 0 }, { round: 2, step: 40 }], 39)).toBe(1);
    expect(roundAt([{ round: 1, step: 0 }, { round: 2, step: 40 }], 40)).toBe(2);
  });
});
