// Ranked play on the client: the queue's names and how long a wait reads.

import { translate, type Locale } from "./i18n";

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
