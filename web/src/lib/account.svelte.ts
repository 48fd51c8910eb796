// Who is signed in on this browser (the server says: the session cookie is out of reach of
// scripts), and what the profile page shows of a finished match.

import { getAccount, type Account, type HistoryMatch } from "./api";
import type { Locale } from "./i18n";
import { nameLabel } from "./words";

export const account = $state<{ info: Account | null; loaded: boolean }>({ info: null, loaded: false });

let asking: Promise<void> | null = null;

/** Ask the server who is signed in (null when no one); the header and the profile follow. */
export function refreshAccount(): Promise<void> {
  asking = ask();
  return asking;
}

/** Once the server has said who is signed in (asking it if nobody has yet). */
export function accountKnown(): Promise<void> {
  return asking ?? refreshAccount();
}

async function ask(): Promise<void> {
  try {
    account.info = await getAccount();
  } catch {
    account.info = null;
  } finally {
    account.loaded = true;
  }
}

/** "Ann 12 · Bot 20": each seat's name and match total, in seat order. */
export function scoreLine(match: HistoryMatch, locale: Locale = "en"): string {
  return match.seats.map((s) => `${nameLabel(locale, s.name)} ${match.scores[s.seat] ?? "?"}`).join(" · ");
}

/** The names of the winning seats. */
export function winnerNames(match: HistoryMatch, locale: Locale = "en"): string[] {
  return match.winners.map((w) => {
    const name = match.seats.find((s) => s.seat === w)?.name;
    return name === undefined ? `#${w + 1}` : nameLabel(locale, name);
  });
}
