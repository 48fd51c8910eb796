// Rules in words, from the ruleset fields the server sends (GET /api/presets): the host's
// "what is special" lines and the "how to play" pages.  Words only; no rule is decided here.

import { hasText, keyUnder, translate, type Locale, type TextKey } from "./i18n";
import type { Ruleset, View } from "./protocol";

export interface RuleLine {
  /** The ruleset field(s) this line explains. */
  fields: (keyof Ruleset)[];
  text: string;
}

/** The cards by the powers they give, in the ruleset's order: [["7, 8", ["peek"]], ...]. */
export function powerGroups(locale: Locale, rules: Ruleset): { cards: string; powers: string[] }[] {
  const groups = new Map<string, { cards: string[]; powers: string[] }>();
  for (const [card, powers] of Object.entries(rules.powers)) {
    if (!powers.length) continue;
    const key = powers.join("+");
    const group = groups.get(key) ?? { cards: [], powers };
    group.cards.push(cardLabel(locale, card));
    groups.set(key, group);
  }
  return [...groups.values()].map((g) => ({ cards: g.cards.join(", "), powers: g.powers }));
}

function powerList(locale: Locale, rules: Ruleset): string {
  // Group the cards by the powers they give: "7, 8: peek; 9, 10: spy; ...".
  return powerGroups(locale, rules)
    .map((g) => {
      const powers = g.powers.map((p) => translate(locale, keyUnder("power.", p))).join(" + ");
      return translate(locale, "power.list", { cards: g.cards, powers });
    })
    .join("; ");
}

/** A rank or card as the rules lines name it, in the reader's letters (German: B for Bube,
 *  D for Dame), as the values line does: "J" and "B 11" never meet in one list. */
function cardLabel(locale: Locale, card: string): string {
  const suits: Record<string, string> = { S: "♠", H: "♥", D: "♦", C: "♣" };
  const last = card.slice(-1);
  const suited = card.length > 1 && last in suits && !/^\d+$/.test(card);
  const rank = suited ? card.slice(0, -1) : card;
  const key = `rank.short.${rank}`;
  const letter = hasText(key) ? translate(locale, key) : rank;
  return suited ? letter + suits[last] : letter;
}

/** The rules that read as a line when on and another when off: both keys have a text. */
type OnOffRule = {
  [F in keyof Ruleset]: `rule.${F}.true` | `rule.${F}.false` extends TextKey ? F : never;
}[keyof Ruleset];

function bool(locale: Locale, field: OnOffRule, value: boolean, params = {}): string {
  return translate(locale, `rule.${field}.${value}`, params);
}

