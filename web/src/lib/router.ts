// The client's routes; the server answers every one of them with index.html (SPA fallback).

export type Route =
  | { page: "home" }
  | { page: "new"; preset: string | null }
  | { page: "pass-new"; preset: string | null }
  | { page: "howto"; preset: string }
  | { page: "table"; code: string }
  | { page: "profile" }
  | { page: "ranked" }
  | { page: "leaderboard"; queue: string }
  | { page: "games" }
  | { page: "replay"; table: string; match: number }
  | { page: "shared"; key: string }
  | { page: "scoreboard-new" }
  | { page: "scoreboard"; key: string }
  | { page: "scoreboard-view"; key: string };

// A scoreboard's keys are URL-safe base64 (the server's secrets.token_urlsafe).
const BOARD_KEY = /^[A-Za-z0-9_-]{16,64}$/;

const TABLE_ID = /^[A-Za-z0-9]{1,64}$/;
// A ranked queue: "<preset>-<players>".
const QUEUE = /^[a-z]{1,32}-\d{1,2}$/;
const REPLAY_KEY = /^[A-Za-z0-9_.-]{1,200}$/;

/** A replay route in a fragment: ``#/replay/<table_id>/<match_no>`` or ``#/replay/shared/<key>``. */
export function parseReplay(hash: string): Route | null {
  if (!hash.startsWith("#/replay/")) return null;
  const parts = hash.slice("#/replay/".length).split("/").map(decodeURIComponent);
  if (parts.length !== 2) return null;
  if (parts[0] === "shared") return REPLAY_KEY.test(parts[1]) ? { page: "shared", key: parts[1] } : null;
  const match = Number(parts[1]);
  if (!TABLE_ID.test(parts[0]) || !/^\d{1,7}$/.test(parts[1]) || match < 1) return null;
  return { page: "replay", table: parts[0], match };
}

/** The route of a path (and of its fragment: the replay routes live there). */
export function parseRoute(path: string, hash = ""): Route {
  const replay = parseReplay(hash);
  if (replay) return replay;
  const parts = path.split(/[?#]/)[0].split("/").filter(Boolean).map(decodeURIComponent);
  if (parts[0] === "t" && parts[1]) return { page: "table", code: parts[1].toUpperCase() };
  if (parts[0] === "howto" && parts[1]) return { page: "howto", preset: parts[1].toLowerCase() };
  if (parts[0] === "profile") return { page: "profile" };
  if (parts[0] === "ranked") {
    if (parts[1] === "leaderboard" && QUEUE.test(parts[2] ?? "")) return { page: "leaderboard", queue: parts[2] };
    return { page: "ranked" };
  }
  if (parts[0] === "games") return { page: "games" };
  if (parts[0] === "scoreboard") {
    if (parts[1] === "view" && BOARD_KEY.test(parts[2] ?? "")) return { page: "scoreboard-view", key: parts[2] };
    if (BOARD_KEY.test(parts[1] ?? "")) return { page: "scoreboard", key: parts[1] };
    return { page: "scoreboard-new" };
  }
  if (parts[0] === "pass") return { page: "pass-new", preset: parts[1]?.toLowerCase() ?? null };
  if (parts[0] === "new") return { page: "new", preset: parts[1]?.toLowerCase() ?? null };
  return { page: "home" };
}

export function routePath(route: Route): string {
  switch (route.page) {
    case "table":
      return `/t/${encodeURIComponent(route.code)}`;
    case "howto":
      return `/howto/${encodeURIComponent(route.preset)}`;
    case "profile":
      return "/profile";
    case "ranked":
      return "/ranked";
    case "leaderboard":
      return `/ranked/leaderboard/${encodeURIComponent(route.queue)}`;
    case "games":
      return "/games";
    case "scoreboard-new":
      return "/scoreboard";
    case "scoreboard":
      return `/scoreboard/${encodeURIComponent(route.key)}`;
    case "scoreboard-view":
      return `/scoreboard/view/${encodeURIComponent(route.key)}`;
    case "new":
      return route.preset ? `/new/${encodeURIComponent(route.preset)}` : "/new";
    case "pass-new":
      return route.preset ? `/pass/${encodeURIComponent(route.preset)}` : "/pass";
    case "replay":
      return `/#/replay/${encodeURIComponent(route.table)}/${route.match}`;
    case "shared":
      return `/#/replay/shared/${encodeURIComponent(route.key)}`;
    default:
      return "/";
  }
}

/** The replay page of a table's match (match_no counts the table's matches from 1). */
export function replayHref(tableId: string, matchNo: number): string {
  return `#/replay/${encodeURIComponent(tableId)}/${matchNo}`;
}
