"""What a person sees of a card: every card element whose view says it is face up (``data-face``
not empty) is checked in a screenshot, not in the DOM: the middle of the card must hold ink (the
rank and suit, or the Joker's picture) on a light face, where a blank card is one flat colour.
A Joker is also measured: its card is as wide as any other card of its size."""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from playwright.sync_api import Page

# Each face-up card under ``root`` that is on the page (not hidden, not leaving, not for screen
# readers only) is numbered in a data-probe attribute; what the face is drawn in (.inner, or the
# card itself when it has none: the reveal's small cards) is measured against the card's own
# width, --w, where the card has one.
MARK = """(root) => {
  const out = [];
  for (const old of document.querySelectorAll("[data-probe]")) old.removeAttribute("data-probe");
  const scope = document.querySelector(root);
  if (!scope) return out;
  const up = "[data-face]:not([data-face=''])";
  const cards = [...(scope.matches(up) ? [scope] : []), ...scope.querySelectorAll(up)];
  for (const card of cards) {
    if (card.closest("[inert], .sr-only")) continue;
    const r = card.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) continue;
    const inner = card.querySelector(".inner") || card;
    let want = null;
    if (getComputedStyle(card).getPropertyValue("--w").trim()) {
      const probe = document.createElement("span");
      probe.style.cssText = "position:absolute;visibility:hidden;width:var(--w)";
      card.appendChild(probe);
      want = probe.getBoundingClientRect().width;
      probe.remove();
    }
    const n = out.length;
    card.setAttribute("data-probe", String(n));
    out.push({
      n,
      face: card.getAttribute("data-face"),
      what: card.getAttribute("data-testid") || card.getAttribute("aria-label") || "",
      width: inner.getBoundingClientRect().width,
      want,
      inner: inner !== card,
    });
  }
  return out;
}"""


def decode_png(data: bytes) -> NDArray[np.uint8]:
    """An 8-bit, non-interlaced RGB or RGBA PNG (what Chromium's screenshots are) as an array of
    rows x columns x RGB."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat = 8, b""
    width = height = channels = 0
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or interlace != 0 or colour not in (2, 6):
                raise ValueError(f"PNG not 8-bit RGB(A), non-interlaced: {depth} {colour}")
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
    raw = zlib.decompress(idat)
    stride = width * channels
    out = np.zeros((height, stride), dtype=np.int32)
    prev = np.zeros(stride, dtype=np.int32)
    for y in range(height):
        start = y * (stride + 1)
        line = np.frombuffer(raw, dtype=np.uint8, count=stride, offset=start + 1).astype(np.int32)
        cur = _unfilter(raw[start], line, prev, channels)
        out[y] = cur
        prev = cur
    return out.reshape(height, width, channels)[:, :, :3].astype(np.uint8)


def _unfilter(
    kind: int, line: NDArray[np.int32], prev: NDArray[np.int32], bpp: int
) -> NDArray[np.int32]:
    """One row of a PNG, its filter undone (``prev``: the row above, already undone)."""
    if kind == 0:
        return line
    if kind == 2:
        return (line + prev) & 0xFF
    # 1 (sub), 3 (average), 4 (Paeth) depend on the byte to the left: byte by byte.
    cur = np.zeros(len(line), dtype=np.int32)
    for x in range(len(line)):
        a = int(cur[x - bpp]) if x >= bpp else 0
        b = int(prev[x])
        c = int(prev[x - bpp]) if x >= bpp else 0
        if kind == 1:
            p = a
        elif kind == 3:
            p = (a + b) // 2
        else:
            est = a + b - c
            pa, pb, pc = abs(est - a), abs(est - b), abs(est - c)
            p = a if pa <= pb and pa <= pc else b if pb <= pc else c
        cur[x] = (int(line[x]) + p) & 0xFF
    return cur


@dataclass
class Seen:
    """One face-up card as the screenshot shows it."""

    face: str
    what: str
    ink: int  # pixels of the card's middle that stand out from its background
    light: bool  # the background is a card's face, not its back
    width: float
    want: float | None

    @property
    def shows(self) -> bool:
        return self.light and self.ink >= 6

    @property
    def full_size(self) -> bool:
        return self.want is None or abs(self.width - self.want) <= 1.0


def look(image: NDArray[np.uint8]) -> tuple[int, bool]:
    """Ink in the middle of a card's picture (a 2 px border and the rounded corners left out),
    and whether its background (the commonest colour there) is light."""
    h, w = image.shape[:2]
    mid = image[max(3, h // 6) : h - max(3, h // 6), max(3, w // 6) : w - max(3, w // 6)]
    pixels = mid.reshape(-1, 3).astype(np.int32)
    colours, counts = np.unique(pixels, axis=0, return_counts=True)
    background = colours[int(np.argmax(counts))]
    ink = int((np.abs(pixels - background).max(axis=1) > 90).sum())
    return ink, bool(background.min() >= 200)


def faces_seen(page: Page, root: str) -> list[Seen]:
    """Every face-up card under the element ``root`` (a CSS selector), as it looks now."""
    marked: list[dict[str, object]] = page.evaluate(MARK, root)
    seen = []
    for card in marked:
        element = page.locator(f'[data-probe="{card["n"]}"]')
        target = element.locator(".inner").first if card["inner"] else element
        ink, light = look(decode_png(target.screenshot(animations="disabled")))
        want = card["want"]
        seen.append(
            Seen(
                face=str(card["face"]),
                what=str(card["what"]),
                ink=ink,
                light=light,
                width=float(str(card["width"])),
                want=float(str(want)) if want is not None else None,
            )
        )
    return seen


def assert_faces_shown(page: Page, root: str, *, least: int = 1) -> list[Seen]:
    """Every face-up card under ``root`` shows its face, a Joker at a card's full size; at least
    ``least`` of them are there.  Returns what was seen."""
    seen = faces_seen(page, root)
    assert len(seen) >= least, f"{root}: {len(seen)} face-up cards, expected at least {least}"
    blank = [(s.face, s.what, s.ink, s.light) for s in seen if not s.shows]
    assert blank == [], f"{root}: face-up cards drawn without their face: {blank}"
    small = [(s.what, s.width, s.want) for s in seen if s.face == "JK" and not s.full_size]
    assert small == [], f"{root}: a Joker drawn smaller than a card: {small}"
    return seen
