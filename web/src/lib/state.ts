// The client's state, and the one reducer that folds server messages into it.
// Pure functions of (state, message, now): the unit tests drive them with recorded frames.

import { advance, initialMotion, type Motion } from "./motion";
import type { Action, GameEvent, RoundResult, ServerMessage, TableInfo, View } from "./protocol";

/** How long a card shown to you stays face up (the opening peek: until READY or its timer). */
export const SHOW_MS = 3500;
export const LOG_LIMIT = 200;

/** Cards shown to this seat, face up until ``until`` (ms since the epoch). */
export interface Reveal {
  cards: Record<string, string>;
  until: number;
  opening: boolean;
  /** The opening peek the timer played for this seat: its cards wait, face down, until the
   * player is looking at the table (``held``), then stay up for a peek's time or until READY. */
  missed?: boolean;
  held?: boolean;
}

export interface LogEntry {
  seq: number;
  n: number;
  event: GameEvent;
  /** The first event of a move a timer played: whose time ran out, and the move. */
  timedOut?: { seat: number; action: Action };
}

export interface Pending {
  id: string;
  seq: number;
  action: Action;
}

export interface ClientState {
  seat: number | null;
  seq: number | null;
  table: TableInfo | null;
  view: View | null;
  legal: Action[];
  /** The most cards this seat may replace as one set now (0: none). */
  sets: number;
  deadline: number | null;
  /** Seconds the server's clock is ahead of this one (estimated from fresh deadlines). */
  skew: number;
  log: LogEntry[];
  logCount: number;
  pending: Pending | null;
  error: { code: string; message: string } | null;
  reveal: Reveal | null;
  /** The last move the table played because a timer ran out (until the next change). */
  timedOut: { seat: number; action: Action } | null;
  welcomed: boolean;
  /** Every round result this client has seen in this match, by round number: the scoreboard. */
  rounds: Record<number, RoundResult>;
  /** The cards the latest events moved, for the table to animate. */
  motion: Motion;
}

export function initialState(): ClientState {
  return {
    seat: null,
    seq: null,
    table: null,
    view: null,
    legal: [],
    sets: 0,
    deadline: null,
    skew: 0,
    log: [],
    logCount: 0,
    pending: null,
    error: null,
    reveal: null,
    timedOut: null,
    welcomed: false,
    rounds: {},
    motion: initialMotion(),
  };
}

/** Events after which a card shown earlier no longer lies where it was shown. */
function movedPlaces(ev: GameEvent): string[] | "all" {
  const by = ev.by ?? -1;
  switch (ev.type) {
    case "round_started":
      return "all";
    case "replaced":
    case "tap_hit":
      return ["held", ...(ev.slots ?? []).map((s) => `${by}:${s}`)];
    case "swapped":
      return [...(ev.slots ?? []).map((s) => `${by}:${s}`), `${ev.target}:${ev.target_slot}`];
    case "discarded":
    case "kept":
    case "set_failed":
      return ["held"];
    default:
      return [];
  }
}

/** Events that are nobody's move: the table moving on by itself. */
const NOT_MOVES = new Set(["round_started", "play_started", "turn_started", "reshuffled", "round_over", "match_over"]);

/** Whether ``seat`` made a move among ``events``: a card you were shown is up until your next
 *  move at the latest (the server stopped showing it then; it is yours to remember). */
function movedBy(events: GameEvent[], seat: number | null): boolean {
  return seat !== null && events.some((e) => e.by === seat && !NOT_MOVES.has(e.type));
}

function forget(reveal: Reveal | null, events: GameEvent[], seat: number | null = null): Reveal | null {
  if (!reveal) return null;
  if (movedBy(events, seat)) return null;
  const cards = { ...reveal.cards };
  for (const ev of events) {
    const moved = movedPlaces(ev);
    if (moved === "all") return null;
    for (const place of moved) delete cards[place];
  }
  return Object.keys(cards).length ? { ...reveal, cards } : null;
}

function sameCards(a: Record<string, string>, b: Record<string, string>): boolean {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => a[k] === b[k]);
}

/** How long a round phase's timer runs when it starts fresh (null: not known to the client). */
function freshLength(view: View, table: TableInfo | null): number | null {
  if (!table) return null;
  if (view.phase === "opening") return Number(table.settings.peek_seconds);
  if (view.to_act !== null) return Number(table.settings.turn_seconds);
  return null;
}

/** A round_over event as the round result it carries. */
export function roundOf(ev: GameEvent): RoundResult | null {
  if (ev.type !== "round_over" || !ev.result) return null;
  return ev.result;
}

function keepRounds(state: ClientState, events: GameEvent[]): void {
  for (const ev of events) {
    const result = roundOf(ev);
    if (result) state.rounds = { ...state.rounds, [result.round]: result };
  }
}

/** An event as the log keeps it: a card shown to this seat alone (``seen``) is on screen for
 *  its moment (the view's ``shown``), never kept past it, unless the table has Recollection
 *  (``recollection``: the server sends the seat's knowledge). */
