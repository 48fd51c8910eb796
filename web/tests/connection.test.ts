import { describe, expect, it } from "vitest";
import {
  ANSWER_MS,
  BACKOFF_MAX_MS,
  Connection,
  HELLO_MS,
  OPEN_MS,
  PING_MS,
  backoffDelay,
  type SocketLike,
  type Status,
} from "../src/lib/connection";
import type { ClientMessage, ServerMessage } from "../src/lib/protocol";

describe("backoffDelay", () => {
  it("doubles from half a second and stops at the ceiling", () => {
    const top = () => 1; // the random part at its largest
    expect([0, 1, 2, 3, 4].map((a) => backoffDelay(a, top))).toEqual([500, 1000, 2000, 4000, 8000]);
    expect(backoffDelay(30, top)).toBe(BACKOFF_MAX_MS);
  });

  it("keeps at least half of the wait when the random part is nothing", () => {
    expect(backoffDelay(3, () => 0)).toBe(2000);
  });
});

class FakeSocket implements SocketLike {
  readyState = 0;
  sent: ClientMessage[] = [];
  onopen: ((ev: unknown) => void) | null = null;
  onmessage: ((ev: { data: unknown }) => void) | null = null;
  onclose: ((ev: unknown) => void) | null = null;
  onerror: ((ev: unknown) => void) | null = null;
  send(data: string) {
    this.sent.push(JSON.parse(data) as ClientMessage);
  }
  close() {
    this.readyState = 3;
    this.onclose?.({});
  }
  open() {
    this.readyState = 1;
    this.onopen?.({});
  }
  receive(msg: ServerMessage) {
    this.onmessage?.({ data: JSON.stringify(msg) });
  }
}

function harness(lastSeq: () => number | null) {
  const sockets: FakeSocket[] = [];
  const timers: { fn: () => void; ms: number }[] = [];
  const statuses: Status[] = [];
  const messages: ServerMessage[] = [];
  let welcomes = 0;
  const conn = new Connection({
    url: "ws://test/ws",
    hello: () => ({ type: "hello", v: 1, table: "ABC234", token: "tok", last_seq: lastSeq() }),
    onMessage: (m) => messages.push(m),
    onStatus: (s) => statuses.push(s),
    onWelcome: () => welcomes++,
    socket: () => {
      const s = new FakeSocket();
      sockets.push(s);
      return s;
    },
    random: () => 1,
    now: () => 0,
    setTimer: (fn, ms) => {
      const t = { fn, ms };
      timers.push(t);
      return t;
    },
    clearTimer: (h) => {
      const i = timers.indexOf(h as { fn: () => void; ms: number });
      if (i >= 0) timers.splice(i, 1);
    },
  });
  return { conn, sockets, timers, statuses, messages, welcomes: () => welcomes };
}

