// The transitions that make cards fly: Svelte's crossfade, paired by the keys of lib/motion.ts.
// With prefers-reduced-motion the cards simply appear where they land (no motion at all).

import { cubicOut } from "svelte/easing";
import { crossfade, type CrossfadeParams, type TransitionConfig } from "svelte/transition";

export function reducedMotion(): boolean {
  return typeof matchMedia === "function" && matchMedia("(prefers-reduced-motion: reduce)").matches;
}

/** Milliseconds a card takes to fly ``distance`` pixels: quick, a little longer when far. */
export function flightTime(distance: number, reduced = reducedMotion()): number {
  return reduced ? 0 : Math.round(Math.min(600, 260 + Math.sqrt(distance) * 12));
}

const [sendPair, receivePair] = crossfade({ duration: (d: number) => flightTime(d), easing: cubicOut });

/** ``key`` pairs the leaving card with the arriving one; ``seq`` is the seq of the events that
 * sent the card off (the client's motion), written on the leaving card (``data-left-at``): what
 * it shows was shown by then, however late the browser runs its flight. */
type Params = CrossfadeParams & { key: string; seq?: number };
type Deferred = () => TransitionConfig;

/** A flying card is drawn above everything it passes over (flex and grid items take a z-index). */
function above(later: Deferred): Deferred {
  return () => {
    const config = later();
    const css = config?.css;
    if (!css) return config;
    // Svelte reads the declarations up to the first empty one: no trailing blank or ";".
    return { ...config, css: (t: number, u: number) => `${css(t, u).trim().replace(/;$/, "")};z-index:20` };
  };
}

/** The inline styles a lifted card had before (see ``lift``). */
type Kept = Pick<CSSStyleDeclaration, "position" | "width" | "height" | "translate">;
const lifted = new WeakMap<HTMLElement, Kept>();

/**
 * Take a leaving card out of the page's flow, where it stands: the page takes its new shape at
 * once, with the event that sent the card off, rather than when the flight ends a moment later.
 * Otherwise the buttons below would jump then, away from under a pointer pressing one of them
 * (a click whose press and release land on different elements is lost).
 */
function lift(node: Element): void {
  if (!(node instanceof HTMLElement) || lifted.has(node)) return;
  const { position, width, height } = getComputedStyle(node);
  if (position === "absolute" || position === "fixed") return;
  const style = node.style;
  lifted.set(node, {
    position: style.position,
    width: style.width,
    height: style.height,
    translate: style.translate,
  });
  const before = node.getBoundingClientRect();
  style.position = "absolute";
  style.width = width;
  style.height = height;
  const after = node.getBoundingClientRect();
  // ``translate``, not ``transform``: the flight animates ``transform`` and would override it.
  style.translate = `${before.left - after.left}px ${before.top - after.top}px`;
}

/** Put a lifted card back into the flow (it comes back before its flight ended). */
function land(node: Element): void {
  if (!(node instanceof HTMLElement)) return;
  const kept = lifted.get(node);
  if (!kept) return;
  lifted.delete(node);
  Object.assign(node.style, kept);
}

/** What a leaving card gave up (its test ids, its aria-hidden), to be given back if it comes back. */
interface Away {
  ids: [Element, string][];
  hidden: string | null;
}
const away = new WeakMap<Element, Away>();

/**
 * A card leaves: it stops being a card of the table at once (no test id, hidden from screen
 * readers, out of the page's flow).  Svelte may bring the same element back before its flight
 * ends (you hold a card again while the last one is still on its way to the pile: an ``{#if}``
 * that turns true again resumes its leaving branch, and makes it not inert again).  Then it is
 * the card of the table again, whole: its test ids, seen by screen readers, back in the flow.
 */
function leave(node: Element, seq: number | undefined): void {
  if (away.has(node)) return;
  if (seq !== undefined) node.setAttribute("data-left-at", String(seq));
  const ids: [Element, string][] = [];
  for (const el of [node, ...node.querySelectorAll("[data-testid]")]) {
    const id = el.getAttribute("data-testid");
    if (id !== null) ids.push([el, id]);
    el.removeAttribute("data-testid");
  }
  away.set(node, { ids, hidden: node.getAttribute("aria-hidden") });
  node.setAttribute("aria-hidden", "true");
  lift(node);
  // Svelte makes a leaving element inert before its transition starts, and not inert when it
  // brings it back.  The observer's callback is a microtask of the task that brought it back:
  // no other task (an event, a test reading the page) sees the card half back.
  const watch = new MutationObserver(() => {
    if (node.hasAttribute("inert")) return;
    watch.disconnect();
    comeBack(node);
  });
  watch.observe(node, { attributes: true, attributeFilter: ["inert"] });
}

function comeBack(node: Element): void {
  const kept = away.get(node);
  if (!kept) return;
  away.delete(node);
  node.removeAttribute("data-left-at");
  for (const [el, id] of kept.ids) el.setAttribute("data-testid", id);
  if (kept.hidden === null) node.removeAttribute("aria-hidden");
  else node.setAttribute("aria-hidden", kept.hidden);
  land(node);
}

/**
 * The card that leaves: it flies to where its counterpart arrives while it fades, and is no
 * longer a card of the table (see ``leave``): the card that took its place is the one to read
 * and click while it is still on its way out.  (Svelte makes it inert as well; a keyboard focus
 * it had moves on to the new step, see lib/focus.ts.)
 */
export function send(node: Element, params: Params): Deferred {
  leave(node, params.seq);
  return above(sendPair(node, params));
}

/** The card that arrives: it flies in from where its counterpart left. */
export function receive(node: Element, params: Params): Deferred {
  land(node);
  return above(receivePair(node, params));
}
