// What the game screen's hands need to know about each card place ("owner:slot"): the
// components that draw the hands (OtherSeats, MyHand) ask it, Game answers from the table.

import type { GameEvent } from "./protocol";

/** One card place's state as the table shows it, and the click on it. */
export interface CardPlaces {
  /** The face shown (null: face down). */
  face(owner: number, slot: number): string | null;
  /** The words a screen reader reads for the card. */
  label(owner: number, slot: number): string;
  /** Whether the card can be chosen in this step. */
  clickable(owner: number, slot: number): boolean;
  /** Whether the card is picked in the current mode (a swap's target, your cards of a set). */
  picked(owner: number, slot: number): boolean;
  /** Whether the latest events touched it (it glows for a moment). */
  touched(owner: number, slot: number): boolean;
  /** Whether this seat knows it (Recollection). */
  remembered(owner: number, slot: number): boolean;
  click(owner: number, slot: number): void;
}

/** The card places an event touched, as "owner:slot". */
export function placesOf(ev: GameEvent): string[] {
  const by = ev.by ?? -1;
  const own = (ev.slots ?? []).map((s) => `${by}:${s}`);
  if (ev.type === "swapped") return [...own, `${ev.target}:${ev.target_slot}`];
  if (ev.type === "spied") return [`${ev.target}:${ev.target_slot}`];
  if (["replaced", "peeked", "tap_hit", "tap_missed", "penalty", "set_failed", "kept"].includes(ev.type)) return own;
  return [];
}
