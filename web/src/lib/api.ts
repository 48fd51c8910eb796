// The HTTP API (facedown/server/app.py): presets, creating and joining tables.

import type { BotLevel, Ruleset, TableInfo } from "./protocol";
import type { ReplayInfo, ReplayPage, ShareLink } from "./wire";

export interface Seated {
  code: string;
  link: string;
  token: string;
  seat: number | null;
  table: TableInfo;
}

export interface CreateTable {
  preset: string;
  options: Partial<Ruleset>;
  seats: number;
  name: string;
  peek_seconds: number;
  turn_seconds: number;
  bots: (BotLevel | null)[];
  /** "turn_based": a table that lives for days (absent: a Live Private table). */
  mode?: "turn_based";
  /** Turn-based: seconds for each move, one of MOVE_DEADLINES. */
  move_deadline?: number;
}

/** The move deadlines a turn-based table's host chooses from (facedown/server/modes/turnbased.py). */
export const MOVE_DEADLINES = [1, 4, 8, 12, 24, 48, 72].map((h) => h * 3600);
export const DEFAULT_DEADLINE = 24 * 3600;

export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

async function call<T>(path: string, init: RequestInit = {}, token: string | null = null): Promise<T> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (token) headers.authorization = `Bearer ${token}`;
  let response: Response;
  try {
    response = await fetch(path, { ...init, headers });
  } catch {
    throw new ApiError("network", "the server cannot be reached");
  }
  const body = (await response.json().catch(() => null)) as unknown;
  if (!response.ok) throw toError(response.status, body);
  return body as T;
}

/** FastAPI puts the table's {code, message} in ``detail``; validation errors are a list there. */
export function toError(status: number, body: unknown): ApiError {
  const detail = (body as { detail?: unknown } | null)?.detail;
  if (detail && typeof detail === "object" && !Array.isArray(detail)) {
    const d = detail as { code?: string; message?: string };
    return new ApiError(d.code ?? `http_${status}`, d.message ?? `error ${status}`);
  }
  if (Array.isArray(detail) && detail.length) {
    const first = detail[0] as { loc?: unknown[]; msg?: string };
    const where = (first.loc ?? []).slice(1).join(".");
    return new ApiError("invalid", `${where}: ${first.msg ?? "invalid"}`);
  }
  return new ApiError(`http_${status}`, `error ${status}`);
}

export function getPresets(): Promise<Record<string, Ruleset>> {
  return call("/api/presets");
}

/** A mode of play of one preset (the engine's table, GET /api/modes): the ruleset fields it
 * sets, and the match options (rounds, score_limit) its host may choose. */
export interface ModeInfo {
  fixed: Record<string, unknown>;
  offers: string[];
}

export function getModes(): Promise<Record<string, Record<string, ModeInfo>>> {
  return call("/api/modes");
}

export function getTable(code: string): Promise<TableInfo> {
  return call(`/api/tables/${encodeURIComponent(code)}`);
}

export function createTable(body: CreateTable, token: string | null): Promise<Seated> {
  return call("/api/tables", { method: "POST", body: JSON.stringify(body) }, token);
}

export interface CreatePassPlay {
  preset: string;
  options: Partial<Ruleset>;
  /** The players around the device, in seat order. */
  names: string[];
}

export interface PassPlayTable {
  code: string;
  link: string;
  seats: { seat: number; name: string; token: string }[];
  table: TableInfo;
}

/** A pass-and-play table (facedown/server/api/passplay.py): started at once, every seat's token. */
export function createPassPlay(body: CreatePassPlay): Promise<PassPlayTable> {
  return call("/api/tables/pass-and-play", { method: "POST", body: JSON.stringify(body) });
}

export function joinTable(code: string, name: string, token: string | null): Promise<Seated> {
  return call(`/api/tables/${encodeURIComponent(code)}/join`, { method: "POST", body: JSON.stringify({ name }) }, token);
}

