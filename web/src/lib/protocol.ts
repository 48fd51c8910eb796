// The wire format, as facedown/server/protocol.py, table.py and engine/views.py define it.
// The client renders these values; it decides no rule.

export type Phase =
  | "opening"
  | "turn_start"
  | "holding"
  | "taken"
  | "powers"
  | "turn_end"
  | "round_over"
  | "match_over";

export type Power = "peek" | "spy" | "swap";

/** A round's reveal (engine/scoring.py RoundResult.to_json). */
export interface RoundResult {
  round: number;
  hands: (string | null)[][];
  hand_totals: number[];
  round_scores: number[];
  totals: number[];
  caller: number | null;
  reasons: string[][];
}

/** What one seat may see now (engine/views.py view()). */
export interface View {
  seat: number | null;
  preset: string;
  players: number;
  round: number;
  phase: Phase;
  to_act: number | null;
  first: number;
  hands: boolean[][];
  top_discard: string | null;
  discard_size: number;
  draw_size: number;
  caller: number | null;
  final_turns_left: number | null;
  totals: number[];
  peeked: boolean[];
  holding: boolean;
  held: string | null;
  powers: Power[];
  shown: Record<string, string>;
  last_round: RoundResult | null;
  winners: number[];
  knowledge: Record<string, string> | null;
}

/** An engine action in its JSON form (engine/actions.py Action.to_json). */
export interface Action {
  by?: number;
  do: string;
  slots?: number[];
  slot?: number;
  target?: number;
  target_slot?: number;
}

/** One event as this seat may see it (engine/events.py Event.to_json). */
export interface GameEvent {
  type: string;
  by?: number;
  slots?: number[];
  target?: number;
  target_slot?: number;
  cards?: (string | null)[];
  seen?: (string | null)[];
  round?: number;
  winners?: number[];
  draw_size?: number;
  result?: RoundResult;
}

export interface SeatInfo {
  seat: number;
  kind: "human" | "bot" | "open";
  name: string | null;
  level: string | null;
  connected: boolean;
  bot_standin: boolean;
}

/** Public facts about a table (server/table.py table_info()). */
export interface TableInfo {
  code: string;
  preset: string;
  status: "lobby" | "playing" | "finished";
  settings: { peek_seconds: number; turn_seconds: number; [key: string]: unknown };
  host_seat: number | null;
  match: number;
  seats: SeatInfo[];
}

export type ServerMessage =
  | { type: "welcome"; v: number; seat: number | null; seq: number }
  | { type: "table"; seq: number; seat?: number | null; table: TableInfo }
  | {
      type: "snapshot";
      seq: number;
      view: View;
      legal: Action[];
      deadline: number | null;
      /** Every round of the match so far (snapshots only): the scoreboard after a reload. */
      rounds?: RoundResult[];
    }
  | {
      type: "event";
      seq: number;
      events: GameEvent[];
      view: View;
      legal: Action[];
      deadline: number | null;
    }
  | { type: "missed"; seq: number; events: GameEvent[] }
  | { type: "ack"; id?: string; seq: number }
  | { type: "error"; code: string; message: string; id?: string }
  | { type: "pong" };

export type BotLevel = "random" | "easy" | "medium" | "hard" | "expert";
export const BOT_LEVELS: BotLevel[] = ["random", "easy", "medium", "hard", "expert"];

export type ClientMessage =
  | { type: "hello"; v: 1; table: string; token: string | null; last_seq: number | null; spectate?: boolean }
  | { type: "action"; id: string; seq: number; action: Action }
  | { type: "ready" }
  | { type: "add_bot"; level: BotLevel; seat?: number }
  | { type: "remove_seat"; seat: number }
  | { type: "start" }
  | { type: "rematch" }
  | { type: "ping" };

/** A ruleset (engine/rules.py Ruleset.to_json), as GET /api/presets sends it. */
export interface Ruleset {
  name: string;
  call_name: string;
  deck: "zero_to_thirteen" | "standard";
  decks: number;
  jokers: boolean;
  values: Record<string, number>;
  powers: Record<string, Power[]>;
  power_timing: "holding" | "discard";
  explicit_end_turn: boolean;
  call_at_turn_start: boolean;
  call_after_action: boolean;
  tap: boolean;
  tap_penalty_cards: number;
  set_replace: boolean;
  failed_set: "discard_taken" | "keep_taken";
  undo_take_discard: boolean;
  return_taken_discard: boolean;
  hand_size: number;
  opening_peek: number;
  lowest_scores_zero: boolean;
  lowest_tie_caller_only: boolean;
  caller_strictly_lowest: boolean;
  caller_lowest_scores_zero: boolean;
  caller_penalty: number;
  caller_multiplier: number;
  shoot_the_moon: boolean;
  moon_points: number;
  hundred_rule: "none" | "once" | "always";
  hundred_reset: number;
  rounds: number | null;
  score_limit: number | null;
  sudden_death: boolean;
  first_player: "rotate" | "round_winner";
  recollection: boolean;
}

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