/** Every rule of a ruleset as one line each, in the order a player needs them. */
export function ruleLines(locale: Locale, r: Ruleset): RuleLine[] {
  const t = (key: TextKey, params = {}) => translate(locale, key, params);
  const lines: RuleLine[] = [];
  const add = (fields: (keyof Ruleset)[], text: string) => {
    if (text) lines.push({ fields, text });
  };
  if (r.deck === "standard") {
    add(
      ["deck", "decks", "jokers"],
      t("rule.deck.standard", { decks: r.decks, jokers: r.jokers ? t("rule.deck.standard.jokers") : "" }),
    );
  } else {
    add(["deck"], t("rule.deck.zero_to_thirteen"));
  }
  const faceValues = Object.entries(r.values).every(([k, v]) => String(v) === k);
  add(["values"], faceValues ? t("rule.values.face") : t("rule.values.standard"));
  add(["hand_size", "opening_peek"], t("rule.opening_peek", { n: r.opening_peek, hand: r.hand_size }));
  add(["powers"], t("rule.powers", { list: powerList(locale, r) }));
  add(["power_timing"], t(`rule.power_timing.${r.power_timing}`));
  add(["explicit_end_turn"], bool(locale, "explicit_end_turn", r.explicit_end_turn));
  const when = r.call_at_turn_start && r.call_after_action ? "start_after" : r.call_at_turn_start ? "start" : "after";
  add(["call_name", "call_at_turn_start", "call_after_action"], t(`rule.call.${when}`, { call: r.call_name }));
  add(["tap", "tap_penalty_cards"], bool(locale, "tap", r.tap, { n: r.tap_penalty_cards }));
  add(["set_replace"], bool(locale, "set_replace", r.set_replace));
  if (r.set_replace) add(["failed_set"], t(`rule.failed_set.${r.failed_set}`));
  add(["undo_take_discard"], bool(locale, "undo_take_discard", r.undo_take_discard));
  add(["lowest_scores_zero"], bool(locale, "lowest_scores_zero", r.lowest_scores_zero));
  if (r.lowest_scores_zero && r.lowest_tie_caller_only) {
    add(["lowest_tie_caller_only"], t("rule.lowest_tie_caller_only.true"));
  }
  add(["caller_strictly_lowest"], bool(locale, "caller_strictly_lowest", r.caller_strictly_lowest));
  if (r.caller_lowest_scores_zero) add(["caller_lowest_scores_zero"], t("rule.caller_lowest_scores_zero.true"));
  if (r.caller_multiplier !== 1) add(["caller_multiplier"], t("rule.caller_multiplier", { n: r.caller_multiplier }));
  if (r.caller_penalty) add(["caller_penalty"], t("rule.caller_penalty", { n: r.caller_penalty }));
  if (r.caller_multiplier === 1 && !r.caller_penalty) {
    add(["caller_penalty", "caller_multiplier"], t("rule.caller_none"));
  }
  // Two 12s and two 13s exist only in the 0-13 deck: elsewhere the line would mean nothing.
  if (r.shoot_the_moon || r.deck === "zero_to_thirteen") {
    add(["shoot_the_moon", "moon_points"], bool(locale, "shoot_the_moon", r.shoot_the_moon, { n: r.moon_points }));
  }
  add(["hundred_rule", "hundred_reset"], t(`rule.hundred_rule.${r.hundred_rule}`, { n: r.hundred_reset }));
  if (r.rounds !== null && r.score_limit !== null) {
    add(["rounds", "score_limit"], t("rule.length.both", { n: r.rounds, limit: r.score_limit }));
  } else if (r.rounds !== null) {
    add(["rounds", "score_limit"], t("rule.length.rounds", { n: r.rounds }));
  } else {
    add(["rounds", "score_limit"], t("rule.length.limit", { n: r.score_limit ?? 0 }));
  }
  if (r.sudden_death) add(["sudden_death"], t("rule.sudden_death.true"));
  add(["first_player"], t(`rule.first_player.${r.first_player}`));
  add(["recollection"], bool(locale, "recollection", r.recollection));
  return lines;
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The fields in which ``rules`` differs from at least one of the ``others``. */
export function differingFields(rules: Ruleset, others: Ruleset[]): Set<keyof Ruleset> {
  const out = new Set<keyof Ruleset>();
  for (const key of Object.keys(rules) as (keyof Ruleset)[]) {
    if (key === "name") continue;
    if (others.some((o) => !same(o[key], rules[key]))) out.add(key);
  }
  return out;
}

/** The one-line explanations of each rule in which this preset differs from the others. */
export function specialLines(locale: Locale, rules: Ruleset, others: Ruleset[]): RuleLine[] {
  const differ = differingFields(rules, others);
  return ruleLines(locale, rules).filter((line) => line.fields.some((f) => differ.has(f)));
}

/** The ruleset options the host changed: only fields whose value differs from the preset. */
export function changedOptions(preset: Ruleset, wanted: Partial<Ruleset>): Partial<Ruleset> {
  const out: Partial<Ruleset> = {};
  for (const [key, value] of Object.entries(wanted) as [keyof Ruleset, unknown][]) {
    if (!same(preset[key], value)) (out as Record<string, unknown>)[key] = value;
  }
  return out;
}

/** What the card you hold is worth and the powers it gives (drawn from the deck), in words:
 *  the engine sends both in the view (``held_value``, ``held_powers``); "" when the face is not
 *  yours to see. */
export function heldFacts(locale: Locale, view: View): string {
  if (view.held === null) return "";
  const t = (key: TextKey, params = {}) => translate(locale, key, params);
  const worth = view.held_value === null ? "" : t("table.worth", { n: view.held_value });
  const powers = view.held_powers.length
    ? t("table.gives", { powers: view.held_powers.map((p) => t(keyUnder("power.", p))).join(", ") })
    : "";
  return [worth, powers].filter(Boolean).join(" · ");
}

/** A reason code of a round's scoring (the engine's, as in a reveal) in words, with the
 *  ruleset's number in it ("called, not lowest: +5"). */
export function reasonText(locale: Locale, rules: Ruleset, code: string): string {
  const numbers: Record<string, number> = {
    call_penalty: rules.caller_penalty,
    call_multiplied: rules.caller_multiplier,
    moon_against: rules.moon_points,
    hundred_reset: rules.hundred_reset,
  };
  return translate(locale, keyUnder("reason.", code), { n: numbers[code] ?? "" });
}
