// Cards moving between places: what the latest events moved from where to where.
// Pure functions of the events (the reducer keeps the result); the table animates each flight
// with Svelte's crossfade, sending from the place a card left and receiving where it arrived.

import type { GameEvent } from "./protocol";

/** Where a card can be: the draw pile, the discard pile, a seat's held card, a hand slot. */
export type Place = string;

export const DRAW: Place = "draw";
export const DISCARD: Place = "discard";

export function heldPlace(seat: number): Place {
  return `held:${seat}`;
}

export function slotPlace(seat: number, slot: number): Place {
  return `${seat}:${slot}`;
}

/** One card's way from one place to another; ``key`` pairs the leaving and arriving card. */
export interface Flight {
  key: string;
  from: Place;
  to: Place;
}

export interface Motion {
  /** The seq of the events the flights come from. */
  seq: number;
  flights: Flight[];
  /**
   * How often each place had a card arrive or leave: the table draws a place's card anew
   * when this changes, so that the old card can fly off and the new one fly in.
   */
  gens: Record<Place, number>;
}

export function initialMotion(): Motion {
  return { seq: -1, flights: [], gens: {} };
}

/** The flights of one batch of events (the events of one seq), in the order they happened. */
export function flightsOf(seq: number, events: GameEvent[]): Flight[] {
  const out: Flight[] = [];
  const fly = (from: Place, to: Place) => out.push({ key: `${seq}.${out.length}`, from, to });
  for (const ev of events) {
    const by = ev.by ?? -1;
    const slots = ev.slots ?? [];
    switch (ev.type) {
      case "drew":
        fly(DRAW, heldPlace(by));
        break;
      case "took_discard":
        fly(DISCARD, heldPlace(by));
        break;
      case "undid":
      case "discarded":
        fly(heldPlace(by), DISCARD);
        break;
      case "replaced":
        // The held card takes the first slot; the pile shows the last card put on it.
        if (slots.length) {
          fly(heldPlace(by), slotPlace(by, slots[0]));
          fly(slotPlace(by, slots[slots.length - 1]), DISCARD);
        }
        break;
      case "kept":
        for (const s of slots) fly(heldPlace(by), slotPlace(by, s));
        break;
      case "swapped":
        if (slots.length && ev.target !== undefined && ev.target_slot !== undefined) {
          const mine = slotPlace(by, slots[0]);
          const theirs = slotPlace(ev.target, ev.target_slot);
          fly(mine, theirs);
          fly(theirs, mine);
        }
        break;
      case "tap_hit":
        for (const s of slots) fly(slotPlace(by, s), DISCARD);
        break;
      case "penalty":
        for (const s of slots) fly(DRAW, slotPlace(by, s));
        break;
      default:
        break;
    }
  }
  return out;
}

/** The motion after a new batch of events: its flights, and every place they touched renewed. */
export function advance(motion: Motion, seq: number, events: GameEvent[]): Motion {
  const flights = flightsOf(seq, events);
  const gens = { ...motion.gens };
  const touched = new Set(flights.flatMap((f) => [f.from, f.to]));
  for (const place of touched) gens[place] = (gens[place] ?? 0) + 1;
  return { seq, flights, gens };
}

let unpaired = 0;

/** A key nothing else uses: the card appears or goes without flying. */
function alone(): string {
  unpaired += 1;
  return `alone.${unpaired}`;
}

/** The key for the card leaving ``place`` now (the flight it takes, if any). */
export function sendKey(motion: Motion, place: Place): string {
  return motion.flights.find((f) => f.from === place)?.key ?? alone();
}

/** What the card leaving ``place`` now flies with: its key, and the seq of the events that sent it. */
export function sendParams(motion: Motion, place: Place): { key: string; seq: number } {
  return { key: sendKey(motion, place), seq: motion.seq };
}

/** The key for the card arriving at ``place`` now (the flight that brings it, if any). */
export function receiveKey(motion: Motion, place: Place): string {
  return motion.flights.find((f) => f.to === place)?.key ?? alone();
}
