// One table as this browser sees it: the connection, the reduced state, and the commands.

import { Connection, type Status } from "./connection";
import { confirmMissed, keepMissed, loadMissed, startWith, type Kept } from "./missed";
import { resendAfterStale } from "./moves";
import { hiddenAt, rememberHidden, stillHidden } from "./passplay";
import { wireAction, type Action, type BotLevel, type ClientMessage } from "./protocol";
import { tabStore, type KeyValue } from "./session";
import {
  SHOW_MS,
  clearError,
  endMoment,
  heldUp,
  initialState,
  reduce,
  revealOver,
  showMissed,
  withPending,
  type ClientState,
} from "./state";

export function wsUrl(loc: { protocol: string; host: string } = location): string {
  return `${loc.protocol === "https:" ? "wss" : "ws"}://${loc.host}/ws`;
}

let counter = 0;

/** An action id unique to this browser tab: a resent action is then applied once. */
export function actionId(): string {
  counter += 1;
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}-${counter}`;
}

export class TableClient {
  s = $state<ClientState>(initialState());
  status = $state<Status>({ state: "connecting" });
  now = $state(Date.now());
  private conn: Connection;
  private staleAction: Action | null = null;
  private ticker: ReturnType<typeof setInterval> | null = null;
  private tab: KeyValue = tabStore();
  /** A peek the timer played for this seat, kept across a reload, until the first snapshot. */
  private kept: Kept | null = null;

  /** A pass-and-play device's seat: a card shown to the seat stays up until the player hides
   * it (or moves, or the card moves), not for a moment only: the player holds the device. */
  private readonly holdShown: boolean;

  constructor(
    readonly code: string,
    readonly token: string | null,
    spectate = false,
    { holdShown = false }: { holdShown?: boolean } = {},
  ) {
    this.holdShown = holdShown;
    this.kept = spectate ? null : loadMissed(this.tab, code);
    this.s = startWith(this.kept);
    this.conn = new Connection({
      url: wsUrl(),
      hello: () => ({
        type: "hello",
        v: 1,
        table: code,
        token: spectate ? null : token,
        last_seq: this.s.seq,
        spectate,
      }),
      onMessage: (msg) => {
        const pending = this.s.pending;
        const caughtUp = this.s.seq;
        this.s = reduce(this.s, msg, Date.now());
        if (this.holdShown) {
          this.s = heldUp(this.s);
          // After a reload: what this seat's player already hid stays hidden (lib/passplay.ts).
          if (msg.type === "snapshot" && this.s.seat !== null) {
            this.s = stillHidden(this.s, hiddenAt(this.tab, code, this.s.seat));
          }
        }
        // A peek the timer played for you, not looked at yet, survives a reload (lib/missed.ts).
        if (msg.type === "snapshot" && this.kept) {
          this.s = confirmMissed(this.kept, this.s, caughtUp, Date.now());
          this.kept = null;
        }
        keepMissed(this.tab, code, this.s);
        if (msg.type === "error" && msg.code === "stale" && pending) this.staleAction = pending.action;
        if (msg.type === "snapshot" && this.staleAction) {
          const again = resendAfterStale(this.staleAction, this.s.legal);
          this.staleAction = null;
          if (again) this.act(again);
        }
      },
      onStatus: (status) => {
        this.status = status;
      },
      onWelcome: () => this.resend(),
    });
  }

  start(): void {
    this.conn.start();
    this.ticker = setInterval(() => {
      this.now = Date.now();
      // A look's time is up: its moment is over, and the cards leave this client's state.
      if (revealOver(this.s, this.now)) this.momentOver();
    }, 250);
    window.addEventListener("online", this.online);
  }

  stop(): void {
    this.conn.stop();
    if (this.ticker) clearInterval(this.ticker);
    window.removeEventListener("online", this.online);
  }

  private online = () => this.conn.retryNow();

  retryNow(): void {
    this.conn.retryNow();
  }

  /** After the connection stopped on an error that says so (an idle spectator, a full
   * gallery: lib/errors.ts ``retryKey``): connect again, as the page did at first. */
  restart(): void {
    this.s = clearError(this.s);
    this.conn.start();
  }

  /** Drop the socket as a network failure would (the browser tests use this). */
  drop(): void {
    this.conn.drop();
  }

  act(action: Action): void {
    if (this.s.pending) return;
    const pending = { id: actionId(), seq: this.s.seq ?? 0, action: wireAction(action) };
    this.s = withPending(this.s, pending);
    this.send({ type: "action", id: pending.id, seq: pending.seq, action: pending.action });
  }

  /** After a reconnect: the action that got no answer is sent again, with the same id. */
  private resend(): void {
    const p = this.s.pending;
    if (p) this.send({ type: "action", id: p.id, seq: p.seq, action: p.action });
  }

  /** The player is looking at the table: show the cards of a peek the timer played for them,
   * for as long as an opening peek lasts (at least three moments). */
  lookAtMissed(): void {
    const seconds = Number(this.s.table?.settings.peek_seconds ?? 0);
    this.s = showMissed(this.s, Date.now(), Math.max(seconds * 1000, 3 * SHOW_MS));
    keepMissed(this.tab, this.code, this.s);
  }

  /** The player hides what they were shown (pass-and-play: before passing the device on). */
  hideShown(): void {
    this.momentOver();
    if (this.s.seat !== null && this.s.seq !== null) {
      rememberHidden(this.tab, this.code, this.s.seat, this.s.seq);
    }
  }

  ready(): void {
    this.momentOver();
    keepMissed(this.tab, this.code, this.s);
  }

  /**
   * The seat's moment is over (READY, the look's time, the player hid it): the cards it was
   * shown leave this client's state, and the server is told (``ready``), so that no frame it
   * sends this seat after (a reload, another device) holds them until the table moves on.
   */
  private momentOver(): void {
    this.s = endMoment(this.s);
    if (this.s.seat !== null) this.send({ type: "ready" });
  }

  addBot(level: BotLevel): void {
    this.send({ type: "add_bot", level });
  }

  removeSeat(seat: number): void {
    this.send({ type: "remove_seat", seat });
  }

  startMatch(): void {
    this.send({ type: "start" });
  }

  rematch(): void {
    this.send({ type: "rematch" });
  }

  dismissError(): void {
    this.s = clearError(this.s);
  }

  private send(msg: ClientMessage): void {
    this.conn.send(msg);
  }
}
