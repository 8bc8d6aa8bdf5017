"""The QR module matrix of a pairing URI (segno): shape, finder patterns, determinism."""

from __future__ import annotations

import pytest

from modalcore.walletconnect.domain.qr import qr_matrix
from modalcore.walletconnect.backend.uri import PairingUri

URI = PairingUri("ab" * 32, "cd" * 32, 1_700_000_240).format()


def test_the_matrix_is_square_rows_of_booleans_with_finder_patterns() -> None:
    matrix = qr_matrix(URI)
    size = len(matrix)
    assert size >= 21 and (size - 17) % 4 == 0 and all(len(row) == size for row in matrix)
    assert all(isinstance(m, bool) for row in matrix for m in row)
    for top, left in ((0, 0), (0, size - 7), (size - 7, 0)):  # the three 7x7 finder squares
        ring = [matrix[top][left + i] for i in range(7)] + [matrix[top + 6][left + i] for i in range(7)]
        assert all(ring) and matrix[top + 3][left + 3] and not matrix[top + 1][left + 1]


def test_same_text_same_matrix_and_border_is_optional() -> None:
    assert qr_matrix(URI) == qr_matrix(URI)
    bordered = qr_matrix(URI, border=4)
    assert len(bordered) == len(qr_matrix(URI)) + 8 and not any(bordered[0])
    with pytest.raises(ValueError):
        qr_matrix("")



def test_the_qr_node_carries_the_matrix_as_hex_bits() -> None:
    from modalcore.views.qrcode import qr_node

    node = qr_node("x/qr", URI, size=200, label="QR")
    n, bits = node.p["n"], node.p["bits"]
    flat = bin(int(bits, 16))[2:].zfill(len(bits) * 4)[: n * n]
    assert [flat[y * n:(y + 1) * n] for y in range(n)] == [
        "".join("1" if m else "0" for m in row) for row in qr_matrix(URI)]
