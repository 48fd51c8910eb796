"""Checks every screen of the web client takes: it fits the viewport (no horizontal scroll; on the
game screen, which clips, every button, card and pile inside the viewport and no text cut off),
every button and card control is a touch target of at least 44 x 44 px, axe-core finds no
serious or critical violation; and a screenshot of it at each size, kept under
artifacts/screenshots/ (git-ignored), named by screen and size."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import BrowserContext, Page

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts" / "screenshots"
AXE = ROOT / "web" / "node_modules" / "axe-core" / "axe.min.js"

PHONE = (360, 740)
LAPTOP = (1280, 800)
SIZES = (PHONE, LAPTOP)
TOUCH = 44  # px: the least width and height of anything to tap

# Names of as many characters as a name may have (32), with no space to break them at.
LONGEST = "Donaudampfschifffahrtskapitaenin"
LONGEST_TOO = "WilhelminaFeatherstonehaughSmyth"

# A phone's "large text": the root font at 20 px rather than 16 px (every rem grows with it).
ROOT_FONTS = pytest.mark.parametrize("root_font", [16, 20], ids=["16px", "20px"])

# Set before the page's own scripts run, on every page of the context (after a reload too).
ROOT_FONT = """(px) => {
  const apply = () => {
    if (!document.documentElement) return false;
    document.documentElement.style.fontSize = px + "px";
    return true;
  };
  if (!apply()) {
    const watch = new MutationObserver(() => apply() && watch.disconnect());
    watch.observe(document, { childList: true });
  }
}"""


def large_text(context: BrowserContext, root_font: int) -> None:
    """Every page of ``context`` with its root font at ``root_font`` px (16: as it is)."""
    if root_font != 16:
        context.add_init_script(f"({ROOT_FONT})({root_font})")


# Everything a player taps: buttons (the cards that can be chosen are buttons too), fields,
# the summary of a details box.  What is hidden or leaving (inert) does not count.
SMALL_TARGETS = """(least) => {
  const out = [];
  for (const el of document.querySelectorAll(
    "button, select, input:not([type=hidden]), summary, [role=button], a.btn"
  )) {
    if (el.closest("[inert]") || el.closest(".sr-only")) continue;
    // A checkbox is tapped by its label.
    const box = el.matches("input[type=checkbox], input[type=radio]")
      ? el.closest("label") || el
      : el;
    const r = box.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    const style = getComputedStyle(el);
    if (style.visibility === "hidden" || style.display === "none") continue;
    if (r.width < least - 0.5 || r.height < least - 0.5) {
      out.push({
        what: el.getAttribute("data-testid") || el.getAttribute("aria-label") ||
          el.textContent.trim().slice(0, 40) || el.outerHTML.slice(0, 80),
        width: Math.round(r.width * 10) / 10,
        height: Math.round(r.height * 10) / 10,
      });
    }
  }
  return out;
}"""

AXE_RUN = """async () => {
  const result = await axe.run(document, { resultTypes: ["violations"] });
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.slice(0, 5).map((n) => n.target.join(" ") + " :: " + n.failureSummary),
    }));
}"""


def page_width(page: Page) -> tuple[int, int]:
    """The page's scroll width and the viewport's width."""
    found: list[int] = page.evaluate(
        "() => [document.documentElement.scrollWidth, window.innerWidth]"
    )
    return found[0], found[1]


WIDE = """() => {
  const inner = window.innerWidth;
  const out = [];
  for (const el of document.querySelectorAll("body *")) {
    const r = el.getBoundingClientRect();
    if (r.right > inner + 0.5 && el.children.length === 0) {
      const cls = el.className ? "." + String(el.className).split(" ")[0] : "";
      const text = (el.textContent || "").trim().slice(0, 30);
      out.push(`${el.tagName.toLowerCase()}${cls}: ${text} [${Math.round(r.right)}]`);
    }
  }
  return out.slice(0, 8);
}"""


def fits(page: Page, screen: str) -> None:
    width, inner = page_width(page)
    if width > inner:
        wide: list[str] = page.evaluate(WIDE)  # what sticks out, to say where to look
        raise AssertionError(
            f"{screen}: the page is {width} px wide in a {inner} px viewport: {wide}"
        )


def small_targets(page: Page) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = page.evaluate(SMALL_TARGETS, TOUCH)
    return found


def axe_violations(page: Page) -> list[dict[str, Any]]:
    """Serious and critical violations axe-core finds on the page as it is now."""
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        # Evaluated, not added as a <script>: the server's Content-Security-Policy refuses
        # inline scripts, and this is the test's script, not the page's.
        page.evaluate(AXE.read_text(encoding="utf-8") + "\n;undefined")
    found: list[dict[str, Any]] = page.evaluate(AXE_RUN)
    return found


def inside_viewport(page: Page, selector: str) -> list[str]:
    """The elements matching ``selector`` that stick out of the viewport or out of a box that
    clips or scrolls them (so part of them is not on screen without scrolling sideways).  Less
    than a pixel out of a box does not count: a box scrolls by whole pixels, so the far end of a
    table 410.4 px wide stays 0.4 px out of its box scrolled as far as it goes."""
    found: list[str] = page.evaluate(
        """(sel) => {
          const out = [];
          const inner = window.innerWidth;
          for (const el of document.querySelectorAll(sel)) {
            const r = el.getBoundingClientRect();
            if (r.width === 0 && r.height === 0) continue;
            let bad = r.left < -0.5 || r.right > inner + 0.5;
            for (let box = el.parentElement; box && !bad; box = box.parentElement) {
              const ox = getComputedStyle(box).overflowX;
              if (ox === "visible") continue;
              const b = box.getBoundingClientRect();
              bad = r.left < b.left - 1 || r.right > b.right + 1;
            }
            if (bad) out.push((el.getAttribute("aria-label") || el.textContent.trim()).slice(0, 40)
              + ` [${Math.round(r.left)}..${Math.round(r.right)}]`);
          }
          return out;
        }""",
        selector,
    )
    return found


# The parts of the game screen a player taps or reads the table by: its buttons and links, every
# card and empty place (the reveal's small faces too), the piles and the card held.
GAME_PARTS = ", ".join(
    f"[data-testid=game] {part}" for part in ("button", "a", ".card", ".gap", ".mini", ".pile")
)


def game_outside(page: Page) -> list[str]:
    """The buttons, cards and piles of the game screen (if it is on the page) that are not
    wholly inside the viewport.  The page's scroll width cannot tell: a box that clips (the
    game's, a seat's) hides what sticks out of it, and the page is no wider for it."""
    return inside_viewport(page, GAME_PARTS)


# Every piece of text under ``root`` that is cut off: not wholly inside the viewport, or outside
# a box that clips it (overflow hidden or clip) without saying so (an ellipsis, a line clamp).
# Text in a box that scrolls is reached by scrolling it: that box must be on screen instead.
# Text hidden on purpose (a 1 px box for screen readers) and what is leaving (inert) is not seen.
CUT_OFF = """(root) => {
  const out = [];
  const inner = window.innerWidth;
  const top = document.querySelector(root);
  if (!top) return out;
  const clips = (v) => v === "hidden" || v === "clip";
  const scrolls = (v) => v === "auto" || v === "scroll";
  const walker = document.createTreeWalker(top, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.textContent.trim();
    const el = node.parentElement;
    if (!text || !el || el.closest("[inert]")) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    const rects = [...range.getClientRects()].filter((r) => r.width > 0 && r.height > 0);
    if (!rects.length || getComputedStyle(el).visibility === "hidden") continue;
    let hidden = false;
    for (let box = el; box && box !== top.parentElement && !hidden; box = box.parentElement) {
      const b = box.getBoundingClientRect();
      hidden = b.width <= 1 || b.height <= 1;
    }
    if (hidden) continue;
    for (const rect of rects) {
      let r = { left: rect.left, right: rect.right, top: rect.top, bottom: rect.bottom };
      let why = "";
      for (let box = el; box && box !== document.body && !why; box = box.parentElement) {
        const style = getComputedStyle(box);
        const b = box.getBoundingClientRect();
        if (scrolls(style.overflowX) || scrolls(style.overflowY)) {
          r = { left: b.left, right: b.right, top: b.top, bottom: b.bottom };
          continue;
        }
        if (style.textOverflow === "ellipsis" || style.webkitLineClamp !== "none") continue;
        const cls = String(box.className).split(" ")[0];
        if (clips(style.overflowX) && (r.left < b.left - 0.5 || r.right > b.right + 0.5)) {
          why = `clipped sideways by ${box.tagName.toLowerCase()}.${cls}`;
        } else if (clips(style.overflowY) && (r.top < b.top - 0.5 || r.bottom > b.bottom + 0.5)) {
          why = `clipped by ${box.tagName.toLowerCase()}.${cls}`;
        }
      }
      if (!why && (r.left < -0.5 || r.right > inner + 0.5)) why = "outside the viewport";
      if (why) {
        const span = `[${Math.round(rect.left)}..${Math.round(rect.right)}]`;
        out.push(`${text.slice(0, 40)}: ${why} ${span}`);
        break;
      }
    }
  }
  return out;
}"""


def cut_off(page: Page, root: str) -> list[str]:
    """The text under ``root`` that is cut off with no ellipsis to say so (see CUT_OFF)."""
    found: list[str] = page.evaluate(CUT_OFF, root)
    return found


def empty_below(page: Page) -> float:
    """How far the page scrolls past the bottom of what a player sees, in px (the main area's
    own padding is some 30 px of it).  What is hidden does not count: a box of 1 px (text for
    screen readers) or the part of anything below the bottom of a box that clips or scrolls it
    (a long log's lines below its box), even when the page lets it stick out."""
    found: float = page.evaluate(
        """() => {
          let bottom = 0;
          for (const el of document.querySelectorAll("main *")) {
            const style = getComputedStyle(el);
            if (style.position === "fixed" || style.display === "none") continue;
            const r = el.getBoundingClientRect();
            if (r.width <= 1 || r.height <= 1) continue;
            let seen = r.bottom;
            for (let box = el.parentElement; box; box = box.parentElement) {
              if (getComputedStyle(box).overflowY !== "visible") {
                seen = Math.min(seen, box.getBoundingClientRect().bottom);
              }
            }
            bottom = Math.max(bottom, seen + window.scrollY);
          }
          return document.documentElement.scrollHeight - bottom;
        }"""
    )
    return found


def shoot(page: Page, screen: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    size = page.viewport_size
    assert size is not None
    # What the screen shows as it is scrolled now, and the whole page ("-full").
    name = f"{screen}-{size['width']}x{size['height']}"
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path))
    page.screenshot(path=str(ARTIFACTS / f"{name}-full.png"), full_page=True)
    return path


