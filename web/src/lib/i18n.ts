// Every text the player reads, in English and German.  ``translate`` falls back to English,
// then to the key itself, so a missing German text shows up as English, never as nothing.

import { de } from "./i18n_de";
import { en, type TextKey } from "./i18n_en";

export type { TextKey };
export type Locale = "en" | "de";
export const LOCALES: Locale[] = ["en", "de"];
export type Params = Record<string, string | number>;

const catalogs: Record<Locale, Record<TextKey, string>> = { en, de };

/** The keys that start with ``P``: ``KeyUnder<"level.">`` is "level.easy" | "level.hard" | ... */
export type KeyUnder<P extends string> = Extract<TextKey, `${P}${string}`>;

/** A key put together at run time from a fixed prefix and a name that is only known then (a
 *  power, a code the server sends).  The prefix is checked by the type: it must begin at least
 *  one key (a misspelt prefix fails the build).  The name is not (it is a string from the wire);
 *  a key without a text reads as itself (``translate``), as it always did.  Where the name has
 *  a type of its own (a union), build the key with a template string instead: the type checks it
 *  whole. */
export function keyUnder<P extends string>(
  prefix: P & ([KeyUnder<P>] extends [never] ? never : unknown),
  name: string | number,
  suffix = "",
): KeyUnder<P> {
  return `${prefix}${name}${suffix}` as KeyUnder<P>;
}

/** The text for ``key`` in ``locale`` with ``{name}`` placeholders filled from ``params``. */
// ICU-style plurals in a text: "{n, plural, one {# card} other {# cards}}", chosen by the
// locale's plural rules (Intl.PluralRules); # stands for the number.
const PLURAL = /\{(\w+), plural,((?:\s*(?:=\d+|zero|one|two|few|many|other)\s*\{[^{}]*\})+)\s*\}/g;
const PLURAL_CASE = /(=\d+|zero|one|two|few|many|other)\s*\{([^{}]*)\}/g;

function plurals(locale: Locale, text: string, params: Params): string {
  return text.replace(PLURAL, (whole, name: string, cases: string) => {
    if (!(name in params)) return whole;
    const value = Number(params[name]);
    const forms = new Map<string, string>();
    for (const [, key, form] of cases.matchAll(PLURAL_CASE)) forms.set(key, form);
    const form =
      forms.get(`=${value}`) ?? forms.get(new Intl.PluralRules(locale).select(value)) ?? forms.get("other") ?? "";
    return form.replace(/#/g, String(value));
  });
}

export function translate(locale: Locale, key: TextKey, params: Params = {}): string {
  // A key built at run time (keyUnder) may have no text: it reads as itself.
  const text = plurals(locale, catalogs[locale][key] ?? catalogs.en[key] ?? key, params);
  return text.replace(/\{(\w+)\}/g, (whole, name: string) =>
    name in params ? String(params[name]) : whole,
  );
}

/** Whether ``key`` has a text (in English, the reference catalog). */
export function hasText(key: string): key is TextKey {
  return key in catalogs.en;
}

/** The keys one catalog has and the other lacks (a unit test keeps this empty). */
export function missingKeys(locale: Locale): string[] {
  return Object.keys(catalogs.en).filter((k) => !(k in catalogs[locale]));
}

/** The locale to start with: a saved choice, else the browser's language. */
export function initialLocale(saved: string | null, languages: readonly string[]): Locale {
  if (saved === "en" || saved === "de") return saved;
  for (const lang of languages) {
    const base = lang.toLowerCase().split("-")[0];
    if (base === "de" || base === "en") return base;
  }
  return "en";
}

const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" } as const;

/** Whether a card name's last letter is a suit (its key, `suit.${suit}`, is then a text key). */
function isSuit(letter: string): letter is keyof typeof SUITS {
  return letter in SUITS;
}

/** The Joker's name on the card and in the log (the same word in English and German). */
export const JOKER = "JK";

/** A card's short face: "7♥", "10♣", "K♦", "Joker" ("JK"), "12" (0-13 deck).  The Joker is
 *  written out: a star is the caller's mark on the table.  A court card's letter is the
 *  locale's, as the rules name it: "J♣" in English, "B♣" (Bube) in German. */
export function cardFace(name: string, locale: Locale = "en"): string {
  if (name === JOKER) return "Joker";
  const suit = name.slice(-1);
  if (name.length > 1 && isSuit(suit)) {
    const rank = name.slice(0, -1);
    const key = `rank.short.${rank}`;
    return (hasText(key) ? translate(locale, key) : rank) + SUITS[suit];
  }
  return name;
}

/** Whether a card name is red (hearts, diamonds). */
export function isRed(name: string): boolean {
  return name.endsWith("H") || name.endsWith("D");
}

/** A card's name in words, for screen readers and the log: "7 of hearts", "Herz 7". */
export function cardWords(locale: Locale, name: string): string {
  if (name === "JK") return translate(locale, "card.joker");
  const suit = name.slice(-1);
  if (name.length > 1 && isSuit(suit)) {
    const rank = name.slice(0, -1);
    const rankKey = `rank.${rank}`;
    const rankWord = hasText(rankKey) ? translate(locale, rankKey) : rank;
    return translate(locale, "card.suited", { rank: rankWord, suit: translate(locale, `suit.${suit}`) });
  }
  return name;
}
