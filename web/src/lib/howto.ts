// The how-to pages' pictures and worked examples: web/src/lib/howto.json, the one data file
// the page draws and tests/test_howto_examples.py scores with the engine (every hand total,
// round score and reason there is the engine's).

import data from "./howto.json";

export interface Turn {
  /** The top of the discard pile at the start. */
  top: string;
  /** The card drawn, and the power it gives. */
  drawn: string;
  power: "peek" | "spy" | "swap";
  /** The card the power shows (null for a swap, which shows nothing). */
  seen: string | null;
  /** Your card the drawn one replaces, and what it was. */
  slot: number;
  old: string;
}

export interface Tap {
  top: string;
  mine: string;
  slot: number;
}

export interface Example {
  hands: string[][];
  caller: number;
  hand_totals: number[];
  round_scores: number[];
  reasons: string[][];
}

export interface HowToPage {
  turn: Turn;
  tap?: Tap;
  examples: Example[];
}

const pages = data as unknown as Record<string, HowToPage>;

/** The walk-through and worked examples of a preset (null for one without). */
export function howToPage(preset: string): HowToPage | null {
  return pages[preset] ?? null;
}

/** The names of the example players (the same in every language). */
export const EXAMPLE_NAMES = ["Ann", "Ben", "Cleo", "Dev"];
