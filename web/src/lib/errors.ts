// What the player reads when the server refuses something, and what the page does about it.
// Every code the server sends is in ERROR_CODES (generated from facedown/server/base/errors.py);
// each has a text in every language (a unit test checks), a few take the server's message.

import { ApiError } from "./api";
import { ERROR_CODES, type ErrorCode } from "./wire";
import { hasText, translate, type Locale, type TextKey } from "./i18n";

export { ERROR_CODES, type ErrorCode };

/** Errors after which reconnecting by itself cannot help: the connection stops (some offer a
 * button to try again: see ``retryKey``). */
export const STOP_CODES: ReadonlySet<string> = new Set([
  "bad_token",
  "unknown_table",
  "table_closed",
  "table_unavailable",
  "idle",
  "too_many_spectators",
]);

/** The button that starts the connection again after a stop, if any: an idle spectator may
 * watch again at once, a full gallery may have room later. */
export function retryKey(code: string): TextKey | null {
  if (code === "idle") return "error.watchAgain";
  if (code === "too_many_spectators") return "error.tryAgain";
  return null;
}

/** The text for an error: the client's own for its code, else the server's message.  A move
 * the engine refused comes with its specific reason in English ("turns on this table end by
 * themselves"): an English page shows that, other languages their own text for the code. */
export function errorText(locale: Locale, code: string, message: string): string {
  const key = `error.${code}`;
  if (code.startsWith("illegal:") && (locale === "en" || !hasText(key)) && message) {
    return translate(locale, "error.refused", { message });
  }
  if (hasText(key)) return translate(locale, key, { message });
  if (code.startsWith("http_")) return translate(locale, "error.http", { message: code.slice(5) });
  return message;
}

/** The text for what an HTTP call threw (an ApiError has the server's code and message). */
export function apiErrorText(locale: Locale, e: unknown): string {
  if (e instanceof ApiError) return errorText(locale, e.code, e.message);
  return String(e);
}
