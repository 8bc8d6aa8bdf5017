"""Brand marks from a maintained icon set (web3icons, MIT; `icons/extract.mjs` copies the few the
engine uses into `modalcore/data/icons`), served by the engine at `/icons/{kind}/{name}.svg`.

Views name a mark by its engine path (PROTOCOL.md "Tree nodes": an image path is on the engine,
the renderer resolves it against the engine's URL). A path carries the set's digest (`?v=`), so
the route's responses can be cached for a year. What the set lacks keeps its monogram.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ..chains.catalog import SOLANA_MAINNET

ROOT = Path(__file__).resolve().parent.parent / "data" / "icons"
PREFIX = "/icons"
KINDS = ("wallet", "token", "network", "onramp")


@dataclass(frozen=True)
class IconSet:
    names: dict[str, dict[str, str]]  # kind -> key (wallet id, symbol, CAIP-2, provider) -> file name
    files: dict[tuple[str, str], bytes]  # (kind, file name) -> SVG
    version: str  # digest of every file: a new set is a new URL

    def path(self, kind: str, key: str) -> str | None:
        name = self.names.get(kind, {}).get(key)
        return None if name is None else f"{PREFIX}/{kind}/{name}.svg?v={self.version}"


@lru_cache(maxsize=1)
def icon_set() -> IconSet:
    """Read once per process (48 small files, about 50 KB)."""
    manifest = json.loads((ROOT / "manifest.json").read_text(encoding="utf-8"))
    names: dict[str, dict[str, str]] = {kind: dict(manifest.get(kind) or {}) for kind in KINDS}
    files: dict[tuple[str, str], bytes] = {}
    digest = hashlib.sha256()
    for kind in KINDS:
        for name in sorted(set(names[kind].values())):
            data = (ROOT / kind / f"{name}.svg").read_bytes()
            files[(kind, name)] = data
            digest.update(f"{kind}/{name}\0".encode() + data)
    return IconSet(names, files, digest.hexdigest()[:12])


def token_mark(symbol: str) -> str | None:
    return icon_set().path("token", symbol.upper()) if symbol else None


def network_mark(network_id: str) -> str | None:
    """By CAIP-2 id; every Solana cluster (devnet, testnet, the local one) wears Solana's mark.
    The dev EVM chains (31337, 31338) have none."""
    if network_id.startswith("solana:"):
        network_id = SOLANA_MAINNET
    return icon_set().path("network", network_id)


def wallet_mark(wallet_id: str) -> str | None:
    """By the directory's wallet id (modalcore/data/wallets.json)."""
    return icon_set().path("wallet", wallet_id)


def onramp_mark(provider: str) -> str | None:
    return icon_set().path("onramp", provider.lower())


def svg(kind: str, name: str) -> bytes | None:
    """The served file, or None (unknown kind or name: nothing outside the set is ever read)."""
    return icon_set().files.get((kind, name))
