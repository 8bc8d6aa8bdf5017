"""The QR code of a pairing URI as a module matrix (rows of booleans, True = dark), encoded by
segno. Pure: the renderer only draws the modules."""

from __future__ import annotations

import segno

Matrix = tuple[tuple[bool, ...], ...]


def qr_matrix(text: str, *, error: str = "m", border: int = 0) -> Matrix:
    """Rows of modules for `text` (error correction M by default; no quiet zone unless asked)."""
    if not text:
        raise ValueError("nothing to encode")
    code = segno.make_qr(text, error=error, boost_error=False)
    return tuple(tuple(bool(module) for module in row) for row in code.matrix_iter(scale=1, border=border))