export function forLog(event: GameEvent, recollection: boolean): GameEvent {
  if (recollection || event.seen === undefined) return event;
  const { seen: _seen, ...rest } = event;
  return rest;
}

/** Whether the table shows this seat what it has learned (Recollection): its view has it. */
function hasRecollection(view: View | null): boolean {
  return view !== null && view.knowledge !== null && view.knowledge !== undefined;
}

function appendLog(
  state: ClientState,
  seq: number,
  given: GameEvent[],
  timedOut: { seat: number; action: Action } | null = null,
  recollection = hasRecollection(state.view),
): void {
  keepRounds(state, given);
  if (!given.length) return;
  const events = given.map((e) => forLog(e, recollection));
  let n = state.logCount;
  const added: LogEntry[] = events.map((event, i) =>
    i === 0 && timedOut ? { seq, n: n++, event, timedOut } : { seq, n: n++, event },
  );
  state.logCount = n;
  state.log = [...state.log, ...added].slice(-LOG_LIMIT);
}

function takeView(
  state: ClientState,
  msg: { seq: number; view: View; legal: Action[]; sets: number; deadline: number | null },
  fresh: boolean,
  now: number,
  events: GameEvent[] = [],
): void {
  const before = state.deadline;
  state.view = msg.view;
  state.legal = msg.legal;
  state.sets = msg.sets;
  state.deadline = msg.deadline;
  state.seq = msg.seq;
  if (msg.view.seat !== null) state.seat = msg.view.seat;
  if (msg.view.round === 1 && msg.view.phase === "opening") state.rounds = {};
  const last = msg.view.last_round;
  if (last && !state.rounds[last.round]) state.rounds = { ...state.rounds, [last.round]: last };
  if (fresh && msg.deadline !== null && msg.deadline !== before) {
    // A timer that just (re)started ran for its full length on the server: that tells the skew.
    const length = freshLength(msg.view, state.table);
    if (length !== null) state.skew = msg.deadline - length - now / 1000;
  }
  const shown = msg.view.shown;
  const missed = fresh && missedPeek(state, events);
  if (shown && Object.keys(shown).length) {
    if (missed) {
      state.reveal = { cards: { ...shown }, opening: true, until: Infinity, missed: true, held: true };
    } else if (state.reveal?.missed && sameCards(state.reveal.cards, shown)) {
      // The same cards still shown: the peek the timer played keeps waiting for the player.
    } else if (!state.reveal || !sameCards(state.reveal.cards, shown) || fresh) {
      // The opening peek stays up until READY or the opening timer; when this look was the
      // last one, play has started and the cards stay up a little longer than a moment.
      const lastLook = events.some((e) => e.type === "opening_peeked" && e.by === state.seat);
      const opening = msg.view.phase === "opening" || lastLook;
      const openingEnd =
        msg.view.phase === "opening" && msg.deadline !== null
          ? (msg.deadline - state.skew) * 1000
          : now + 3 * SHOW_MS;
      state.reveal = {
        cards: { ...shown },
        opening,
        until: opening ? Math.max(openingEnd, now + SHOW_MS) : now + SHOW_MS,
      };
    }
  }
  // Once play has started, the opening look is up a little longer than a moment, not until
  // the opening timer would have run out (READY is gone then).
  if (state.reveal?.opening && msg.view.phase !== "opening") {
    const end = now + 3 * SHOW_MS;
    if (state.reveal.until > end) state.reveal = { ...state.reveal, until: end };
  }
}

/** This seat's opening peek was among ``events``, played because its time ran out. */
function missedPeek(state: ClientState, events: GameEvent[]): boolean {
  const out = state.timedOut;
  return (
    out !== null &&
    out.seat === state.seat &&
    out.action.do === "opening_peek" &&
    events.some((e) => e.type === "opening_peeked" && e.by === state.seat)
  );
}

/** This seat was forfeited (three missed deadlines, or a ranked match left past its grace
 *  period): its player is out of the match and watches the rest of it as a spectator does.  The
 *  server sends no card of the seat any more (its view has no ``shown``, ``knowledge`` or held
 *  card, its events no ``seen``); what this client kept of the seat's cards goes too: a card on
 *  screen (a look the timer played, waiting for the player, included), the seat's knowledge,
 *  the cards in the log (Recollection), and any move of its own.  A rematch is the player's
 *  again (the table's next match says the seat is no longer forfeited). */
function leaveMatch(state: ClientState): void {
  state.reveal = null;
  state.legal = [];
  state.sets = 0;
  if (state.view) state.view = { ...state.view, shown: {}, knowledge: null };
  if (state.log.some((e) => e.event.seen !== undefined)) {
    state.log = state.log.map((e) => (e.event.seen === undefined ? e : { ...e, event: forLog(e.event, false) }));
  }
}

