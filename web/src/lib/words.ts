// Events and actions in words: "Maya drew", "Sam tapped a 7: hit", the label of a button.

import { cardFace, cardWords, hasText, keyUnder, translate, type Locale, type Params } from "./i18n";
import type { Action, GameEvent, SeatInfo } from "./protocol";

/** Who is who at the table, for the words: seat names, which seat is "you", the call's name,
 *  and whether the table has Recollection (only then may the log keep a card you were shown). */
export interface Cast {
  locale: Locale;
  me: number | null;
  names: string[];
  callName: string;
  recollection?: boolean;
}

/** Seat names made distinct: two "Bot (medium)" become "Bot (medium) 2" and "Bot (medium) 3". */
export function seatNames(names: string[]): string[] {
  return names.map((name, seat) =>
    name && names.filter((other) => other === name).length > 1 ? `${name} ${seat + 1}` : name,
  );
}

/** A seat's name as the player reads it: a bot the server named by its level ("Bot (easy)")
 *  is named in the player's language ("Bot (leicht)"); a person's name as they gave it. */
export function seatLabel(locale: Locale, seat: SeatInfo | undefined): string {
  if (!seat) return "";
  if (seat.kind === "bot" && seat.level && seat.name === `Bot (${seat.level})`) {
    const key = `bot.${seat.level}`;
    if (hasText(key)) return translate(locale, key);
  }
  return seat.name;
}

/** A name as a replay lists it (only the names are kept there, not who was a bot): the server's
 *  name of a bot, "Bot (easy)", in the player's language ("Bot (leicht)"); any other as it is. */
export function nameLabel(locale: Locale, name: string): string {
  const m = /^Bot \((\w+)\)$/.exec(name);
  if (!m) return name;
  const key = `bot.${m[1]}`;
  return hasText(key) ? translate(locale, key) : name;
}

/** A bot seat's level in words, when its name does not say it already: "" for "Bot (easy)",
 *  whose label is "Bot (leicht)" in German (the lobby showed "Bot (leicht) · Leicht"). */
export function seatLevel(locale: Locale, seat: SeatInfo | undefined): string {
  if (!seat || seat.kind !== "bot" || !seat.level) return "";
  if (seat.name === `Bot (${seat.level})`) return "";
  return translate(locale, keyUnder("level.", seat.level));
}

export function seatName(cast: Cast, seat: number): string {
  return cast.names[seat] || translate(cast.locale, "log.seat", { n: seat + 1 });
}

/** "You" or the seat's name. */
export function who(cast: Cast, seat: number | undefined): string {
  if (seat === undefined) return "";
  return seat === cast.me ? translate(cast.locale, "log.you") : seatName(cast, seat);
}

/** "your" / "Maya's" (English), "dir" / "Maya" (German): the owner of a card. */
export function whose(cast: Cast, seat: number | undefined): string {
  if (seat === undefined) return "";
  if (seat === cast.me) return translate(cast.locale, "log.your");
  return translate(cast.locale, "log.their", { name: seatName(cast, seat) });
}

/** Slot numbers as players count them: from 1. */
export function slotList(slots: number[] | undefined): string {
  return (slots ?? []).map((s) => s + 1).join(", ");
}

/** Cards by their faces in ``locale`` ("B♣" in German), or in words when ``spoken``. */
export function cardList(cards: (string | null)[] | undefined, locale: Locale = "en", spoken = false): string {
  const named = (cards ?? []).filter((c): c is string => c !== null);
  return named.map((c) => (spoken ? cardWords(locale, c) : cardFace(c, locale))).join(", ");
}

/** One event as a line of the log, or "" for events not worth a line; ``spoken``: with the cards
 *  in words ("7 of spades", not "7♠"), for screen readers. */
export function describeEvent(cast: Cast, ev: GameEvent, spoken = false): string {
  const mine = ev.by !== undefined && ev.by === cast.me;
  let key = `log.${ev.type}`;
  if (ev.type === "replaced" && (ev.slots?.length ?? 0) > 1) key = "log.replaced.set";
  const params: Params = {
    p: who(cast, ev.by),
    slots: slotList(ev.slots),
    cards: cardList(ev.cards, cast.locale, spoken),
    seen: cardList(ev.seen, cast.locale, spoken),
    t: whose(cast, ev.target),
    ts: ev.target_slot !== undefined ? ev.target_slot + 1 : "",
    call: cast.callName,
    round: ev.round ?? ev.result?.round ?? "", // round_over names it in its result
    winners: (ev.winners ?? []).map((s) => who(cast, s)).join(", "),
  };
  if (ev.type === "spied") {
    // A spy names the target's slot in ``target_slot`` (events.py), the spy's own in none.
    params.ts = ev.target_slot !== undefined ? ev.target_slot + 1 : slotList(ev.slots);
  }
  if (mine) {
    // A card shown to you alone is on screen for its moment (the view's "shown"), not in the
    // log: remembering it is the game, unless the table has Recollection.  A log keeps no such
    // card once the moment is over, and the public part of an event (a page loaded afresh gets
    // its log back so) says none either: without it, the same words.
    if (!cast.recollection || !ev.seen?.length) {
      const unseen = `${key}.you.unseen`;
      if (hasText(unseen)) return translate(cast.locale, unseen, params);
    }
    const own = `${key}.you`;
    if (hasText(own)) return translate(cast.locale, own, params);
  }
  return hasText(key) ? translate(cast.locale, key, params) : "";
}

/** The label of a simple action button (draw, discard, skip, END TURN, the call, ...). */
export function actionLabel(cast: Cast, action: Action): string {
  if (action.do === "call") return translate(cast.locale, "act.call", { call: cast.callName });
  return translate(cast.locale, `act.${action.do}`);
}

/** A move a timer played for a seat, in words ("Time ran out for Sam: Draw was played"). */
export function timedOutText(cast: Cast, out: { seat: number; action: Action }): string {
  const action = actionLabel(cast, out.action);
  return out.seat === cast.me
    ? translate(cast.locale, "table.timedOutYou", { action })
    : translate(cast.locale, "table.timedOut", { name: seatName(cast, out.seat), action });
}

/** Who won the match, in one line: a shared first place is a draw ("A draw: you share first
 *  place with Bob."), never a list of winners. */
export function resultLine(cast: Cast, winners: readonly number[]): string {
  const list = (seats: number[]) =>
    new Intl.ListFormat(cast.locale, { style: "long", type: "conjunction" }).format(seats.map((s) => seatName(cast, s)));
  const mine = cast.me !== null && winners.includes(cast.me);
  if (winners.length > 1) {
    if (mine) return translate(cast.locale, "rankedEnd.drawYou", { names: list(winners.filter((w) => w !== cast.me)) });
    return translate(cast.locale, "rankedEnd.draw", { names: list([...winners]) });
  }
  if (mine) return translate(cast.locale, "reveal.youWin");
  return translate(cast.locale, "reveal.winner", { names: list([...winners]) });
}
