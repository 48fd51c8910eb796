// The signed-in player's games (GET /api/account/games): the list, the badge that counts the
// ones waiting for your move, the count in the tab's title, and a browser notification when a
// game starts waiting for you while the tab is in the background (if the player allowed it).

import { getGames, type YourGame } from "./api";

export const games = $state<{ list: YourGame[]; yourMove: number; loaded: boolean }>({
  list: [],
  yourMove: 0,
  loaded: false,
});

const EVERY_MS = 60_000; // how often the list is asked for while the page is open
const TITLE = "Facedown";
let waitingBefore: Set<string> | null = null;
let timer: ReturnType<typeof setInterval> | null = null;

/** The codes of the games newly waiting for your move (none the first time: no news yet). */
export function newlyWaiting(before: Set<string> | null, list: YourGame[]): string[] {
  const now = list.filter((g) => g.your_move).map((g) => g.code);
  return before === null ? [] : now.filter((c) => !before.has(c));
}

/** The tab's title: the number of games waiting for you in front, as mail and chat do. */
export function tabTitle(count: number): string {
  return count > 0 ? `(${count}) ${TITLE}` : TITLE;
}

export type Notice = (title: string, body: string, code: string) => void;

/** Ask the server for the list; ``notice`` tells of each game that started waiting for you. */
export async function refreshGames(notice: Notice | null = null, text?: (g: YourGame) => [string, string]): Promise<void> {
  try {
    const found = await getGames();
    const fresh = newlyWaiting(waitingBefore, found.games);
    waitingBefore = new Set(found.games.filter((g) => g.your_move).map((g) => g.code));
    games.list = found.games;
    games.yourMove = found.your_move;
    if (notice && text) {
      for (const code of fresh) {
        const game = found.games.find((g) => g.code === code);
        if (game) {
          const [title, body] = text(game);
          notice(title, body, code);
        }
      }
    }
  } catch {
    games.list = [];
    games.yourMove = 0;
  } finally {
    games.loaded = true;
    if (typeof document !== "undefined") document.title = tabTitle(games.yourMove);
  }
}

/** Whether this browser can show notifications, and what the player said about them. */
export function notifyState(): "unsupported" | NotificationPermission {
  return typeof Notification === "undefined" ? "unsupported" : Notification.permission;
}

/** Ask the player (once they pressed the button: browsers want a gesture). */
export async function askToNotify(): Promise<NotificationPermission | "unsupported"> {
  if (typeof Notification === "undefined") return "unsupported";
  return Notification.requestPermission();
}

/** A browser notification, only when allowed and the tab is not the one being looked at. */
export function browserNotice(title: string, body: string, code: string): void {
  if (notifyState() !== "granted" || document.visibilityState === "visible") return;
  const shown = new Notification(title, { body, tag: `facedown-${code}` });
  shown.onclick = () => {
    window.focus();
    location.assign(`/t/${encodeURIComponent(code)}`);
  };
}

/** Keep the list fresh while signed in: now, every minute, and when the tab is shown again. */
export function watchGames(text: (g: YourGame) => [string, string]): () => void {
  const again = () => void refreshGames(browserNotice, text);
  again();
  timer = setInterval(again, EVERY_MS);
  const onShow = () => {
    if (document.visibilityState === "visible") again();
  };
  document.addEventListener("visibilitychange", onShow);
  return () => {
    if (timer) clearInterval(timer);
    timer = null;
    waitingBefore = null;
    document.removeEventListener("visibilitychange", onShow);
    games.list = [];
    games.yourMove = 0;
    document.title = TITLE;
  };
}
