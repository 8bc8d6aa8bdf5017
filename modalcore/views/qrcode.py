"""The `qr` node: a QR code the engine encodes (segno, walletconnect/domain/qr.py) and the renderer
only draws, as `n` modules per side and `bits` (row-major, 4 modules per hex digit)."""

from __future__ import annotations

from functools import lru_cache

from ..walletconnect.domain.qr import qr_matrix
from ..wire.nodes import Node, node


@lru_cache(maxsize=64)
def encoded(text: str, logo: bool) -> tuple[int, str]:
    """(modules per side, hex bits); level Q under a logo (it hides the centre), else M."""
    matrix = qr_matrix(text, error="q" if logo else "m")
    bits = "".join("1" if module else "0" for row in matrix for module in row)
    bits += "0" * (-len(bits) % 4)
    return len(matrix), f"{int(bits, 2):0{len(bits) // 4}x}"


def qr_node(node_id: str, text: str, *, size: int, image: str | None = None, label: str = "") -> Node:
    n, bits = encoded(text, image is not None)
    return node("qr", node_id, n=n, bits=bits, size=size, image=image, label=label or None)
