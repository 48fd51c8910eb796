// Keyboard focus at the table: when the control a player had focused goes away (the Draw
// button after drawing, a card that flies off after a replace), focus moves to the first
// control of the new step instead of falling to <body>, where a keyboard player would have
// to tab through the whole page again.
//
// The controls say what they are in ``data-focus``; ``nextFocus`` (pure) picks one of them,
// ``keepFocus`` watches the page and moves the focus.

/**
 * What a focusable control of the table is, in ``data-focus``: one of the player's cards they
 * can choose now, a button of the action bar, a card of someone else (or a pile) they can
 * choose, a card that does nothing now, the line saying whose turn it is.
 */
export type FocusKind = "my-choice" | "action" | "choice" | "card" | "status";

export interface Focusable {
  kind: FocusKind | null;
  /** The place of the table the control shows (lib/motion.ts), if it is a card. */
  place: string | null;
}

/** The order in which the new step's controls take the focus of one that went away. */
const PREFERENCE: ((c: Focusable, lost: Focusable) => boolean)[] = [
  // After Draw, the cards to replace; in the opening peek, the cards to look at.
  (c) => c.kind === "my-choice",
  // END TURN after a replace, READY, Draw when the turn comes back after READY, a power to use.
  (c) => c.kind === "action",
  // Nothing to do: the card that now lies where the focused one lay (it moved away).
  (c, lost) => lost.place !== null && c.place === lost.place,
  (c) => c.kind === "choice",
  // Someone else's turn: the line that says whose.
  (c) => c.kind === "status",
];

/**
 * Which of ``candidates`` (the table's focusable controls, in page order) takes the focus
 * that ``lost`` had: the first of the most preferred kind, or -1 when none fits.
 */
export function nextFocus(lost: Focusable, candidates: Focusable[]): number {
  for (const fits of PREFERENCE) {
    const i = candidates.findIndex((c) => fits(c, lost));
    if (i >= 0) return i;
  }
  return -1;
}

const TABBABLE = "button, a[href], input, select, textarea, [tabindex]";

/** An element leaving the page (an outro makes it inert), removed, or disabled. */
function gone(el: Element): boolean {
  return !el.isConnected || el.closest("[inert]") !== null || el.matches(":disabled");
}

function describe(el: Element): Focusable {
  const kind = el.getAttribute("data-focus");
  return {
    kind: (kind || null) as FocusKind | null,
    place: el.closest("[data-place]")?.getAttribute("data-place") ?? null,
  };
}

/** On the page, visible, and with something to say (an empty status line is no place to be). */
function shown(el: HTMLElement): boolean {
  const said = el.getAttribute("aria-label") || el.textContent?.trim();
  return !gone(el) && el.getClientRects().length > 0 && Boolean(said);
}

/**
 * Keep the keyboard focus inside ``root`` when what had it goes away; returns the cleanup.
 * Focus the player moved elsewhere themselves (a click on the felt, another window) is theirs.
 */
export function keepFocus(root: HTMLElement): () => void {
  let last: { el: Element; lost: Focusable } | null = null;

  const onFocusIn = (event: FocusEvent) => {
    const el = event.target;
    if (el instanceof Element) last = { el, lost: describe(el) };
  };

  const onFocusOut = (event: FocusEvent) => {
    const el = event.target;
    // Moving on to another element: focusin says where.
    if (event.relatedTarget !== null || !(el instanceof Element)) return;
    queueMicrotask(() => {
      // Still there and usable, yet not focused: the player put the focus away on purpose.
      if (last?.el === el && !gone(el) && document.activeElement !== el) last = null;
    });
  };

  const rescue = () => {
    if (!last || !gone(last.el)) return;
    const active = document.activeElement;
    const fallen = active === null || active === document.body || active === last.el || gone(active);
    if (!fallen) {
      last = null; // focus is on something alive (outside the table, say): it stays there
      return;
    }
    const candidates = [...root.querySelectorAll<HTMLElement>("[data-focus]")].filter(shown);
    const i = nextFocus(last.lost, candidates.map(describe));
    const target =
      i >= 0
        ? candidates[i]
        : [...root.querySelectorAll<HTMLElement>(TABBABLE)].find((el) => el.tabIndex >= 0 && shown(el));
    if (!target) return; // nothing to focus yet: the next change of the page may bring it
    last = null;
    target.focus();
  };

  // Runs after each batch of DOM changes, once the new step is on the page.
  const observer = new MutationObserver(rescue);
  observer.observe(root, {
    subtree: true,
    childList: true,
    attributes: true,
    attributeFilter: ["inert", "disabled"],
  });
  root.addEventListener("focusin", onFocusIn);
  root.addEventListener("focusout", onFocusOut);
  return () => {
    observer.disconnect();
    root.removeEventListener("focusin", onFocusIn);
    root.removeEventListener("focusout", onFocusOut);
  };
}

/** Where a key moves the focus among the table's cards: ``hands`` are the cards of each hand
 * in page order (their counts), ``at`` the focused card.  Left and right (Home, End) move
 * along the hand, up and down to the same place of the hand before or after (its last card
 * when it is shorter).  Null: the key is not one of these, or there is nowhere to go. */
export function arrowTarget(
  key: string,
  hands: number[],
  at: { hand: number; card: number },
): { hand: number; card: number } | null {
  const count = hands[at.hand] ?? 0;
  let hand = at.hand;
  let card = at.card;
  switch (key) {
    case "ArrowLeft":
      card = Math.max(0, card - 1);
      break;
    case "ArrowRight":
      card = Math.min(count - 1, card + 1);
      break;
    case "Home":
      card = 0;
      break;
    case "End":
      card = count - 1;
      break;
    case "ArrowUp":
    case "ArrowDown": {
      const step = key === "ArrowUp" ? -1 : 1;
      hand += step;
      while (hand >= 0 && hand < hands.length && hands[hand] === 0) hand += step;
      if (hand < 0 || hand >= hands.length) return null;
      card = Math.min(card, hands[hand] - 1);
      break;
    }
    default:
      return null;
  }
  return { hand, card };
}

/** The arrow keys move the focus between the cards of the table (``.hand`` boxes of card
 * buttons), whether or not a card can be chosen now; Tab still goes only to those that can. */
export function cardArrows(root: HTMLElement): () => void {
  const onKey = (event: KeyboardEvent) => {
    if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    const el = event.target;
    if (!(el instanceof HTMLElement) || !el.matches("button.card")) return;
    const hands = [...root.querySelectorAll<HTMLElement>(".hand")].map((h) =>
      [...h.querySelectorAll<HTMLElement>("button.card")].filter((c) => c.closest("[inert]") === null),
    );
    const hand = hands.findIndex((cards) => cards.includes(el));
    if (hand < 0) return;
    const to = arrowTarget(
      event.key,
      hands.map((cards) => cards.length),
      { hand, card: hands[hand].indexOf(el) },
    );
    if (to === null) return;
    event.preventDefault();
    hands[to.hand][to.card]?.focus();
  };
  root.addEventListener("keydown", onKey);
  return () => root.removeEventListener("keydown", onKey);
}
