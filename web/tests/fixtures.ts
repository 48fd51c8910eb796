// What the unit tests build their messages from.
import type { TableInfo, View } from "../src/lib/protocol";

/**
 * A view as engine/views.py renders it (shape taken from tests/goldens/boyo-3p-seed1.txt):
 * seat 0's, three players in Boyo's first round, every opening look done, seat 0 to act.
 */
export function view(over: Partial<View> = {}): View {
  return {
    seat: 0,
    preset: "boyo",
    players: 3,
    round: 1,
    phase: "turn_start",
    to_act: 0,
    first: 0,
    hands: [
      [true, true, true, true],
      [true, true, true, true],
      [true, true, true, true],
    ],
    top_discard: "4D",
    discard_size: 1,
    draw_size: 41,
    caller: null,
    final_turns_left: null,
    totals: [0, 0, 0],
    peeked: [true, true, true],
    sudden_death: [],
    holding: false,
    held: null,
    held_value: null,
    held_powers: [],
    powers: [],
    shown: {},
    last_round: null,
    winners: [],
    knowledge: null,
    ...over,
  };
}

/** A Boyo table in play, as the server describes it. */
export const table: TableInfo = {
  code: "ABC234",
  preset: "boyo",
  status: "playing",
  settings: { peek_seconds: 20, turn_seconds: 60 },
  host_seat: 0,
  rules: {},
  match: 1,
  seats: [],
};