/** Fold one server message into the state (a new state object; the old one is unchanged). */
export function reduce(prev: ClientState, msg: ServerMessage, now: number): ClientState {
  const state: ClientState = { ...prev };
  switch (msg.type) {
    case "welcome":
      state.welcomed = true;
      state.seat = msg.seat;
      return state;
    case "table":
      if (state.table && msg.table.match !== state.table.match) state.rounds = {};
      state.table = msg.table;
      // Seats are renumbered when the host removes one: the server says which is ours now.
      if (msg.seat !== undefined) state.seat = msg.seat;
      if (state.seat !== null && msg.table.seats[state.seat]?.forfeited) leaveMatch(state);
      return state;
    case "missed":
      if (state.seq === null || msg.seq > state.seq) {
        appendLog(state, msg.seq, msg.events);
        state.reveal = forget(state.reveal, msg.events, state.seat);
        state.seq = msg.seq;
      }
      return state;
    case "snapshot": {
      // The same seq, and what the seat was being shown is gone: its moment is over (it said
      // READY on another device), so this one lets the cards go too.
      const ended =
        state.seq === msg.seq &&
        Object.keys(state.view?.shown ?? {}).length > 0 &&
        Object.keys(msg.view.shown).length === 0;
      if (state.seq === null || msg.seq >= state.seq || state.view === null) {
        if (msg.rounds) {
          state.rounds = Object.fromEntries(msg.rounds.map((r) => [r.round, r]));
        }
        // A page loaded afresh: its log starts with the latest public events (never twice).
        if (msg.recent && state.log.length === 0) {
          for (const batch of msg.recent) appendLog(state, batch.seq, batch.events);
        }
        takeView(state, msg, false, now);
      }
      if (ended) state.reveal = null;
      return state;
    }
    case "event": {
      const isNew = state.seq === null || msg.seq > state.seq;
      if (isNew) {
        state.timedOut = msg.timed_out ?? null;
        appendLog(state, msg.seq, msg.events, state.timedOut, hasRecollection(msg.view));
        state.reveal = forget(state.reveal, msg.events, state.seat);
        // Events seen live move cards; missed ones and snapshots just show where they are.
        state.motion = advance(state.motion, msg.seq, msg.events);
      }
      if (isNew || msg.seq === state.seq) takeView(state, msg, isNew, now, msg.events);
      // The event that applied this seat's own action answers it (a resent one gets an ack).
      if (state.pending && msg.ack === state.pending.id) state.pending = null;
      return state;
    }
    case "ack":
      if (state.pending && (msg.id === undefined || msg.id === state.pending.id)) {
        state.pending = null;
      }
      return state;
    case "error":
      if (state.pending && (msg.id === undefined || msg.id === state.pending.id)) {
        state.pending = null;
      }
      state.error = { code: msg.code, message: msg.message };
      return state;
    default:
      return state;
  }
}

/** The cards face up for this seat at ``now``: a fresh reveal, and what it may remember. */
export function visibleCards(state: ClientState, now: number): Record<string, string> {
  const out: Record<string, string> = {};
  if (state.reveal && !state.reveal.held && now < state.reveal.until) Object.assign(out, state.reveal.cards);
  return out;
}

/** The player looks at the table now: the cards of a peek the timer played for them show
 * for ``ms`` (or until READY). */
export function showMissed(state: ClientState, now: number, ms: number): ClientState {
  if (!state.reveal?.held) return state;
  return { ...state, reveal: { ...state.reveal, held: false, until: now + ms } };
}

/** Cards shown to this seat stay face up until hidden (pass-and-play), not until a time: a
 * reveal still ends with the seat's next move or the card moving (``forget``). */
export function heldUp(state: ClientState): ClientState {
  const reveal = state.reveal;
  if (!reveal || reveal.held || reveal.until === Infinity) return state;
  return { ...state, reveal: { ...reveal, until: Infinity } };
}

/** The opening peek is over for this client: READY hides the cards. */
export function hideReveal(state: ClientState): ClientState {
  return { ...state, reveal: null };
}

/**
 * The seat's moment is over (its look ran out, READY, or the player hid it): the cards it was
 * shown leave the client's state, the reveal and the view's ``shown`` alike, so nothing kept
 * in memory holds them any longer.  (The client then tells the server, which stops sending
 * them: lib/client.svelte.ts.)  The card the seat holds is its decision, not a moment: it stays.
 */
export function endMoment(state: ClientState): ClientState {
  const view = state.view;
  if (view === null || !Object.keys(view.shown ?? {}).length) return { ...state, reveal: null };
  return { ...state, reveal: null, view: { ...view, shown: {} } };
}

/** Whether a reveal's time is up at ``now`` (one waiting for the player, or held up until
 *  hidden, never is). */
export function revealOver(state: ClientState, now: number): boolean {
  const reveal = state.reveal;
  return reveal !== null && !reveal.held && reveal.until !== Infinity && now >= reveal.until;
}

/** Seconds left on the table's timer at ``now`` (null when no timer runs). */
export function secondsLeft(state: ClientState, now: number): number | null {
  if (state.deadline === null) return null;
  return Math.max(0, state.deadline - state.skew - now / 1000);
}

/** Record an action as sent and waiting for its answer (its event, an ack, or an error). */
export function withPending(state: ClientState, pending: Pending): ClientState {
  return { ...state, pending, error: null };
}

export function clearError(state: ClientState): ClientState {
  return { ...state, error: null };
}
