"""The sentinels a config names, checked when the config loads (no Redis client needed)."""

from __future__ import annotations


def parse_sentinels(addresses: list[str]) -> list[tuple[str, int]]:
    """`["host:port", ...]` as (host, port) pairs; ValueError names the one that is not."""
    pairs = []
    for address in addresses:
        host, sep, port = address.rpartition(":")
        if not sep or not host or not port.isdigit() or len(port) > 5 or not 0 < int(port) < 65536:
            raise ValueError(f"a sentinel is host:port, not {address!r}")
        pairs.append((host, int(port)))
    return pairs
