import { describe, expect, it } from "vitest";
import { toError } from "../src/lib/api";
import type { Ruleset, View } from "../src/lib/protocol";
import { parseRoute, routePath } from "../src/lib/router";
import { changedOptions, differingFields, heldFacts, ruleLines, specialLines } from "../src/lib/rules";
import { MemoryStore, loadSeats, parseCode, saveSeat, seatFor } from "../src/lib/session";

describe("session", () => {
  it("reads a code from a code or a link", () => {
    expect(parseCode(" abc234 ")).toBe("ABC234");
    expect(parseCode("http://localhost:8000/t/XYZ789")).toBe("XYZ789");
    expect(parseCode("not a code!")).toBeNull();
  });

  it("keeps one token per table, newest first", () => {
    const store = new MemoryStore();
    saveSeat(store, { code: "AAA", token: "t1", name: "Ann", preset: "boyo", at: 1 });
    saveSeat(store, { code: "BBB", token: "t2", name: "Ann", preset: "cabo", at: 2 });
    saveSeat(store, { code: "AAA", token: "t3", name: "Ann", preset: "boyo", at: 3 });
    expect(loadSeats(store).map((s) => s.code)).toEqual(["AAA", "BBB"]);
    expect(seatFor(store, "aaa")?.token).toBe("t3");
  });
});

describe("router", () => {
  it("parses and prints the client's routes", () => {
    expect(parseRoute("/t/abc234")).toEqual({ page: "table", code: "ABC234" });
    expect(parseRoute("/howto/Kaboom")).toEqual({ page: "howto", preset: "kaboom" });
    expect(parseRoute("/new")).toEqual({ page: "new", preset: null });
    expect(parseRoute("/nowhere")).toEqual({ page: "home" });
    expect(routePath({ page: "table", code: "ABC234" })).toBe("/t/ABC234");
  });
});

describe("api errors", () => {
  it("reads the table's {code, message} from FastAPI's detail", () => {
    const e = toError(409, { detail: { code: "table_full", message: "every seat is taken" } });
    expect([e.code, e.message]).toEqual(["table_full", "every seat is taken"]);
    expect(toError(422, { detail: [{ loc: ["body", "seats"], msg: "too big" }] }).message).toBe("seats: too big");
  });
});

const base: Ruleset = {
  name: "cabo", call_name: "Cabo", deck: "zero_to_thirteen", decks: 1, jokers: false,
  values: { "0": 0, "7": 7 }, powers: { "7": ["peek"], "9": ["spy"] }, power_timing: "discard",
  explicit_end_turn: false, call_at_turn_start: true, call_after_action: false, tap: false,
  tap_penalty_cards: 1, set_replace: true, failed_set: "discard_taken", undo_take_discard: false,
  return_taken_discard: false, hand_size: 4, opening_peek: 2, max_hand: 12, lowest_scores_zero: true,
  lowest_tie_caller_only: true, caller_strictly_lowest: false, caller_lowest_scores_zero: true,
  caller_penalty: 5, caller_multiplier: 1, shoot_the_moon: true, moon_points: 50,
  hundred_rule: "once", hundred_reset: 50, rounds: null, score_limit: 100, sudden_death: false,
  first_player: "round_winner", recollection: false, round_choices: null, round_action_limit: 2000,
};

describe("rules in words", () => {
  it("explains only what differs from the other presets", () => {
    const kivo: Ruleset = { ...base, name: "kivo", call_name: "Kivo", set_replace: false, undo_take_discard: true };
    expect([...differingFields(base, [kivo])].sort()).toEqual(["call_name", "set_replace", "undo_take_discard"]);
    const lines = specialLines("en", base, [kivo]).map((l) => l.text);
    expect(lines).toContain("Replace a set of 2 to 4 equal cards with the one card you hold.");
    expect(lines).toContain("Call Cabo instead of drawing, at the start of your turn.");
    expect(lines.some((l) => l.includes("100"))).toBe(false);
  });

  it("writes every rule, in German too", () => {
    const de = ruleLines("de", base).map((l) => l.text);
    expect(de).toContain("Hat der Ansager nicht die wenigsten Punkte: +5 Punkte.");
    expect(ruleLines("en", base).find((l) => l.fields.includes("powers"))?.text).toBe(
      "Powers of cards drawn from the deck: 7: peek; 9: spy.",
    );
  });

  it("sends only the options the host changed", () => {
    expect(changedOptions(base, { rounds: null, score_limit: 80 })).toEqual({ score_limit: 80 });
  });
});

describe("what the card you hold is worth and gives", () => {
  // The numbers and powers come from the engine (view.held_value, view.held_powers).
  const held = (over: Partial<View>) => ({ held: "KS", held_value: 13, held_powers: ["peek", "spy", "swap"], ...over }) as View;
  it("says the engine's value and powers in words", () => {
    expect(heldFacts("en", held({}))).toBe("worth 13 points · gives peek, spy, swap");
    expect(heldFacts("en", held({ held: "KH", held_value: -2, held_powers: [] }))).toBe("worth -2 points");
    expect(heldFacts("en", held({ held_value: 1, held_powers: [] }))).toBe("worth 1 point");
    expect(heldFacts("de", held({ held_value: 1, held_powers: [] }))).toBe("1 Punkt wert");
  });
  it("says nothing of a card whose face is not yours to see", () => {
    expect(heldFacts("en", held({ held: null, held_value: null, held_powers: [] }))).toBe("");
  });
});
