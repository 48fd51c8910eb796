// The WebSocket to a table: says hello with the seat's token and the last seq seen, and
// reconnects by itself with exponential backoff after a dropped connection.

import { STOP_CODES } from "./errors";
import type { ClientMessage, ServerMessage } from "./protocol";

export const BACKOFF_BASE_MS = 500;
export const BACKOFF_MAX_MS = 15_000;
export const PING_MS = 20_000;

/** Errors after which trying again by itself cannot help: the connection stops (lib/errors.ts). */
export const FATAL_CODES = STOP_CODES;

/**
 * The wait before reconnect attempt ``attempt`` (0, 1, 2, ...): doubling from 0.5 s up to 15 s,
 * with "equal jitter" (half fixed, half random) so that a table's clients do not return at once.
 */
export function backoffDelay(
  attempt: number,
  random: () => number = Math.random,
  base = BACKOFF_BASE_MS,
  max = BACKOFF_MAX_MS,
): number {
  const ceiling = Math.min(max, base * 2 ** Math.max(0, attempt));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/** The part of a WebSocket this module uses (tests pass a fake). */
export interface SocketLike {
  readyState: number;
  onopen: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onclose: ((ev: unknown) => void) | null;
  onerror: ((ev: unknown) => void) | null;
  send(data: string): void;
  close(code?: number, reason?: string): void;
}

export type Status =
  | { state: "connecting" }
  | { state: "open" }
  | { state: "waiting"; retryAt: number }
  | { state: "closed"; code?: string };

export interface ConnectionOptions {
  url: string;
  hello: () => ClientMessage;
  onMessage: (msg: ServerMessage) => void;
  onStatus: (status: Status) => void;
  /** Called once a hello is answered by welcome: the place to resend a pending action. */
  onWelcome?: () => void;
  socket?: (url: string) => SocketLike;
  random?: () => number;
  now?: () => number;
  setTimer?: (fn: () => void, ms: number) => unknown;
  clearTimer?: (handle: unknown) => void;
}

const OPEN = 1;

export class Connection {
  private ws: SocketLike | null = null;
  private attempt = 0;
  private retry: unknown = null;
  private ping: unknown = null;
  private stopped = false;
  private readonly o: Required<ConnectionOptions>;

  constructor(options: ConnectionOptions) {
    this.o = {
      socket: (url) => new WebSocket(url) as unknown as SocketLike,
      random: Math.random,
      now: Date.now,
      setTimer: (fn, ms) => setTimeout(fn, ms),
      clearTimer: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
      onWelcome: () => {},
      ...options,
    };
  }

  /** Reconnect attempts made since the last welcome. */
  get attempts(): number {
    return this.attempt;
  }

  start(): void {
    this.stopped = false;
    this.open();
  }

  /** Close for good (leaving the table). */
  stop(): void {
    this.stopped = true;
    this.cancelTimers();
    const ws = this.ws;
    this.ws = null;
    if (ws) {
      ws.onclose = null;
      ws.close(1000, "bye");
    }
    this.o.onStatus({ state: "closed" });
  }

  /** Skip the wait and reconnect now (a button, the browser coming back online). */
  retryNow(): void {
    if (this.stopped || this.ws) return;
    this.cancelTimers();
    this.open();
  }

  /** Drop the socket as a network failure would (tests, and a stuck connection). */
  drop(): void {
    this.ws?.close(4000, "dropped");
  }

  /** Send now; false when the socket is not open (the caller keeps what it must resend). */
  send(msg: ClientMessage): boolean {
    if (!this.ws || this.ws.readyState !== OPEN) return false;
    this.ws.send(JSON.stringify(msg));
    return true;
  }

  private open(): void {
    this.o.onStatus({ state: "connecting" });
    const ws = this.o.socket(this.o.url);
    this.ws = ws;
    ws.onopen = () => {
      ws.send(JSON.stringify(this.o.hello()));
      this.startPing();
    };
    ws.onmessage = (ev) => this.receive(ev.data);
    ws.onerror = () => {};
    ws.onclose = () => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.cancelTimers();
      if (this.stopped) return;
      const wait = backoffDelay(this.attempt++, this.o.random);
      this.o.onStatus({ state: "waiting", retryAt: this.o.now() + wait });
      this.retry = this.o.setTimer(() => {
        this.retry = null;
        if (!this.stopped) this.open();
      }, wait);
    };
  }

  private receive(data: unknown): void {
    let msg: ServerMessage;
    try {
      msg = JSON.parse(String(data)) as ServerMessage;
    } catch {
      return;
    }
    if (msg.type === "welcome") {
      this.attempt = 0;
      this.o.onStatus({ state: "open" });
    }
    this.o.onMessage(msg);
    if (msg.type === "welcome") this.o.onWelcome();
    if (msg.type === "error" && FATAL_CODES.has(msg.code)) {
      this.stopped = true;
      this.cancelTimers();
      const ws = this.ws;
      this.ws = null;
      if (ws) {
        ws.onclose = null;
        ws.close(1000, msg.code);
      }
      this.o.onStatus({ state: "closed", code: msg.code });
    }
  }

  private startPing(): void {
    if (this.ping !== null) this.o.clearTimer(this.ping);
    const tick = () => {
      this.send({ type: "ping" });
      this.ping = this.o.setTimer(tick, PING_MS);
    };
    this.ping = this.o.setTimer(tick, PING_MS);
  }

  private cancelTimers(): void {
    if (this.retry !== null) this.o.clearTimer(this.retry);
    if (this.ping !== null) this.o.clearTimer(this.ping);
    this.retry = null;
    this.ping = null;
  }
}
