// From the legal actions the server sent to buttons and card clicks.  Every action the client
// sends is one of the listed legal actions, or a set replace of 2 up to the server's `sets`
// cards of its own (sets are a rule the server states, not a list): the browser never decides
// a rule by itself.

import { sameAction, type Action } from "./protocol";

export type Mode =
  | { kind: "none" }
  | { kind: "opening"; picked: number[] }
  | { kind: "tap" }
  | { kind: "peek" }
  | { kind: "spy" }
  | { kind: "swap"; mine: number | null; target: number | null; targetSlot: number | null }
  | { kind: "set"; picked: number[] };

export const NONE: Mode = { kind: "none" };

/** Buttons that send an action at once, in the order they are shown. */
export const SIMPLE = ["draw", "take_discard", "undo", "discard", "skip", "end_turn", "call", "next_round"];

export function has(legal: Action[], kind: string): boolean {
  return legal.some((a) => a.do === kind);
}

export function simpleActions(legal: Action[]): Action[] {
  const found = SIMPLE.map((kind) => legal.find((a) => a.do === kind)).filter(
    (a): a is Action => a !== undefined,
  );
  return found;
}

/** Slots of single-card replaces. */
export function replaceSlots(legal: Action[]): number[] {
  return legal.filter((a) => a.do === "replace" && a.slots?.length === 1).map((a) => a.slots![0]);
}

/** Whether a set of several cards may be offered for replacement (`sets`: the server's most). */
export function canReplaceSet(sets: number): boolean {
  return sets >= 2;
}

/** How many cards the opening peek looks at (0 when it is not open to this seat). */
export function openingCount(legal: Action[]): number {
  return legal.find((a) => a.do === "opening_peek")?.slots?.length ?? 0;
}

function sorted(xs: number[]): string {
  return [...xs].sort((a, b) => a - b).join(",");
}

function findSlots(legal: Action[], kind: string, slots: number[]): Action | null {
  const key = sorted(slots);
  return legal.find((a) => a.do === kind && sorted(a.slots ?? []) === key) ?? null;
}

/** The powers that may be used now, in a fixed order. */
export function powersOpen(legal: Action[]): ("peek" | "spy" | "swap")[] {
  return (["peek", "spy", "swap"] as const).filter((p) => has(legal, p));
}

/** Enter a mode from a button, or leave it when it is already on. */
export function toggleMode(mode: Mode, kind: "tap" | "peek" | "spy" | "swap" | "set"): Mode {
  if (mode.kind === kind) return NONE;
  if (kind === "swap") return { kind, mine: null, target: null, targetSlot: null };
  if (kind === "set") return { kind, picked: [] };
  return { kind };
}

/** Whether a card at (owner, slot) does something when clicked now. */
export function isClickable(legal: Action[], mode: Mode, me: number | null, owner: number, slot: number): boolean {
  if (me === null) return false;
  const mine = owner === me;
  switch (mode.kind) {
    case "tap":
      return mine && legal.some((a) => a.do === "tap" && a.slot === slot);
    case "peek":
      return mine && legal.some((a) => a.do === "peek" && a.slot === slot);
    case "spy":
      return !mine && legal.some((a) => a.do === "spy" && a.target === owner && a.slot === slot);
    case "swap":
      return mine
        ? legal.some((a) => a.do === "swap" && a.slot === slot)
        : legal.some((a) => a.do === "swap" && a.target === owner && a.target_slot === slot);
    case "set":
      return mine && replaceSlots(legal).includes(slot);
    case "opening":
    case "none":
      if (!mine) return false;
      if (openingCount(legal)) return legal.some((a) => a.do === "opening_peek" && a.slots?.includes(slot));
      return replaceSlots(legal).includes(slot);
  }
}

export interface Click {
  mode: Mode;
  send: Action | null;
}

function toggle(picked: number[], slot: number): number[] {
  return picked.includes(slot) ? picked.filter((s) => s !== slot) : [...picked, slot];
}

/** What a click on the card at (owner, slot) does: a new mode, and maybe an action to send. */
export function clickCard(legal: Action[], mode: Mode, me: number | null, owner: number, slot: number): Click {
  if (!isClickable(legal, mode, me, owner, slot)) return { mode, send: null };
  switch (mode.kind) {
    case "tap":
      return { mode: NONE, send: legal.find((a) => a.do === "tap" && a.slot === slot) ?? null };
    case "peek":
      return { mode: NONE, send: legal.find((a) => a.do === "peek" && a.slot === slot) ?? null };
    case "spy":
      return {
        mode: NONE,
        send: legal.find((a) => a.do === "spy" && a.target === owner && a.slot === slot) ?? null,
      };
    case "swap": {
      const next =
        owner === me ? { ...mode, mine: slot } : { ...mode, target: owner, targetSlot: slot };
      if (next.mine !== null && next.target !== null) {
        const send = legal.find(
          (a) =>
            a.do === "swap" && a.slot === next.mine && a.target === next.target && a.target_slot === next.targetSlot,
        );
        if (send) return { mode: NONE, send };
      }
      return { mode: next, send: null };
    }
    case "set":
      return { mode: { kind: "set", picked: toggle(mode.picked, slot) }, send: null };
    case "opening":
    case "none": {
      const need = openingCount(legal);
      if (need) {
        const picked = toggle(mode.kind === "opening" ? mode.picked : [], slot);
        if (picked.length === need) {
          const send = findSlots(legal, "opening_peek", picked);
          if (send) return { mode: NONE, send };
        }
        return { mode: { kind: "opening", picked }, send: null };
      }
      return { mode: NONE, send: findSlots(legal, "replace", [slot]) };
    }
  }
}

/** The replace of the picked set, when the server allows a set that large (`sets`). */
export function setAction(mode: Mode, sets: number): Action | null {
  if (mode.kind !== "set" || mode.picked.length < 2 || mode.picked.length > sets) return null;
  return { do: "replace", slots: [...mode.picked].sort((a, b) => a - b) };
}

/** Drop a mode whose actions are no longer legal (the table moved on). */
export function keepMode(legal: Action[], mode: Mode, sets = 0): Mode {
  switch (mode.kind) {
    case "tap":
    case "peek":
    case "spy":
    case "swap":
      return has(legal, mode.kind) ? mode : NONE;
    case "set":
      return canReplaceSet(sets) ? mode : NONE;
    case "opening":
      return openingCount(legal) ? mode : NONE;
    default:
      return mode;
  }
}

/** Which cards are picked in the current mode (for the pressed look). */
export function pickedSlots(mode: Mode): number[] {
  if (mode.kind === "opening" || mode.kind === "set") return mode.picked;
  if (mode.kind === "swap" && mode.mine !== null) return [mode.mine];
  return [];
}

/**
 * Actions whose meaning does not depend on what another player just did: refused as stale
 * (someone else's action landed first), they are sent again once if still legal.  The opening
 * peek races with everyone else's; a turn action is never resent, since the table it was chosen
 * for has changed.
 */
export const RESEND_WHEN_STALE = new Set(["opening_peek", "next_round"]);

export function resendAfterStale(action: Action, legal: Action[]): Action | null {
  if (!RESEND_WHEN_STALE.has(action.do)) return null;
  return legal.find((a) => sameAction(a, action)) ?? null;
}
