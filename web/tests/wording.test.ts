import { describe, expect, it } from "vitest";
import { de } from "../src/lib/i18n_de";
import { en } from "../src/lib/i18n_en";
import type { Ruleset, SeatInfo } from "../src/lib/protocol";
import { ruleLines } from "../src/lib/rules";
import { describeEvent, seatLabel, seatLevel, type Cast } from "../src/lib/words";

// A ruleset like Boyo's: the standard deck with Jokers, TAP, no Harakiri, no 100 rule.
const boyo: Ruleset = {
  name: "boyo", call_name: "BOYO", deck: "standard", decks: 1, jokers: true,
  values: { A: 1, "7": 7, J: 11, Q: 12, K: 13, KH: -2, KD: -2, JK: -1 },
  powers: { "7": ["peek"], J: ["swap"], Q: ["swap"], KS: ["peek", "spy", "swap"] }, power_timing: "holding",
  explicit_end_turn: true, call_at_turn_start: true, call_after_action: true, tap: true,
  tap_penalty_cards: 1, set_replace: false, failed_set: "discard_taken", undo_take_discard: false,
  return_taken_discard: false, hand_size: 4, opening_peek: 2, max_hand: 12, lowest_scores_zero: false,
  lowest_tie_caller_only: false, caller_strictly_lowest: false, caller_lowest_scores_zero: false,
  caller_penalty: 0, caller_multiplier: 1, shoot_the_moon: false, moon_points: 50,
  hundred_rule: "none", hundred_reset: 50, rounds: 3, score_limit: null, sudden_death: false,
  first_player: "rotate", recollection: false, round_choices: null, round_action_limit: 2000,
};

describe("the message catalogues", () => {
  // Plurals come from the ICU plural rules ({n, plural, ...}), never "card(s)" or "Karte(n)".
  for (const [locale, catalogue] of [["en", en], ["de", de]] as const) {
    it(`has no hand-made plural in ${locale}`, () => {
      const made = Object.entries(catalogue).filter(([, text]) => /\w\((s|n|e|en|er|es)\)/i.test(text));
      expect(made).toEqual([]);
    });
  }
});

describe("German wording", () => {
  const cast: Cast = { locale: "de", me: 0, names: ["Ann", "Maya"], callName: "BOYO" };

  it("says 'Du beginnst' when you start", () => {
    expect(describeEvent(cast, { type: "play_started", by: 0 })).toBe("Los geht's: Du beginnst");
    expect(describeEvent(cast, { type: "play_started", by: 1 })).toBe("Los geht's: Maya beginnt");
    expect(describeEvent({ ...cast, locale: "en" }, { type: "play_started", by: 0 })).toBe("Play starts: You first");
  });

  it("names bots in the player's language, and people as they are", () => {
    const bot: SeatInfo = { seat: 1, kind: "bot", name: "Bot (easy)", level: "easy", connected: true, bot_standin: false };
    expect(seatLabel("de", bot)).toBe("Bot (leicht)");
    expect(seatLabel("de", { ...bot, level: "expert", name: "Bot (expert)" })).toBe("Bot (Experte)");
    expect(seatLabel("en", bot)).toBe("Bot (easy)");
    expect(seatLabel("de", { ...bot, kind: "human", name: "Bot (easy)", level: null })).toBe("Bot (easy)");
  });

  it("names each power one way on every screen: the button, the card list, the explanation", () => {
    for (const [locale, catalogue] of [["de", de], ["en", en]] as const) {
      for (const power of ["peek", "spy", "swap"]) {
        const name = catalogue[`power.${power}` as keyof typeof catalogue];
        expect(catalogue[`act.${power}` as keyof typeof catalogue].toLowerCase(), locale).toBe(name.toLowerCase());
        expect(catalogue[`power.${power}.what` as keyof typeof catalogue].toLowerCase(), locale).toMatch(
          new RegExp(`^${name.toLowerCase()}: `),
        );
      }
    }
    // One word for them in German: Aktion (the Kaboom text's "Kartenaktion"), not Fähigkeit;
    // and "Ersetzen" for a replace, as its button says, so "Tauschen" is the swap alone.
    const german = Object.values(de).join("\n");
    expect(german).not.toMatch(/Fähigkeit|View|Sneak|Switch/);
    expect(german).not.toMatch(/nach dem Tauschen|danach tauschen/);
  });

  it("says a bot's level once in the lobby: in its name, or beside a name that does not say it", () => {
    const bot: SeatInfo = { seat: 1, kind: "bot", name: "Bot (easy)", level: "easy", connected: true, bot_standin: false };
    expect(seatLevel("de", bot)).toBe("");
    expect(seatLevel("de", { ...bot, name: "Robo" })).toBe("Leicht");
    expect(seatLevel("en", { ...bot, kind: "human", level: null })).toBe("");
  });

  it("has no Harakiri line on a game without it, and one letter for the Jack and Queen", () => {
    const lines = ruleLines("de", boyo).map((l) => l.text);
    expect(lines.some((l) => l.includes("Harakiri"))).toBe(false);
    const values = lines.find((l) => l.startsWith("Werte"))!;
    const powers = lines.find((l) => l.startsWith("Aktionen gezogener Karten"))!;
    expect(values).toContain("B 11, D 12");
    expect(powers).toContain("B, D: Tauschen");
    expect(powers).toContain("K♠");
    expect(`${values} ${powers}`).not.toMatch(/\b[JQ]\b/);
  });

  it("says what a rule is, not that it is missing", () => {
    for (const locale of ["en", "de"] as const) {
      const all = ruleLines(locale, { ...boyo, deck: "zero_to_thirteen" }).map((l) => l.text);
      expect(all.filter((l) => /^(No |Kein|Keine) /.test(l) && /moon|100|Harakiri/.test(l))).toEqual([]);
    }
  });
});
