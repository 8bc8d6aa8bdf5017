"""Pieces several views draw: the header, titled sections, wallet rows."""

from __future__ import annotations

import base64
from functools import lru_cache

from ..chains.catalog import Network
from ..directory.domain.monogram import monogram_svg
from ..icons import network_mark, onramp_mark, token_mark
from ..slices.doctor import Flow, PressedCopySupportCode
from ..slices.model import Model
from ..slices.navigation import PressedBack, PressedClose
from ..wire.nodes import Node, node


def header(
    title: str, *, back: bool, close: bool, leading: Node | None = None, back_hint: object = "spinner",
    closable: bool = True,
) -> Node:
    """`back_hint`: the back button's pending hint (`{back: viewNodeId}` when the client holds
    the previous view). `closable` False (ApproveTransaction, a required sign-in) draws the close
    button disabled: it looked pressable and only shook the card."""
    children: list[Node] = []
    if back:
        children.append(
            node("button", "header/back", on={"press": PressedBack()}, pending={"press": back_hint or "spinner"},
                 text="", icon="back", variant="ghost", label="Back")
        )
    elif leading is not None:
        children.append(leading)
    else:
        children.append(_START)
    children.append(node("text", "header/title", text=title, variant="title"))
    if close:
        children.append(_CLOSE[closable])
    return node("header", "header", children, title=title, back=back, close=close)


# The header's parts that depend on a flag only: one node each, shared by every header drawn
# (nodes are immutable), so the diff of a header whose title changed skips them.
_START = node("icon", "header/start", name="info", hidden=True)
_CLOSE = {closable: node("button", "header/close", on={"press": PressedClose()},
                         pending={"press": "close" if closable else None}, text="", icon="close",
                         variant="ghost", label="Close", disabled=None if closable else True)
          for closable in (True, False)}


def column(id: str, children: list[Node], *, gap: int = 8, pad: int | None = None) -> Node:
    return node("stack", id, children, dir="col", gap=gap, pad=pad)


def row(id: str, children: list[Node], *, gap: int = 8, justify: str | None = None) -> Node:
    return node("stack", id, children, dir="row", gap=gap, align="center", justify=justify)


def truncate_address(address: str) -> str:
    if len(address) <= 12:
        return address
    return f"{address[:6]}…{address[-4:]}"


def token_image(symbol: str, icon_url: str, seed: str, *, known: bool = True) -> str:
    """A token's icon: the configured one, else the icon set's mark for its symbol, else (none
    known, e.g. the demo's DEMO and TUSD) its monogram: every token row, the selected token and
    the send review draw an icon, never an empty slot. Memoised: a handful of tokens per session.
    `known` False (a token the network does not list, e.g. one that came in): a symbol anyone may
    take gets no brand's mark, only its monogram."""
    return icon_url or (token_mark(symbol) if known else None) or _monogram_uri(seed or symbol, symbol or "?")


def network_image(network: Network) -> str:
    """A network's image: the configured one, else the icon set's mark for its CAIP-2 id, else (the
    dev chains 31337 and 31338) a monogram of its name, so no two networks wear the same glyph."""
    return network.image_url or network_mark(network.id) or _monogram_uri(network.id, network.name)


def onramp_image(provider: str, name: str) -> str:
    """An onramp provider's mark (Coinbase), else (Meld: the set has none) its monogram, a
    rounded square as the marks are."""
    return onramp_mark(provider) or _square_monogram_uri(provider, name)


@lru_cache(maxsize=16)
def _square_monogram_uri(seed: str, name: str) -> str:
    return "data:image/svg+xml;base64," + base64.b64encode(monogram_svg(seed, name).encode()).decode("ascii")


@lru_cache(maxsize=256)
def _monogram_uri(seed: str, symbol: str) -> str:
    svg = monogram_svg(seed.lower(), symbol).replace("rx=\"24\"", "rx=\"48\"")  # round, like coins
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode("ascii")


def support_code(model: Model, prefix: str, flow: Flow) -> list[Node]:
    """"Copy support code" under a failure of `flow` the session doctor diagnosed (issue 44)."""
    found = model.doctor.last
    if found is None or found.flow != flow or not model.doctor.support_codes:
        return []
    return [node("button", f"{prefix}/support-code", on={"press": PressedCopySupportCode()},
                 text="Copy support code", variant="secondary", icon="copy")]