# Animations that end (a panel rising into view): axe-core measures colours as they are drawn,
# and half-way through a fade a text's contrast is not the one a player reads.
SETTLED = """() => document.getAnimations().every((a) =>
  a.playState !== "running" || a.effect?.getComputedTiming().endTime === Infinity)"""


def settle(page: Page) -> None:
    """Wait until no animation with an end is still running."""
    page.wait_for_function(SETTLED)


def check_screen(page: Page, screen: str, *, axe: bool = True) -> None:
    """The screen as it is now, at the phone's size and the laptop's: it fits, its targets are
    large enough, axe-core is content; a screenshot of each.  Ends at the phone's size."""
    scroll = page.evaluate("() => window.scrollY")
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        page.evaluate("y => window.scrollTo(0, y)", scroll)
        page.wait_for_function(
            "w => window.innerWidth === w && document.documentElement.clientWidth <= w", arg=width
        )
        settle(page)
        fits(page, f"{screen} at {width}px")
        outside = game_outside(page)
        assert outside == [], f"{screen} at {width}px: outside the viewport: {outside}"
        cut = cut_off(page, "[data-testid=game]")
        assert cut == [], f"{screen} at {width}px: text cut off: {cut}"
        small = small_targets(page)
        assert small == [], f"{screen} at {width}px: targets under {TOUCH} px: {small}"
        if axe:
            found = axe_violations(page)
            assert found == [], f"{screen} at {width}px: axe-core: {found}"
        shoot(page, screen)
    page.set_viewport_size({"width": PHONE[0], "height": PHONE[1]})
