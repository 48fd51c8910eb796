// What this browser keeps: the seat tokens of its tables, the player's name, the language.

export interface StoredSeat {
  code: string;
  token: string;
  name: string;
  preset: string;
  at: number;
}

/** The part of localStorage used here (tests pass a Map-backed fake). */
export interface KeyValue {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

const SEATS = "facedown.seats";
const NAME = "facedown.name";
export const LOCALE_KEY = "facedown.locale";
const KEEP = 12;

export function loadSeats(store: KeyValue): StoredSeat[] {
  try {
    const data = JSON.parse(store.getItem(SEATS) ?? "[]") as unknown;
    return Array.isArray(data)
      ? data.filter(
          (s): s is StoredSeat =>
            typeof s === "object" && s !== null && typeof s.code === "string" && typeof s.token === "string",
        )
      : [];
  } catch {
    return [];
  }
}

/** Remember a seat (newest first; one entry per table; the oldest are let go). */
export function saveSeat(store: KeyValue, seat: StoredSeat): void {
  const seats = [seat, ...loadSeats(store).filter((s) => s.code !== seat.code)].slice(0, KEEP);
  store.setItem(SEATS, JSON.stringify(seats));
}

export function seatFor(store: KeyValue, code: string): StoredSeat | null {
  return loadSeats(store).find((s) => s.code === normalizeCode(code)) ?? null;
}

export function forgetSeat(store: KeyValue, code: string): void {
  store.setItem(SEATS, JSON.stringify(loadSeats(store).filter((s) => s.code !== code)));
}

/** The newest token of any table: it names the same guest to the server for a new table. */
export function anyToken(store: KeyValue): string | null {
  return loadSeats(store)[0]?.token ?? null;
}

export function loadName(store: KeyValue): string {
  return store.getItem(NAME) ?? "";
}

export function saveName(store: KeyValue, name: string): void {
  store.setItem(NAME, name);
}

/** A table code from what a player typed or pasted: a code, or a link ending in /t/CODE. */
export function parseCode(input: string): string | null {
  const text = input.trim();
  const fromLink = /\/t\/([A-Za-z0-9_-]+)\/?(?:[?#].*)?$/.exec(text);
  const code = fromLink ? fromLink[1] : text;
  return /^[A-Za-z0-9_-]{1,32}$/.test(code) ? normalizeCode(code) : null;
}

/** The fragment key of a seat's token in a link that moves the seat to another device. */
const SEAT_KEY = "seat";
const TOKEN_SHAPE = /^[A-Za-z0-9_.-]{1,2048}$/;

/**
 * The link that opens this seat on another device: the table's page with the seat's token in
 * the fragment (``/t/CODE#seat=TOKEN``), which browsers never send to the server.
 */
export function deviceLink(origin: string, code: string, token: string): string {
  return `${origin}/t/${encodeURIComponent(normalizeCode(code))}#${SEAT_KEY}=${encodeURIComponent(token)}`;
}

/** The seat token in a link's fragment (or in ``location.hash`` itself); null when there is none. */
export function seatToken(linkOrHash: string): string | null {
  const at = linkOrHash.indexOf("#");
  if (at < 0) return null;
  let token: string | null;
  try {
    token = new URLSearchParams(linkOrHash.slice(at + 1)).get(SEAT_KEY);
  } catch {
    return null;
  }
  return token !== null && TOKEN_SHAPE.test(token) ? token : null;
}

export function normalizeCode(code: string): string {
  return code.trim().toUpperCase();
}

/** A Map-backed stand-in for localStorage (private windows that refuse storage, tests). */
export class MemoryStore implements KeyValue {
  private data = new Map<string, string>();
  getItem(key: string): string | null {
    return this.data.get(key) ?? null;
  }
  setItem(key: string, value: string): void {
    this.data.set(key, value);
  }
  removeItem(key: string): void {
    this.data.delete(key);
  }
}

export function browserStore(): KeyValue {
  try {
    const probe = "facedown.probe";
    localStorage.setItem(probe, "1");
    localStorage.removeItem(probe);
    return localStorage;
  } catch {
    return new MemoryStore();
  }
}

/** This tab's sessionStorage (kept across a reload of the page, not shared with other tabs). */
export function tabStore(): KeyValue {
  try {
    const probe = "facedown.probe";
    sessionStorage.setItem(probe, "1");
    sessionStorage.removeItem(probe);
    return sessionStorage;
  } catch {
    return new MemoryStore();
  }
}
