"""Writes the installable client's icons into web/public: icon.svg and PNGs of 192 and 512 px.

The picture is a face-down card on the table's green: a rounded card, light border, a darker
back with a diagonal band.  Drawn pixel by pixel with the standard library only (zlib, struct),
so the PNGs can be made again anywhere: python3 web/scripts/icons.py
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

PUBLIC = Path(__file__).resolve().parents[1] / "public"
TABLE = (0x0F, 0x3D, 0x2E)
EDGE = (0xF3, 0xEF, 0xE0)
BACK = (0x8B, 0x1E, 0x2E)
BAND = (0xD9, 0xA4, 0x41)

# The card in units of the icon's side: inside the middle 80 %, a maskable icon's safe zone.
LEFT, RIGHT, TOP, BOTTOM, RADIUS, BORDER = 0.29, 0.71, 0.17, 0.83, 0.06, 0.035


def inside_rounded(x: float, y: float, inset: float) -> bool:
    left, right, top, bottom = LEFT + inset, RIGHT - inset, TOP + inset, BOTTOM - inset
    r = max(RADIUS - inset, 0.0)
    if not (left <= x <= right and top <= y <= bottom):
        return False
    cx = min(max(x, left + r), right - r)
    cy = min(max(y, top + r), bottom - r)
    return (x - cx) ** 2 + (y - cy) ** 2 <= r * r


def colour(x: float, y: float) -> tuple[int, int, int]:
    if not inside_rounded(x, y, 0.0):
        return TABLE
    if not inside_rounded(x, y, BORDER):
        return EDGE
    if abs((x - LEFT) - (y - TOP) * 0.63) < 0.05:  # a band from corner to corner
        return BAND
    return BACK


def png(size: int) -> bytes:
    rows = bytearray()
    for j in range(size):
        rows.append(0)  # filter: none
        for i in range(size):
            rows.extend(colour((i + 0.5) / size, (j + 0.5) / size))

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)  # 8-bit RGB
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(bytes(rows), 9))
        + chunk(b"IEND", b"")
    )


def svg() -> str:
    def hx(c: tuple[int, int, int]) -> str:
        return "#" + "".join(f"{v:02x}" for v in c)

    s = 100
    w, h = (RIGHT - LEFT) * s, (BOTTOM - TOP) * s
    b = BORDER * s
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {s} {s}">'
        f'<rect width="{s}" height="{s}" fill="{hx(TABLE)}"/>'
        f'<rect x="{LEFT * s:g}" y="{TOP * s:g}" width="{w:g}" height="{h:g}" '
        f'rx="{RADIUS * s:g}" fill="{hx(EDGE)}"/>'
        f'<rect x="{LEFT * s + b:g}" y="{TOP * s + b:g}" width="{w - 2 * b:g}" '
        f'height="{h - 2 * b:g}" rx="{(RADIUS - BORDER) * s:g}" fill="{hx(BACK)}"/>'
        f'<line x1="{LEFT * s + b:g}" y1="{TOP * s + b:g}" x2="{RIGHT * s - b:g}" '
        f'y2="{BOTTOM * s - b:g}" stroke="{hx(BAND)}" stroke-width="7"/>'
        "</svg>\n"
    )


def main() -> None:
    PUBLIC.mkdir(exist_ok=True)
    for size in (192, 512):
        (PUBLIC / f"icon-{size}.png").write_bytes(png(size))
    (PUBLIC / "icon.svg").write_text(svg(), encoding="utf-8")


if __name__ == "__main__":
    main()
