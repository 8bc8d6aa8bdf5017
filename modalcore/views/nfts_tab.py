"""The NFTs tab of the Account view: skeleton tiles while the scan runs, then a wrapping grid of
tiles (the token's image and "<symbol> #<token id>"), or "No NFTs yet".

A token's image is the one its token URI carries (on-chain metadata, services/backend/nft_metadata.py);
without one the engine draws a placeholder: a picture glyph on colours derived from the contract
and token id (each token its own), sent as a `data:image/svg+xml` URI. The tile's label names it,
so the placeholder repeats no text (it read "DC #0" twice, issue 28).
"""

from __future__ import annotations

import base64

from ..directory.domain.monogram import colours, initials
from ..slices.model import Model
from ..slices.nfts import Nft
from ..wire.nodes import Node, node

TILE = 96  # image size (px)
SKELETONS = 3
MAX_TILES = 24  # more are summed up in a line (keeps the tree, and its frames, small)


def short_id(token_id: str) -> str:
    """Token ids are uint256: long ones are shortened for display."""
    return token_id if len(token_id) <= 8 else f"{token_id[:4]}…{token_id[-3:]}"


def label(nft: Nft) -> str:
    return f"{nft.symbol or initials(nft.name)} #{short_id(nft.token_id)}"


def placeholder_svg(nft: Nft) -> str:
    """A 96×96 rounded square: a picture glyph (frame, sun, hills) on the token's gradient."""
    start, stop = colours(f"{nft.contract.lower()}:{nft.token_id}")
    return (
        f"<svg xmlns='http://www.w3.org/2000/svg' width='{TILE}' height='{TILE}' "
        f"viewBox='0 0 {TILE} {TILE}'>"
        "<defs><linearGradient id='g' x1='0' y1='0' x2='1' y2='1'>"
        f"<stop offset='0' stop-color='{start}'/><stop offset='1' stop-color='{stop}'/>"
        "</linearGradient></defs>"
        f"<rect width='{TILE}' height='{TILE}' rx='16' fill='url(#g)'/>"
        "<g fill='none' stroke='#fff' stroke-opacity='.85' stroke-width='3' stroke-linejoin='round'>"
        "<rect x='26' y='30' width='44' height='36' rx='6'/>"
        "<path d='M28 62l13-14 9 9 6-6 12 12'/></g>"
        "<circle cx='58' cy='41' r='4' fill='#fff' fill-opacity='.85'/></svg>"
    )


def image_uri(nft: Nft) -> str:
    """The token's own image, else the placeholder."""
    if nft.image:
        return nft.image
    return "data:image/svg+xml;base64," + base64.b64encode(placeholder_svg(nft).encode()).decode("ascii")


def _tile(nft: Nft) -> Node:
    key = f"{nft.contract.lower()}/{nft.token_id}"
    title = f"{nft.name or nft.symbol} #{nft.token_id}".strip()
    return node("stack", f"account/nfts/item/{key}", [
        node("image", f"account/nfts/item/{key}/image", src=image_uri(nft), alt=title, size=TILE),
        node("text", f"account/nfts/item/{key}/text", text=label(nft), variant="small"),
    ], dir="col", gap=4, align="center", label=title)


def _empty(text: str) -> Node:
    return node("stack", "account/nfts", [
        node("icon", "account/nfts/icon", name="wallet", size=32, tone="muted"),
        node("text", "account/nfts/text", text=text, variant="small", tone="muted"),
    ], dir="col", gap=8, align="center", pad=16)


def nfts(model: Model) -> Node:
    state = model.nfts
    account = model.accounts.get(model.networks.active_namespace)
    current = state.fetched_for is not None and state.fetched_for == account.caip_address
    if not current or (state.loading and not state.items):
        tiles = [node("skeleton", f"account/nfts/skeleton/{i}", w=TILE, h=TILE + 22) for i in range(SKELETONS)]
        return node("stack", "account/nfts", tiles, dir="row", gap=12, wrap=True)
    if not state.supported:
        return _empty("NFTs are shown for EVM networks only")
    if state.error is not None:
        return _empty("Couldn't load NFTs")
    if not state.items:
        return _empty("No NFTs yet")
    tiles = [_tile(nft) for nft in state.items[:MAX_TILES]]
    rest = max(state.total, len(state.items)) - len(tiles)  # the session keeps a bounded few
    if rest > 0:
        tiles.append(node("text", "account/nfts/more", text=f"+{rest} more", variant="small", tone="muted"))
    return node("stack", "account/nfts", tiles, dir="row", gap=12, wrap=True)
