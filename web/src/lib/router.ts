// The client's routes; the server answers every one of them with index.html (SPA fallback).

export type Route =
  | { page: "home" }
  | { page: "new"; preset: string | null }
  | { page: "howto"; preset: string }
  | { page: "table"; code: string }
  | { page: "profile" };

export function parseRoute(path: string): Route {
  const parts = path.split(/[?#]/)[0].split("/").filter(Boolean).map(decodeURIComponent);
  if (parts[0] === "t" && parts[1]) return { page: "table", code: parts[1].toUpperCase() };
  if (parts[0] === "howto" && parts[1]) return { page: "howto", preset: parts[1].toLowerCase() };
  if (parts[0] === "profile") return { page: "profile" };
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
    case "new":
      return route.preset ? `/new/${encodeURIComponent(route.preset)}` : "/new";
    default:
      return "/";
  }
}

/** The replay page of a table's match (match_no counts the table's matches from 1). */
export function replayHref(tableId: string, matchNo: number): string {
  return `#/replay/${encodeURIComponent(tableId)}/${matchNo}`;
}
