import { describe, expect, it } from "vitest";
import { cardFace, cardWords, initialLocale, keyUnder, missingKeys, translate } from "../src/lib/i18n";
import { actionLabel, describeEvent, seatNames, type Cast } from "../src/lib/words";

const cast: Cast = { locale: "en", me: 1, names: ["Maya", "Ann", "Sam"], callName: "BOYO" };

describe("i18n", () => {
  it("has every English text in German too", () => {
    expect(missingKeys("de")).toEqual([]);
  });

  it("says plurals by the locale's rules, never with (s)", () => {
    expect(translate("en", "table.final", { name: "Sam", call: "Cabo", n: 1 })).toBe("Sam called Cabo: one final turn left");
    expect(translate("en", "table.final", { name: "Sam", call: "Cabo", n: 3 })).toBe("Sam called Cabo: 3 final turns left");
    expect(translate("de", "table.finalYou", { call: "Kivo", n: 2 })).toBe("Du hast Kivo angesagt: noch 2 letzte Züge");
    expect(translate("de", "table.finalYou", { call: "Kivo", n: 1 })).toBe("Du hast Kivo angesagt: noch ein letzter Zug");
    for (const locale of ["en", "de"] as const) {
      for (const key of ["rule.length.rounds", "rule.tap.true", "rule.deck.standard", "table.final"] as const) {
        for (const n of [0, 1, 2, 5]) {
          const text = translate(locale, key, { n, decks: n, limit: 100, name: "A", call: "C", jokers: "" });
          expect(text).not.toMatch(/\(s\)|\(n\)|\(en\)|\(r\)|plural|#/);
        }
      }
    }
  });

  it("fills placeholders and falls back to the key", () => {
    expect(translate("en", "table.theirTurn", { name: "Sam" })).toBe("Sam's turn");
    expect(translate("de", "table.theirTurn", { name: "Sam" })).toBe("Sam ist dran");
    // The type rejects a key the catalog lacks; one built at run time (keyUnder) reads as itself.
    // @ts-expect-error -- not a text key
    expect(translate("de", "no.such.key")).toBe("no.such.key");
    expect(translate("de", keyUnder("level.", "nonesuch"))).toBe("level.nonesuch");
  });

  it("starts in the saved language, else the browser's", () => {
    expect(initialLocale("de", ["en-US"])).toBe("de");
    expect(initialLocale(null, ["de-AT", "en"])).toBe("de");
    expect(initialLocale(null, ["fr"])).toBe("en");
  });

  it("names cards for the eye and for screen readers", () => {
    expect(cardFace("10C")).toBe("10♣");
    expect(cardFace("12")).toBe("12");
    expect(cardWords("en", "KH")).toBe("King of hearts");
    expect(cardWords("de", "QS")).toBe("Pik-Dame");
    expect(cardWords("en", "JK")).toBe("Joker");
    // Written out, never the star that marks the caller.
    expect(cardFace("JK")).toBe("Joker");
    // A court card's letter as the rules of each language name it (German: Bube, Dame, König).
    expect(cardFace("JC", "en")).toBe("J♣");
    expect(cardFace("JC", "de")).toBe("B♣");
    expect(cardFace("QH", "de")).toBe("D♥");
    expect(cardFace("KS", "de")).toBe("K♠");
    expect(cardFace("AD", "de")).toBe("A♦");
    expect(cardFace("10D", "de")).toBe("10♦");
  });
});

describe("describeEvent", () => {
  it("says what others did in words", () => {
    expect(describeEvent(cast, { type: "drew", by: 0 })).toBe("Maya drew");
    expect(describeEvent(cast, { type: "swapped", by: 0, slots: [2], target: 1, target_slot: 1 })).toBe(
      "Maya swapped their card 3 with your card 2",
    );
    expect(describeEvent(cast, { type: "tap_hit", by: 2, slots: [0], cards: ["7S"] })).toBe("Sam tapped a 7♠: hit");
    expect(describeEvent(cast, { type: "tap_hit", by: 2, slots: [0], cards: ["7S"] }, true)).toBe(
      "Sam tapped a 7 of spades: hit",
    );
    expect(describeEvent(cast, { type: "tap_missed", by: 2, slots: [0], cards: ["7"] })).toBe(
      "Sam tapped a 7: miss, penalty card",
    );
    expect(describeEvent(cast, { type: "called", by: 2 })).toBe("Sam called BOYO!");
  });

  it("keeps no card you were shown in the log: remembering is the game", () => {
    expect(describeEvent(cast, { type: "drew", by: 1, seen: ["QH"] })).toBe("You drew a card");
    expect(describeEvent(cast, { type: "spied", by: 1, target: 2, target_slot: 3, seen: ["4C"] })).toBe(
      "You spied on Sam's card 4",
    );
    expect(describeEvent(cast, { type: "opening_peeked", by: 1, slots: [0, 1], seen: ["2", "9"] })).toBe(
      "You looked at your cards 1, 2",
    );
    expect(describeEvent(cast, { type: "peeked", by: 1, slots: [2], seen: ["7H"] }, true)).toBe(
      "You peeked at your card 3",
    );
    expect(describeEvent(cast, { type: "opening_peeked", by: 0, slots: [0, 1] })).toBe("Maya looked at two cards");
  });

  it("tells you what you saw, and only you, where the table has Recollection", () => {
    const recalled: Cast = { ...cast, recollection: true };
    expect(describeEvent(recalled, { type: "drew", by: 1, seen: ["QH"] })).toBe("You drew Q♥");
    expect(describeEvent(recalled, { type: "spied", by: 1, target: 2, target_slot: 3, seen: ["4C"] })).toBe(
      "You spied on Sam's card 4: 4♣",
    );
  });

  it("speaks German", () => {
    const de: Cast = { ...cast, locale: "de", callName: "KABOOM" };
    expect(describeEvent(de, { type: "drew", by: 0 })).toBe("Maya zieht eine Karte");
    expect(describeEvent(de, { type: "called", by: 1 })).toBe("Du sagst KABOOM an!");
    expect(describeEvent(de, { type: "discarded", by: 0, cards: ["QH"] })).toBe("Maya wirft D♥ ab");
  });

  it("names sets and failed sets", () => {
    expect(describeEvent(cast, { type: "replaced", by: 0, slots: [0, 2], cards: ["5", "5"] })).toBe(
      "Maya replaced the set 1, 3 with one card: 5, 5 to the pile",
    );
    expect(describeEvent(cast, { type: "set_failed", by: 1, slots: [0, 1], cards: ["5", "6"] })).toBe(
      "Your set 1, 2 failed: 5, 6 do not match",
    );
  });
});

describe("labels", () => {
  it("names the call button after the preset's call", () => {
    expect(actionLabel({ ...cast, callName: "Cabo" }, { do: "call" })).toBe("Cabo");
    expect(actionLabel(cast, { do: "end_turn" })).toBe("END TURN");
    expect(actionLabel({ ...cast, locale: "de" }, { do: "draw" })).toBe("Ziehen");
  });

  it("tells apart seats of the same name", () => {
    expect(seatNames(["Ann", "Bot (easy)", "Bot (easy)"])).toEqual(["Ann", "Bot (easy) 2", "Bot (easy) 3"]);
  });
});
