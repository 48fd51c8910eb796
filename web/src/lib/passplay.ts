// Pass-and-play: one device on a real table, every seat's token on it, passed from player to
// player (facedown/server/api/passplay.py).  Who gets the device next is read from the public part
// of any seat's view; this module decides no rule, only whose moment it is.

import type { KeyValue } from "./session";
import { normalizeCode } from "./session";
import { MAX_PLAYERS, MIN_PLAYERS } from "./players";
import type { Action, TableInfo, View } from "./protocol";
import type { TextKey } from "./i18n";
import type { ClientState } from "./state";

/** The settings value of a pass-and-play table's mode (facedown/server/modes/modes.py). */
export const PASS_AND_PLAY = "pass_and_play";

export interface PassSeat {
  seat: number;
  name: string;
  token: string;
}

/** What this device keeps of a pass-and-play table: every seat's token. */
export interface PassTable {
  code: string;
  preset: string;
  seats: PassSeat[];
  at: number;
}

const KEY = "facedown.passplay";
const KEEP = 12;

export function isPassAndPlay(table: TableInfo | null | undefined): boolean {
  return table?.settings?.mode === PASS_AND_PLAY;
}

function validSeat(s: unknown): s is PassSeat {
  const seat = s as PassSeat | null;
  return (
    typeof seat === "object" &&
    seat !== null &&
    typeof seat.seat === "number" &&
    typeof seat.name === "string" &&
    typeof seat.token === "string"
  );
}

export function loadPassTables(store: KeyValue): PassTable[] {
  try {
    const data = JSON.parse(store.getItem(KEY) ?? "[]") as unknown;
    if (!Array.isArray(data)) return [];
    return data.filter(
      (t): t is PassTable =>
        typeof t === "object" &&
        t !== null &&
        typeof t.code === "string" &&
        Array.isArray(t.seats) &&
        t.seats.length >= MIN_PLAYERS &&
        t.seats.every(validSeat),
    );
  } catch {
    return [];
  }
}

/** Remember a pass-and-play table (newest first; the oldest are let go). */
export function savePassTable(store: KeyValue, table: PassTable): void {
  const kept = loadPassTables(store).filter((t) => t.code !== table.code);
  store.setItem(KEY, JSON.stringify([table, ...kept].slice(0, KEEP)));
}

export function passTableFor(store: KeyValue, code: string): PassTable | null {
  const wanted = normalizeCode(code);
  return loadPassTables(store).find((t) => t.code === wanted) ?? null;
}

/**
 * Whose moment it is: who the device goes to next (null when nobody's: the round is over and
 * everything is shown).  The opening looks go player by player, from the round's first player
 * on; in play it is the turn player.  Read from the public part of a view: every seat's is the
 * same there.
 */
export function momentOf(view: View): number | null {
  if (view.phase === "round_over" || view.phase === "match_over") return null;
  if (view.phase === "opening") {
    for (let i = 0; i < view.players; i += 1) {
      const seat = (view.first + i) % view.players;
      if (!view.peeked[seat]) return seat;
    }
    return null;
  }
  return view.to_act;
}

/** The seats that may TAP now, from each seat's own legal actions (in seat order). */
export function tappers(legals: Action[][]): number[] {
  return legals.flatMap((legal, seat) => (legal.some((a) => a.do === "tap") ? [seat] : []));
}

/** What is wrong with the names typed in (a text key), or null: each filled, each its own. */
export function namesProblem(names: string[]): TextKey | null {
  const cleaned = names.map((n) => n.trim());
  if (cleaned.length < MIN_PLAYERS || cleaned.length > MAX_PLAYERS) return "pass.problemCount";
  if (cleaned.some((n) => !n)) return "pass.problemBlank";
  const folded = cleaned.map((n) => n.toLocaleLowerCase());
  if (new Set(folded).size !== folded.length) return "pass.problemSame";
  return null;
}

// What each seat's player hid, by the seq it was hidden at (kept for the tab, across a reload).
const HIDDEN_KEY = "facedown.passplay.hidden";

type Hidden = { code: string; seats: Record<string, number> };

function loadHidden(store: KeyValue, code: string): Record<string, number> {
  try {
    const data = JSON.parse(store.getItem(HIDDEN_KEY) ?? "null") as Hidden | null;
    if (!data || data.code !== code || typeof data.seats !== "object" || data.seats === null) return {};
    return data.seats;
  } catch {
    return {};
  }
}

/** The seat's player hid what they were shown, at ``seq``. */
export function rememberHidden(store: KeyValue, code: string, seat: number, seq: number): void {
  const seats = { ...loadHidden(store, code), [String(seat)]: seq };
  store.setItem(HIDDEN_KEY, JSON.stringify({ code, seats }));
}

/** The seq at which the seat's player last hid what they were shown (null: never here). */
export function hiddenAt(store: KeyValue, code: string, seat: number): number | null {
  const seq = loadHidden(store, code)[String(seat)];
  return typeof seq === "number" ? seq : null;
}

/**
 * A snapshot after a reload carries what the seat was shown at its seq, so a card its player
 * had already hidden would come back up while nothing has happened since: it stays hidden.
 * Anything shown later (a later seq) comes up as usual.
 */
export function stillHidden(state: ClientState, hidden: number | null): ClientState {
  if (hidden === null || state.seq !== hidden || state.reveal === null) return state;
  return { ...state, reveal: null };
}
