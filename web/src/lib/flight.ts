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

type Params = CrossfadeParams & { key: string };
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

/**
 * The card that leaves: it flies to where its counterpart arrives while it fades.  It stops being
 * a card of the table at once (no test id, hidden from screen readers, out of the page's flow):
 * the card that took its place is the one to read and click while it is still on its way out.
 * (Svelte makes it inert as well; a keyboard focus it had moves on to the new step, see
 * lib/focus.ts.)
 */
export function send(node: Element, params: Params): Deferred {
  for (const el of [node, ...node.querySelectorAll("[data-testid]")]) el.removeAttribute("data-testid");
  node.setAttribute("aria-hidden", "true");
  lift(node);
  return above(sendPair(node, params));
}

/** The card that arrives: it flies in from where its counterpart left. */
export function receive(node: Element, params: Params): Deferred {
  land(node);
  return above(receivePair(node, params));
}