describe("Connection", () => {
  it("says hello with the token and the last seq, and again after a drop, backing off", () => {
    let seq: number | null = null;
    const h = harness(() => seq);
    h.conn.start();
    h.sockets[0].open();
    expect(h.sockets[0].sent[0]).toEqual({ type: "hello", v: 1, table: "ABC234", token: "tok", last_seq: null });
    h.sockets[0].receive({ type: "welcome", v: 1, seat: 1, seq: 4 });
    expect(h.welcomes()).toBe(1);
    seq = 4;

    h.sockets[0].close(); // the network drops
    expect(h.statuses.at(-1)).toEqual({ state: "waiting", retryAt: 500 });
    const retry = h.timers.find((t) => t.ms === 500)!;
    retry.fn();
    h.sockets[1].close(); // the server is still away: the wait doubles
    expect(h.statuses.at(-1)).toEqual({ state: "waiting", retryAt: 1000 });
    h.timers.find((t) => t.ms === 1000)!.fn();
    h.sockets[2].open();
    expect(h.sockets[2].sent[0]).toMatchObject({ type: "hello", last_seq: 4, token: "tok" });
    h.sockets[2].receive({ type: "welcome", v: 1, seat: 1, seq: 6 });
    expect(h.conn.attempts).toBe(0); // a welcome resets the backoff
    expect(h.welcomes()).toBe(2);
  });

  it("stops for good on an unknown table or a bad token", () => {
    const h = harness(() => null);
    h.conn.start();
    h.sockets[0].open();
    h.sockets[0].receive({ type: "error", code: "unknown_table", message: "there is no table" });
    expect(h.statuses.at(-1)).toEqual({ state: "closed", code: "unknown_table" });
    expect(h.sockets).toHaveLength(1);
    expect(h.timers.filter((t) => t.ms !== PING_MS)).toHaveLength(0);
  });

  it("stops on an idle close or a full gallery, and start() watches again", () => {
    for (const code of ["idle", "too_many_spectators", "table_closed", "table_unavailable"]) {
      const h = harness(() => 7);
      h.conn.start();
      h.sockets[0].open();
      h.sockets[0].receive({ type: "error", code, message: "closing" });
      h.sockets[0].close(); // the server closes too: no reconnect by itself
      expect(h.statuses.at(-1)).toEqual({ state: "closed", code });
      expect(h.sockets).toHaveLength(1);
      h.conn.start(); // the page's "Watch again" / "Try again"
      h.sockets[1].open();
      expect(h.sockets[1].sent[0]).toMatchObject({ type: "hello", last_seq: 7 });
    }
  });

  it("keeps the connection on rate_limited (the page says to wait)", () => {
    const h = harness(() => null);
    h.conn.start();
    h.sockets[0].open();
    h.sockets[0].receive({ type: "error", code: "rate_limited", message: "slow down" });
    expect(h.statuses.some((s) => s.state === "closed")).toBe(false);
    expect(h.sockets[0].readyState).toBe(1); // still open
    expect(h.messages.at(-1)).toMatchObject({ code: "rate_limited" }); // shown by the page
  });

  it("does not reconnect after stop()", () => {
    const h = harness(() => null);
    h.conn.start();
    h.sockets[0].open();
    h.conn.stop();
    expect(h.sockets).toHaveLength(1);
    expect(h.statuses.at(-1)).toEqual({ state: "closed" });
  });

  it("refuses to send while the socket is not open", () => {
    const h = harness(() => null);
    h.conn.start();
    expect(h.conn.send({ type: "ping" })).toBe(false);
    h.sockets[0].open();
    expect(h.conn.send({ type: "ping" })).toBe(true);
  });

  it("gives up a socket whose server sends nothing after an action, and says hello again", () => {
    const h = harness(() => 9);
    h.conn.start();
    h.sockets[0].open();
    h.sockets[0].receive({ type: "welcome", v: 1, seat: 0, seq: 9 });
    expect(h.timers.some((t) => t.ms === HELLO_MS)).toBe(false); // the welcome came in time
    h.conn.send({ type: "action", id: "a1", seq: 9, action: { do: "draw" } });
    const due = h.timers.find((t) => t.ms === ANSWER_MS)!;
    due.fn(); // the process stalled: nothing came back
    expect(h.sockets[0].readyState).toBe(3); // abandoned, no close handshake waited for
    expect(h.statuses.at(-1)).toEqual({ state: "waiting", retryAt: 500 });
    h.timers.find((t) => t.ms === 500)!.fn();
    h.sockets[1].open();
    expect(h.sockets[1].sent[0]).toMatchObject({ type: "hello", last_seq: 9 });
    h.sockets[1].receive({ type: "welcome", v: 1, seat: 0, seq: 9 });
    expect(h.welcomes()).toBe(2); // where the page resends its action with the same id
    // A frame from the old socket after it was given up changes nothing.
    h.sockets[0].receive({ type: "ack", id: "a1", seq: 10 } as ServerMessage);
    expect(h.messages.filter((m) => m.type === "ack")).toHaveLength(0);
  });

  it("keeps a socket whose server answers in time", () => {
    const h = harness(() => null);
    h.conn.start();
    h.sockets[0].open();
    h.sockets[0].receive({ type: "welcome", v: 1, seat: 0, seq: 0 });
    h.conn.send({ type: "ping" });
    h.sockets[0].receive({ type: "pong" } as ServerMessage);
    expect(h.timers.some((t) => t.ms === ANSWER_MS)).toBe(false);
    expect(h.sockets).toHaveLength(1);
    expect(h.sockets[0].readyState).toBe(1);
  });

  it("gives up a socket that never opens (a process that accepts and stalls) within OPEN_MS", () => {
    const h = harness(() => null);
    h.conn.start();
    expect(h.timers.some((t) => t.ms === HELLO_MS)).toBe(false);
    h.timers.find((t) => t.ms === OPEN_MS)!.fn(); // not even opened
    expect(h.statuses.at(-1)).toEqual({ state: "waiting", retryAt: 500 });
    h.timers.find((t) => t.ms === 500)!.fn();
    expect(h.sockets).toHaveLength(2);
  });

  it("gives an opened socket HELLO_MS for its welcome (a takeover may come first)", () => {
    const h = harness(() => null);
    h.conn.start();
    h.sockets[0].open();
    expect(h.timers.some((t) => t.ms === OPEN_MS)).toBe(false); // cleared on opening
    h.timers.find((t) => t.ms === HELLO_MS)!.fn(); // opened, but the hello is never welcomed
    expect(h.sockets[0].readyState).toBe(3);
    expect(h.statuses.at(-1)).toEqual({ state: "waiting", retryAt: 500 });
  });

  it("pings a quiet server, and only a quiet one", () => {
    const h = harness(() => null);
    h.conn.start();
    h.sockets[0].open();
    h.sockets[0].receive({ type: "welcome", v: 1, seat: 0, seq: 0 });
    const quiet = () => h.timers.filter((t) => t.ms === PING_MS);
    expect(quiet()).toHaveLength(1);
    h.sockets[0].receive({ type: "pong" } as ServerMessage); // a frame: the quiet time restarts
    expect(quiet()).toHaveLength(1);
    quiet()[0].fn(); // PING_MS without a frame
    expect(h.sockets[0].sent.at(-1)).toEqual({ type: "ping" });
    expect(h.timers.some((t) => t.ms === ANSWER_MS)).toBe(true); // its pong is due
  });
});
