// Ranked play on the client: the queue's names and how long a wait reads.

import { translate, type Locale, type TextKey } from "./i18n";

/** "cabo-4" -> its preset and player count (null for a name that is not a queue's). */
export function parseQueue(name: string): { preset: string; players: number } | null {
  const m = /^([a-z]{1,32})-(\d{1,2})$/.exec(name);
  return m ? { preset: m[1], players: Number(m[2]) } : null;
}

export function queueName(preset: string, players: number): string {
  return `${preset}-${players}`;
}

/** A wait in words: "8 s", "2 min 5 s", "1 h 3 min". */
export function formatWait(locale: Locale, seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return translate(locale, "ranked.seconds", { s });
  const m = Math.floor(s / 60);
  if (m < 60) return translate(locale, "ranked.minutes", { m, s: s % 60 });
  return translate(locale, "ranked.hours", { h: Math.floor(m / 60), m: m % 60 });
}

/** How often the queue page asks the server how it goes (asking keeps the player in it). */
export const POLL_MS = 1500;

/** A ranked table says so in its settings (``"mode": "ranked"``, facedown/server/modes/ranked_mode.py). */
export function isRanked(settings: Record<string, unknown> | null | undefined): boolean {
  return settings?.mode === "ranked";
}

/** What a player whose seat was forfeited is told: a ranked seat is lost by leaving past the
 *  grace period, a turn-based one by three missed deadlines. */
export function forfeitKey(settings: Record<string, unknown> | null | undefined): TextKey {
  return isRanked(settings) ? "table.youForfeitedRanked" : "table.youForfeited";
}

/** The seats tied for the lowest total (empty when the lowest total is one seat's). */
export function tiedForLowest(totals: readonly number[]): number[] {
  if (totals.length < 2) return [];
  const low = Math.min(...totals);
  const seats = totals.flatMap((total, seat) => (total === low ? [seat] : []));
  return seats.length > 1 ? seats : [];
}

/** Where a ranked match stands with sudden death: ``next`` when the round just scored leaves the
 * lowest totals tied after the fixed rounds (one more round decides), ``playing`` during that
 * round; the seats it is between, from the totals the view carries (they are the totals before
 * the sudden-death round until it is scored).  Null otherwise. */
export function suddenDeath(
  view: { round: number; phase: string; totals: readonly number[]; sudden_death?: readonly number[] },
  rules: { rounds: number | null; sudden_death: boolean } | null,
): { when: "next" | "playing"; seats: number[]; total: number } | null {
  if (!rules?.sudden_death || rules.rounds === null) return null;
  const seats = tiedForLowest(view.totals);
  if (!seats.length) return null;
  const total = view.totals[seats[0]];
  if (view.phase === "round_over" && view.round === rules.rounds) return { when: "next", seats, total };
  if (view.round > rules.rounds && view.phase !== "round_over" && view.phase !== "match_over") {
    // The server names who plays it (the view's sudden_death); the others watch.
    const playing = view.sudden_death?.length ? [...view.sudden_death] : seats;
    return { when: "playing", seats: playing, total: view.totals[playing[0]] };
  }
  return null;
}

/** Whether ``seat`` sits out the sudden-death round being played: it is not in the tie, so it
 * holds no cards and has no move; it watches (a spectator, null, watches anyway). */
export function watchesSuddenDeath(
  sudden: { when: "next" | "playing"; seats: number[] } | null,
  seat: number | null,
): boolean {
  return sudden?.when === "playing" && seat !== null && seat >= 0 && !sudden.seats.includes(seat);
}

/** Names in a list the locale's way: "Ann, Bob and Cleo", "Ann, Bob und Cleo". */
export function nameList(locale: Locale, names: readonly string[]): string {
  return new Intl.ListFormat(locale, { style: "long", type: "conjunction" }).format(names);
}

/** A rating change as players read it: "+12", "−7" (a real minus), "±0". */
export function ratingChange(before: number, after: number): string {
  const d = after - before;
  if (d > 0) return `+${d}`;
  if (d < 0) return `\u2212${-d}`;
  return "\u00b10";
}
