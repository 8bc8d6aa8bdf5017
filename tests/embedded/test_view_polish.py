"""Acceptance polish of the sign-in views, as a person compared them with AppKit's: the social
rows and the WalletConnect row show their brand marks (not a wallet glyph or a letter), and the
texts of ConnectingSocial and EmailVerifyOtp are centred like the rest of those views."""

from __future__ import annotations

from dataclasses import replace

from modalcore.enginetest import Harness
from modalcore.enginetest.models import with_history
from modalcore.slices.connectors import WALLET_CONNECT
from modalcore.views import logos
from modalcore.wire.nodes import Node


def _harness(socials: tuple[str, ...] = ("google", "github", "x", "discord", "apple", "facebook"),
             walletconnect: bool = True) -> Harness:
    h = Harness(is_open=True, options={"networks": ["eip155:1"]})
    model = replace(h.model, embedded=replace(h.model.embedded, socials=socials, email_offered=True))
    if walletconnect:
        model = replace(model, connectors=replace(model.connectors, items=(WALLET_CONNECT, *model.connectors.items)))
    h.session.model = model
    h.session.render()
    return h


def _parent_of(tree: Node, node_id: str) -> Node:
    for parent in tree.walk():
        if any(child.id == node_id for child in parent.c):
            return parent
    raise AssertionError(f"{node_id} not in the tree")


def test_every_social_row_shows_its_providers_mark_not_a_wallet_glyph() -> None:
    h = _harness()
    for provider in ("google", "github", "x", "discord", "apple", "facebook"):
        row = h.node(f"connect/social/{provider}")
        assert row.p.get("image") == logos.SOCIALS[provider], provider
        assert row.p["image"].startswith("data:image/svg+xml")
        assert "icon" not in row.p, row.p


def test_the_walletconnect_row_shows_the_walletconnect_mark() -> None:
    h = _harness()
    row = h.node("connect/wallet/walletConnect")
    assert row.p["image"] == logos.WALLETCONNECT and row.p["tag"] == "QR CODE"


def test_the_all_wallets_row_shows_a_grid_of_tiles_not_a_letter() -> None:
    h = _harness()
    assert h.node("connect/all-wallets").p["image"] == logos.ALL_WALLETS


def test_the_marks_are_self_contained_svg_data_uris() -> None:
    """No request leaves the page for them and a `#` (a URL fragment) never cuts one short."""
    for uri in (logos.WALLETCONNECT, logos.ALL_WALLETS, *logos.SOCIALS.values()):
        assert uri.startswith("data:image/svg+xml;utf8,%3Csvg") and "#" not in uri
        assert "http" not in uri.split("xmlns", 1)[1].split("%22", 2)[2]  # only the namespace


def test_connecting_social_is_centred_with_the_providers_mark() -> None:
    h = _harness()
    h.press("connect/social/google")
    assert h.view == "ConnectingSocial"
    body = h.node("social/body")
    assert body.p.get("align") == "center"
    assert h.node("social/logo").p["src"] == logos.SOCIALS["google"]
    assert {"social/title", "social/hint"} <= {child.id for child in body.c}


def test_email_verify_otp_texts_are_centred() -> None:
    h = _harness()
    h.session.model = with_history(replace(h.model, embedded=replace(h.model.embedded, email="zoe@example.com")),
                                   "Connect", "EmailVerifyOtp")
    h.session.render()
    assert h.view == "EmailVerifyOtp"
    for text in ("otp/sent", "otp/email", "otp/expiry"):
        assert _parent_of(h.tree, text).p.get("align") == "center", text
    assert h.node("otp/email").p["text"] == "zoe@example.com"


def test_rule_connecting_social_says_nothing_of_a_window_before_one_is_open() -> None:
    """The walk: a spinner and "Connect in the provider window" while only the frame's "Continue
    with Google" waited. Before the press nothing spins and the hint says what the press does;
    the frame says "Connect in the provider window" once it opened one (server/verify.py)."""
    h = _harness()
    h.press("connect/social/google")
    ids = {child.id for child in h.node("social/body").c}
    assert "social/spinner" not in ids
    assert h.node("social/hint").p["text"] == "The sign-in opens in a new window"
    assert "Connect in the provider window" not in str(h.node("social/body"))
