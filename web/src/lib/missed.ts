// The opening peek the timer played for you, kept in this tab across a reload of the page
// until you have looked at it.  The server shows a seat its opening cards only until the next
// move at the table, so a page reloaded before you looked (the scores of the last round still
// up, say) would otherwise never show them.  The tab keeps them only while they are yours to
// see: before you have looked, or during the look; never once it is over, nor past the round.

import type { KeyValue } from "./session";
import { initialState, type ClientState, type Reveal } from "./state";

const KEY = "facedown.missedPeek";

export interface Kept {
  code: string;
  seat: number;
  round: number;
  /** The seq when the cards were last known to lie where they were shown. */
  seq: number;
  cards: Record<string, string>;
  /** Until when the look lasts (ms since the epoch); null: not looked at yet. */
  until: number | null;
}

function load(store: KeyValue): Kept | null {
  try {
    const data = JSON.parse(store.getItem(KEY) ?? "null") as Kept | null;
    return data && typeof data.code === "string" && typeof data.cards === "object" ? data : null;
  } catch {
    return null;
  }
}

/** After each message: keep the peek while it waits or is being looked at, else let it go. */
export function keepMissed(store: KeyValue, code: string, state: ClientState): void {
  const reveal = state.reveal;
  const view = state.view;
  if (view === null || state.seat === null || state.seq === null) return; // no snapshot yet
  if (reveal?.missed) {
    const kept: Kept = {
      code,
      seat: state.seat,
      round: view.round,
      seq: state.seq,
      cards: reveal.cards,
      until: reveal.held ? null : reveal.until,
    };
    store.setItem(KEY, JSON.stringify(kept));
  } else if (load(store)?.code === code) {
    store.removeItem(KEY);
  }
}

/** The peek this tab kept for table ``code``, if any. */
export function loadMissed(store: KeyValue, code: string): Kept | null {
  const kept = load(store);
  return kept?.code === code ? kept : null;
}

/**
 * The state a reloaded page starts from when it kept a peek: the peek, face down, and the seq
 * at which its cards last lay where they were shown.  The page's hello says that seq, so the
 * server sends the events since (each moving card is then forgotten, as on any reconnect)
 * before its snapshot, or a fresh snapshot alone; ``confirmMissed`` decides then.
 */
export function startWith(kept: Kept | null): ClientState {
  const state = initialState();
  if (kept === null) return state;
  const reveal: Reveal = {
    cards: { ...kept.cards },
    opening: true,
    until: kept.until ?? Infinity,
    missed: true,
    held: kept.until === null,
  };
  return { ...state, seat: kept.seat, seq: kept.seq, reveal };
}

/**
 * At the first snapshot after a reload with a kept peek (``caughtUp``: the seq the page had
 * followed the events to before the snapshot): the peek stays when it is this seat's, of this
 * round, not looked at to the end, and its cards are known to lie where they were shown (every
 * event since was seen, or the round is still in its opening, when no card moves).
 */
export function confirmMissed(kept: Kept, state: ClientState, caughtUp: number | null, now: number): ClientState {
  const view = state.view;
  if (!state.reveal?.missed || view === null) return state;
  const same = kept.seat === state.seat && kept.round === view.round;
  const inPlace = view.phase === "opening" || caughtUp === state.seq;
  const open = kept.until === null || kept.until > now;
  return same && inPlace && open ? state : { ...state, reveal: null };
}
