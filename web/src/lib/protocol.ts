// The wire format. Its types are generated from the server's message models and the engine's
// observer (wire.ts, written by `facedown docs`); this module gives them the client's names and
// adds the two helpers the client needs. The client renders these values; it decides no rule.

import type * as W from "./wire";

export { BOT_LEVELS } from "./wire";
export type {
  BotLevel,
  ClientMessage,
  Phase,
  Ruleset,
  SeatInfo,
  ServerMessage,
  TableInfo,
  View,
} from "./wire";

export type Power = "peek" | "spy" | "swap";

/** A round's reveal (the engine's Reveal). */
export type RoundResult = W.Reveal;

/** One event as this seat may see it (the engine's SeenEvent). */
export type GameEvent = W.SeenEvent;

/** An engine action in its JSON form; ``by`` is left out of what a client sends. */
export type Action = Omit<W.ActionJson, "by"> & { by?: number };

/** The action without ``by``: what a client sends (the server knows the seat). */
export function wireAction(action: Action): Action {
  const { by: _by, ...rest } = action;
  return rest;
}

/** Two actions are the same move (``by`` aside; slot order aside for replace/opening_peek). */
export function sameAction(a: Action, b: Action): boolean {
  if (a.do !== b.do) return false;
  const sa = [...(a.slots ?? [])].sort((x, y) => x - y).join(",");
  const sb = [...(b.slots ?? [])].sort((x, y) => x - y).join(",");
  return (
    sa === sb &&
    (a.slot ?? -1) === (b.slot ?? -1) &&
    (a.target ?? -1) === (b.target ?? -1) &&
    (a.target_slot ?? -1) === (b.target_slot ?? -1)
  );
}
