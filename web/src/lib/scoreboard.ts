// The Physical Scoreboard: boards of paper games, saved and scored on the server.
//
// The browser never scores a round: every board it shows is the server's answer (the engine's
// own scoring).  Rounds entered while the network is down are kept in localStorage as pending
// changes and sent, in order, when it is back; until then they show as "not yet scored".
//
// Two devices editing one board: every change carries ``base``, the board revision it was made
// on (for a pending change: the revision the board will have when the changes before it are
// in).  The server refuses a change whose base is not the board's revision now (409
// revision_conflict); the device keeps the refused changes aside, shows them with the board as
// it is now, and its user enters them again or lets them go.

import { ApiError, toError } from "./api";
import type { KeyValue } from "./session";

export interface PaperRound {
  hand_totals: number[];
  caller: number; // -1: nobody called
  moon: number; // -1: nobody shot the moon
}

export interface ScoredRound extends PaperRound {
  number: number;
  scores: number[];
  places: number[] | null;
  points: number[];
  totals: number[];
  reasons: string[][];
  sudden_death: boolean;
}

export interface Placement {
  points: number[];
  rounds: number;
}

export interface Board {
  names: string[];
  preset: string;
  call_name: string;
  moon: boolean;
  match_rounds: number | null;
  score_limit: number | null;
  placement: Placement | null;
  rounds: ScoredRound[];
  totals: number[];
  over: boolean;
  winners: number[];
  next_sudden_death: boolean;
}

export interface BoardAnswer {
  revision: number;
  view_key: string;
  share_link: string;
  link?: string; // the edit link: only the board's editor is given it
  board: Board;
}

export interface CreateBoard {
  names: string[];
  preset: string;
  rounds?: number | null;
  sudden_death?: boolean;
  placement?: Placement | null;
}

/** A change to a board: add a round, enter round ``number`` again, or take it back. */
export type NewChange =
  | { kind: "add"; round: PaperRound }
  | { kind: "edit"; number: number; round: PaperRound }
  | { kind: "undo"; number: number };
/** ``base``: the board revision the change was made on. */
export type Change = NewChange & { base: number };

/** What this browser keeps of a board it edits. */
export interface Kept {
  answer: BoardAnswer | null; // the server's last answer
  pending: Change[]; // not yet sent (offline), in order
  refused: Change[]; // refused by the server: shown until entered again or let go
  message: string; // why they were refused
}

export type Fetch = (input: string, init?: RequestInit) => Promise<Response>;

async function request<T>(fetcher: Fetch, path: string, init: RequestInit = {}): Promise<T> {
  let response: Response;
  try {
    response = await fetcher(path, { ...init, headers: { "content-type": "application/json" } });
  } catch {
    throw new ApiError("network", "the server cannot be reached");
  }
  const body = (await response.json().catch(() => null)) as unknown;
  if (!response.ok) throw toError(response.status, body);
  return body as T;
}

const base = (key: string) => `/api/scoreboards/${encodeURIComponent(key)}`;

export function createBoard(fetcher: Fetch, body: CreateBoard): Promise<BoardAnswer> {
  return request(fetcher, "/api/scoreboards", { method: "POST", body: JSON.stringify(body) });
}

export function getBoard(fetcher: Fetch, editKey: string): Promise<BoardAnswer> {
  return request(fetcher, base(editKey));
}

export function viewBoard(fetcher: Fetch, viewKey: string): Promise<BoardAnswer> {
  return request(fetcher, `/api/scoreboards/view/${encodeURIComponent(viewKey)}`);
}

export function csvLink(viewKey: string): string {
  return `/api/scoreboards/view/${encodeURIComponent(viewKey)}/csv`;
}

/** Send one change; the board after it. */
export function send(fetcher: Fetch, editKey: string, change: Change): Promise<BoardAnswer> {
  if (change.kind === "add") {
    const body = JSON.stringify({ base: change.base, ...change.round });
    return request(fetcher, `${base(editKey)}/rounds`, { method: "POST", body });
  }
  if (change.kind === "edit") {
    const body = JSON.stringify({ base: change.base, ...change.round });
    return request(fetcher, `${base(editKey)}/rounds/${change.number}`, { method: "PUT", body });
  }
  return request(fetcher, `${base(editKey)}/rounds/${change.number}?base=${change.base}`, { method: "DELETE" });
}

const KEY = (editKey: string) => `facedown.board.${editKey}`;

export function loadKept(store: KeyValue, editKey: string): Kept {
  try {
    const data = JSON.parse(store.getItem(KEY(editKey)) ?? "null") as Kept | null;
    if (data && Array.isArray(data.pending) && Array.isArray(data.refused)) return data;
  } catch {
    // a damaged entry is started afresh
  }
  return { answer: null, pending: [], refused: [], message: "" };
}

export function saveKept(store: KeyValue, editKey: string, kept: Kept): void {
  store.setItem(KEY(editKey), JSON.stringify(kept));
}

/** The revision the board will have once every pending change is in: the base of the next. */
export function nextBase(kept: Kept): number {
  return (kept.answer?.revision ?? 0) + kept.pending.length;
}

/** Queue a change made on what this device shows now. */
export function queue(kept: Kept, change: NewChange): Kept {
  const full: Change = { ...change, base: nextBase(kept) };
  return { ...kept, pending: [...kept.pending, full] };
}

/** Send the pending changes in order, reading the latest ``Kept`` before each (changes
 * queued meanwhile are sent too).  A network failure keeps the rest for later; a refusal (a
 * conflict, or a round the rules refuse) sets the refused changes aside with the reason and
 * reloads the board as the server has it.  Only one sync may run at a time. */