// Accounts (facedown/server/api/account_routes.py).  The session is an HttpOnly cookie the browser
// sends by itself with every /api request of this origin: no script ever sees it.

export interface Rating {
  queue: string;
  preset: string;
  players: number;
  rating: number;
  mu: number;
  sigma: number;
  matches: number;
  provisional: boolean;
}

export interface Account {
  name: string;
  created_at: number;
  ratings: Rating[];
  /** Where turn e-mails go: only ever sent to the account itself. */
  email: string | null;
  /** Its owner confirmed the address (by the link mailed to it): only then mail goes to it. */
  email_verified: boolean;
  /** The language of the account's e-mails. */
  mail_language: string;
}

/** The account's e-mail after a change: a new address gets a confirmation link (`sent`). */
export interface EmailInfo {
  email: string | null;
  verified: boolean;
  language: string;
  sent: boolean;
}

export interface SessionInfo {
  id: string;
  created_at: number;
  last_seen: number;
  expires_at: number;
  agent: string;
  current: boolean;
}

export interface HistorySeat {
  seat: number;
  name: string;
  kind: string;
  bot_level: string | null;
}

export interface HistoryMatch {
  table_id: string;
  code: string;
  match_no: number;
  preset: string;
  finished_at: number;
  seats: HistorySeat[];
  scores: number[];
  winners: number[];
  you: number[];
  won: boolean;
}

const post = (body?: unknown): RequestInit => ({
  method: "POST",
  body: body === undefined ? undefined : JSON.stringify(body),
});

/** The signed-in account, or null when this browser is not signed in. */
export async function getAccount(): Promise<Account | null> {
  try {
    return await call<Account>("/api/account");
  } catch (e) {
    if (e instanceof ApiError && e.code === "signed_out") return null;
    throw e;
  }
}

export function signUp(name: string, password: string, guestTokens: string[]): Promise<Account> {
  return call("/api/account/signup", post({ name, password, guest_tokens: guestTokens }));
}

export function signIn(name: string, password: string, guestTokens: string[]): Promise<Account> {
  return call("/api/account/signin", post({ name, password, guest_tokens: guestTokens }));
}

export function signOut(): Promise<{ ended: number }> {
  return call("/api/account/signout", post());
}

export function signOutEverywhere(): Promise<{ ended: number }> {
  return call("/api/account/signout-everywhere", post());
}

export async function listSessions(): Promise<SessionInfo[]> {
  return (await call<{ sessions: SessionInfo[] }>("/api/account/sessions")).sessions;
}

export function endSession(id: string): Promise<{ ended: number }> {
  return call(`/api/account/sessions/${encodeURIComponent(id)}`, { method: "DELETE" });
}

export function changePassword(current: string, next: string): Promise<{ ended: number }> {
  return call("/api/account/password", post({ current_password: current, new_password: next }));
}

export function setEmail(email: string | null, language: string): Promise<EmailInfo> {
  return call("/api/account/email", { method: "PUT", body: JSON.stringify({ email, language }) });
}

// The account's games (facedown/server/api/games.py): the ones waiting for your move first.

export interface GameSeat {
  seat: number;
  name: string;
  kind: string;
  forfeited: boolean;
}

export interface YourGame {
  code: string;
  preset: string;
  mode: string;
  status: string;
  match: number;
  seats: GameSeat[];
  you: number[];
  your_move: boolean;
  waiting_for: number[];
  deadline: number | null;
  missed: number;
  updated_at: number;
}

export interface YourGames {
  games: YourGame[];
  your_move: number;
}

export function getGames(): Promise<YourGames> {
  return call("/api/account/games");
}

/** The signed-in account's seat at a table, with a seat token for this device. */
export function getMySeat(code: string): Promise<Seated> {
  return call(`/api/tables/${encodeURIComponent(code)}/seat`);
}

