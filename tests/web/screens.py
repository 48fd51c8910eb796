"""Checks every screen of the web client takes: it fits the viewport (no horizontal scroll), every
button and card control is a touch target of at least 44 x 44 px, axe-core finds no serious or
critical violation; and a screenshot of it at each size, kept under artifacts/screenshots/
(git-ignored), named by screen and size."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from playwright.sync_api import Page

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts" / "screenshots"
AXE = ROOT / "web" / "node_modules" / "axe-core" / "axe.min.js"

PHONE = (360, 740)
LAPTOP = (1280, 800)
SIZES = (PHONE, LAPTOP)
TOUCH = 44  # px: the least width and height of anything to tap

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
    clips or scrolls them (so part of them is not on screen without scrolling sideways)."""
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
              bad = r.left < b.left - 0.5 || r.right > b.right + 0.5;
            }
            if (bad) out.push((el.getAttribute("aria-label") || el.textContent.trim()).slice(0, 40)
              + ` [${Math.round(r.left)}..${Math.round(r.right)}]`);
          }
          return out;
        }""",
        selector,
    )
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
        small = small_targets(page)
        assert small == [], f"{screen} at {width}px: targets under {TOUCH} px: {small}"
        if axe:
            found = axe_violations(page)
            assert found == [], f"{screen} at {width}px: axe-core: {found}"
        shoot(page, screen)
    page.set_viewport_size({"width": PHONE[0], "height": PHONE[1]})