export async function sync(
  fetcher: Fetch,
  editKey: string,
  get: () => Kept,
  save: (k: Kept) => void,
): Promise<Kept> {
  for (;;) {
    const first = get().pending[0];
    if (!first) return get();
    try {
      const answer = await send(fetcher, editKey, first);
      const now = get();
      save({ ...now, answer, pending: now.pending.slice(1) });
    } catch (e) {
      if (e instanceof ApiError && e.code === "network") return get();
      const message = e instanceof Error ? e.message : String(e);
      let answer = get().answer;
      try {
        answer = await getBoard(fetcher, editKey);
      } catch {
        // keep the last answer; the next load reloads it
      }
      const now = get();
      save({ answer, pending: [], refused: [...now.refused, ...now.pending], message });
      return get();
    }
  }
}

/** The lines of the chart: each player's total after each round, from 0 before the first. */
export interface ChartLine {
  player: number;
  points: [number, number][]; // x, y in the chart's own units
}

export interface Chart {
  width: number;
  height: number;
  lines: ChartLine[];
  low: number;
  high: number;
}

export function chart(board: Board, width = 320, height = 160, pad = 8): Chart {
  const series = board.names.map((_, p) => [0, ...board.rounds.map((r) => r.totals[p])]);
  const all = series.flat();
  const low = Math.min(0, ...all);
  const high = Math.max(1, ...all);
  const steps = Math.max(1, board.rounds.length);
  const x = (i: number) => pad + (i * (width - 2 * pad)) / steps;
  const y = (v: number) => height - pad - ((v - low) * (height - 2 * pad)) / (high - low);
  const lines = series.map((values, player) => ({
    player,
    points: values.map((v, i): [number, number] => [round2(x(i)), round2(y(v))]),
  }));
  return { width, height, lines, low, high };
}

function round2(v: number): number {
  return Math.round(v * 100) / 100;
}

/** A rule the preset applied in a round that the table alone does not explain: shown next to
 * that round.  ``reset``: a total of exactly 100 set back (``rule`` says how often the preset
 * allows it); ``stays``: 100 reached again in a game that resets only once; ``moon``: two 12s and
 * two 13s (0 for the shooter, ``others`` for everybody else). */
export type Note =
  | { kind: "reset"; player: number; rule: "once" | "always" | ""; to: number }
  | { kind: "stays"; player: number }
  | { kind: "moon"; player: number; others: number };

// How often each preset sets an exact 100 back (the rule texts: Cabo once per player, Kaboom
// every time); the reason itself comes from the server's scoring ("hundred_reset").
const HUNDRED_RULE: Record<string, "once" | "always"> = { cabo: "once", kaboom: "always" };
const HUNDRED = "hundred_reset";
const MOON = "shot_the_moon";

/** The notes for round ``number`` (from 1) of ``board``, read off the server's scores. */
export function roundNotes(board: Board, number: number): Note[] {
  const r = board.rounds[number - 1];
  if (!r) return [];
  const notes: Note[] = [];
  if (r.moon >= 0 && (r.reasons[r.moon] ?? []).includes(MOON)) {
    const others = r.scores.find((_, p) => p !== r.moon) ?? 0;
    notes.push({ kind: "moon", player: r.moon, others });
  }
  const rule = HUNDRED_RULE[board.preset] ?? "";
  r.totals.forEach((total, p) => {
    if ((r.reasons[p] ?? []).includes(HUNDRED)) {
      notes.push({ kind: "reset", player: p, rule, to: total });
    } else if (rule === "once" && total === 100 && !board.placement) {
      // Reached again this round (not a 100 kept from the round before), with the reset used.
      const before = number > 1 ? board.rounds[number - 2].totals[p] : 0;
      const earlier = board.rounds.slice(0, number - 1).some((e) => (e.reasons[p] ?? []).includes(HUNDRED));
      if (earlier && before !== 100) notes.push({ kind: "stays", player: p });
    }
  });
  return notes;
}

/** A CSV field as Python's csv module writes it (QUOTE_MINIMAL). */
function field(value: string | number): string {
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** A name made safe for a spreadsheet, as the server does it: a leading = + - @ is quoted. */
function cell(text: string): string {
  return "=+-@".includes(text.slice(0, 1)) && text ? `'${text}` : text;
}

/** The board as CSV, written in the browser from the server's last answer (so it can be
 * exported offline): the same text as ``GET /api/scoreboards/view/<key>/csv``. */
export function boardCsv(board: Board): string {
  const names = board.names.map(cell);
  const who = (seat: number) => (seat >= 0 ? names[seat] : "");
  const rows: (string | number)[][] = [];
  const header: string[] = ["round", "caller", "moon"];
  for (const name of names) {
    header.push(`${name} hand`, `${name} score`);
    if (board.placement) header.push(`${name} place`, `${name} points`);
    header.push(`${name} total`);
  }
  rows.push([...header, "winners"]);
  for (const r of board.rounds) {
    const row: (string | number)[] = [r.number, who(r.caller), who(r.moon)];
    board.names.forEach((_, p) => {
      row.push(r.hand_totals[p], r.scores[p]);
      if (r.places) row.push(r.places[p], r.points[p]);
      row.push(r.totals[p]);
    });
    rows.push(row);
  }
  const last: (string | number)[] = ["total", "", ""];
  for (const total of board.totals) last.push("", "", ...(board.placement ? ["", ""] : []), total);
  last.push(board.winners.map((p) => names[p]).join(" & "));
  rows.push(last);
  return rows.map((row) => row.map(field).join(",") + "\r\n").join("");
}
