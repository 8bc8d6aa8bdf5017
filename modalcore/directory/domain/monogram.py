"""Monograms: the SVG the engine draws for a wallet without an image (behaviour.md §7 image calls).

Deterministic: the colours come from a hash of the wallet id, the letters from its name, so
the same wallet looks the same on every page load and in every engine process.
"""

from __future__ import annotations

import colorsys
import hashlib
from xml.sax.saxutils import escape

GENERIC_WORDS = frozenset({"wallet", "app", "the", "crypto", "web3", "defi", "live", "desktop", "|", "&"})
SIZE = 96


def initials(name: str) -> str:
    """One or two letters: the initials of the first two words that are not generic."""
    words = [w for w in name.replace("{", " ").replace("}", " ").split() if w[:1].isalnum()]
    kept = [w for w in words if w.lower().strip(".:") not in GENERIC_WORDS] or words[:1]
    letters = "".join(word[0] for word in kept[:2]).upper()
    return letters or "?"


def _hex(hue: float, lightness: float, saturation: float) -> str:
    red, green, blue = colorsys.hls_to_rgb(hue % 1.0, lightness, saturation)
    return f"#{round(red * 255):02x}{round(green * 255):02x}{round(blue * 255):02x}"


def colours(seed: str) -> tuple[str, str]:
    """Two gradient stops from the seed: same seed, same colours."""
    digest = hashlib.sha256(seed.encode("utf-8")).digest()
    hue = int.from_bytes(digest[:2], "big") / 65536
    shift = 0.06 + digest[2] / 255 * 0.08
    return _hex(hue, 0.50, 0.62), _hex(hue + shift, 0.38, 0.70)


def monogram_svg(seed: str, name: str) -> str:
    """An SVG image (96×96, rounded square) with the name's initials on a gradient."""
    start, stop = colours(seed)
    letters = escape(initials(name))
    label = escape(name, {'"': "&quot;"})
    font = 44 if len(letters) == 1 else 36
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{SIZE}" height="{SIZE}" '
        f'viewBox="0 0 {SIZE} {SIZE}" role="img" aria-label="{label}">'
        '<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1">'
        f'<stop offset="0" stop-color="{start}"/><stop offset="1" stop-color="{stop}"/>'
        "</linearGradient></defs>"
        f'<rect width="{SIZE}" height="{SIZE}" rx="24" fill="url(#g)"/>'
        f'<text x="48" y="48" dy=".35em" text-anchor="middle" fill="#fff" font-size="{font}" '
        'font-weight="600" font-family="system-ui,-apple-system,Segoe UI,Roboto,sans-serif">'
        f"{letters}</text></svg>"
    )
