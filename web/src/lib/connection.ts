// The WebSocket to a table: says hello with the seat's token and the last seq seen, and
// reconnects by itself with exponential backoff after a dropped connection.
//
// A connection to a server that stopped answering (a stalled process: its socket stays open)
// counts as dropped too: every frame the client sends (an action, a ping) must be followed by
// some frame within ANSWER_MS, and a hello by its welcome within HELLO_MS.  A quiet server is
// pinged after PING_MS without a frame, so a silent one is noticed within PING_MS + ANSWER_MS
// even by a player who is only waiting (at a busy table frames flow and no ping is needed).  Then the socket is
// abandoned and a new one opened through the same address (behind a load balancer, most likely
// a live process); the page resends its unanswered action with the same id after the welcome.

import { STOP_CODES } from "./errors";
import type { ClientMessage, ServerMessage } from "./protocol";

export const BACKOFF_BASE_MS = 500;
export const BACKOFF_MAX_MS = 15_000;
/** After this long without a frame from the server, the client pings it.  With ANSWER_MS, a
 *  stalled server is noticed within 4.5 s even by a page that only waits: before a cluster's
 *  lease (5 s) runs out, so the page is back as soon as another process can take the table.
 *  A quiet page costs the server a ping and a pong every 1.5 s. */
export const PING_MS = 1_500;
/** A server that sends nothing this long after a frame of ours is taken for gone. */
export const ANSWER_MS = 3_000;
/** From asking for a socket to its opening: a live process answers the upgrade at once, while a
 *  stalled one (or a load balancer waiting on one) leaves it pending. */
export const OPEN_MS = 2_000;
/** From the opened socket's hello to its welcome (a takeover may load the table first). */
export const HELLO_MS = 12_000;

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
  private answer: unknown = null; // the deadline for the server's next frame, while one is due
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

  /** Send now; false when the socket is not open (the caller keeps what it must resend).
   *  The server must answer with some frame within ANSWER_MS, else the socket is given up. */
  send(msg: ClientMessage): boolean {
    const ws = this.ws;
    if (!ws || ws.readyState !== OPEN) return false;
    ws.send(JSON.stringify(msg));
    this.expectAnswer(ws, ANSWER_MS);
    return true;
  }

  private open(): void {
    this.o.onStatus({ state: "connecting" });
    const ws = this.o.socket(this.o.url);
    this.ws = ws;
    // A process that accepts the connection but never opens the socket is given up soon; one
    // that opens it but never welcomes the hello, later (a takeover may wait out a lease).
    this.expectAnswer(ws, OPEN_MS);
    ws.onopen = () => {
      if (this.ws !== ws) return;
      this.clearAnswer();
      this.expectAnswer(ws, HELLO_MS);
      ws.send(JSON.stringify(this.o.hello()));
      this.startPing();
    };
    ws.onmessage = (ev) => {
      if (this.ws === ws) this.heard(ev.data);
    };
    ws.onerror = () => {};
    ws.onclose = () => this.lost(ws);
  }

  /** The socket ``ws`` is gone (closed, or given up as silent): try again after a wait. */
  private lost(ws: SocketLike): void {
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
  }

  /** Some frame must arrive on ``ws`` within ``ms`` (an earlier deadline still due stands). */
  private expectAnswer(ws: SocketLike, ms: number): void {
    if (this.answer !== null) return;
    this.answer = this.o.setTimer(() => {
      this.answer = null;
      if (this.ws !== ws) return;
      // Silent: no close handshake to wait for (a stalled peer would never finish it).
      ws.onclose = null;
      ws.onmessage = null;
      ws.close(4001, "silent");
      this.lost(ws);
    }, ms);
  }

  private clearAnswer(): void {
    if (this.answer !== null) this.o.clearTimer(this.answer);
    this.answer = null;
  }

  private heard(data: unknown): void {
    this.clearAnswer();
    if (this.ping !== null) this.startPing(); // the quiet time starts again
    this.receive(data);
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

  /** Ping after PING_MS of quiet (and again after each PING_MS while it lasts). */
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
    if (this.answer !== null) this.o.clearTimer(this.answer);
    this.retry = null;
    this.ping = null;
    this.answer = null;
  }
}
