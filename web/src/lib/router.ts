// The client's routes; the server answers every one of them with index.html (SPA fallback).

export type Route =
  | { page: "home" }
  | { page: "new"; preset: string | null }
  | { page: "howto"; preset: string }
  | { page: "table"; code: string }
  | { page: "scoreboard-new" }
  | { page: "scoreboard"; key: string }
  | { page: "scoreboard-view"; key: string };

// A scoreboard's keys are URL-safe base64 (the server's secrets.token_urlsafe).
const BOARD_KEY = /^[A-Za-z0-9_-]{16,64}$/;

export function parseRoute(path: string): Route {
  const parts = path.split(/[?#]/)[0].split("/").filter(Boolean).map(decodeURIComponent);
  if (parts[0] === "t" && parts[1]) return { page: "table", code: parts[1].toUpperCase() };
  if (parts[0] === "howto" && parts[1]) return { page: "howto", preset: parts[1].toLowerCase() };
  if (parts[0] === "scoreboard") {
    if (parts[1] === "view" && BOARD_KEY.test(parts[2] ?? "")) return { page: "scoreboard-view", key: parts[2] };
    if (BOARD_KEY.test(parts[1] ?? "")) return { page: "scoreboard", key: parts[1] };
    return { page: "scoreboard-new" };
  }
  if (parts[0] === "new") return { page: "new", preset: parts[1]?.toLowerCase() ?? null };
  return { page: "home" };
}

export function routePath(route: Route): string {
  switch (route.page) {
    case "table":
      return `/t/${encodeURIComponent(route.code)}`;
    case "howto":
      return `/howto/${encodeURIComponent(route.preset)}`;
    case "scoreboard-new":
      return "/scoreboard";
    case "scoreboard":
      return `/scoreboard/${encodeURIComponent(route.key)}`;
    case "scoreboard-view":
      return `/scoreboard/view/${encodeURIComponent(route.key)}`;
    case "new":
      return route.preset ? `/new/${encodeURIComponent(route.preset)}` : "/new";
    default:
      return "/";
  }
}