export async function getHistory(): Promise<HistoryMatch[]> {
  return (await call<{ matches: HistoryMatch[] }>("/api/account/history")).matches;
}

// Replays (facedown/server/api/replays.py): a finished match, for its players or a key's holder.

/** Who asks for a replay: a player (their table token) or the holder of a share key. */
export interface ReplayPass {
  token: string | null;
  key: string | null;
}

function replayQuery(pass: ReplayPass, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams(extra);
  if (pass.key) params.set("key", pass.key);
  const text = params.toString();
  return text ? `?${text}` : "";
}

function matchPath(table: string, match: number): string {
  return `/api/replays/${encodeURIComponent(table)}/${match}`;
}

export function getReplay(table: string, match: number, pass: ReplayPass): Promise<ReplayInfo> {
  return call(`${matchPath(table, match)}${replayQuery(pass)}`, {}, pass.key ? null : pass.token);
}

export function getSharedReplay(key: string): Promise<ReplayInfo> {
  return call(`/api/replays/shared/${encodeURIComponent(key)}`);
}

export function getReplaySteps(
  table: string,
  match: number,
  pass: ReplayPass,
  seat: number | null,
  start: number,
  count: number,
  knowledge = false,
): Promise<ReplayPage> {
  const extra: Record<string, string> = { start: String(start), count: String(count) };
  if (seat !== null) extra.seat = String(seat);
  if (knowledge) extra.knowledge = "true";
  return call(`${matchPath(table, match)}/steps${replayQuery(pass, extra)}`, {}, pass.key ? null : pass.token);
}

export function exportUrl(table: string, match: number, key: string): string {
  return `${matchPath(table, match)}/export${replayQuery({ token: null, key })}`;
}

/** The share link of a table's latest match (for its players). */
export function shareTableMatch(code: string, token: string): Promise<ShareLink> {
  return call(`/api/tables/${encodeURIComponent(code)}/share`, { method: "POST" }, token);
}

// Ranked play (facedown/server/api/ranked_routes.py): the queues, your place in one, leaderboards.

export interface QueueInfo {
  queue: string;
  preset: string;
  players: number;
  waiting: number;
  expected_wait: number | null;
}

export interface Queues {
  queues: QueueInfo[];
  provisional_matches: number;
}

export interface QueueStatus {
  state: "idle" | "waiting" | "matched";
  queue: string | null;
  preset: string | null;
  players: number | null;
  joined_at: number | null;
  waited: number | null;
  expected_wait: number | null;
  window: number | null;
  waiting: number | null;
  code: string | null;
  token: string | null;
  seat: number | null;
}

export interface LeaderboardEntry {
  place: number;
  name: string;
  rating: number;
  matches: number;
  provisional: boolean;
}

export interface Leaderboard {
  queue: string;
  preset: string;
  players: number;
  total: number;
  entries: LeaderboardEntry[];
}

export function getQueues(): Promise<Queues> {
  return call("/api/ranked/queues");
}

export function queueStatus(): Promise<QueueStatus> {
  return call("/api/ranked/queue");
}

export function joinQueue(preset: string, players: number): Promise<QueueStatus> {
  return call("/api/ranked/queue", post({ preset, players }));
}

export function leaveQueue(): Promise<QueueStatus> {
  return call("/api/ranked/queue", { method: "DELETE" });
}

export function getLeaderboard(queue: string, offset = 0): Promise<Leaderboard> {
  return call(`/api/ranked/leaderboard/${encodeURIComponent(queue)}?offset=${offset}`);
}

export interface SeatResult {
  seat: number;
  place: number;
  before: number;
  after: number;
}

/** How a ranked match changed its players' ratings (``rated`` false until it is rated). */
export interface MatchResult {
  code: string;
  queue: string;
  rated: boolean;
  draw: boolean;
  seats: SeatResult[];
}

export function getMatchResult(code: string): Promise<MatchResult> {
  return call(`/api/ranked/match/${encodeURIComponent(code)}`);
}
