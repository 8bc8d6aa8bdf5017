"""Issue 28 items 4 and 5, read from the tree a session draws: the socials laid out as AppKit's
w3m-social-login-widget (the first wide, the rest a row of marks, "…" to All Socials when more are
offered than fit), the header's "?" on Connect, `features.collapseWallets` and
`features.legalCheckbox` as AppKit's w3m-connect-view and w3m-legal-checkbox."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from modalcore.enginetest import Harness
from modalcore.flows import social
from modalcore.flows.social import SocialLayout, social_layout
from modalcore.slices.connectors import WALLET_CONNECT
from modalcore.slices.options import OptionsError, parse_options
from modalcore.views import connect, connect_socials, logos

OAUTH = ("google", "x", "discord", "github", "apple", "facebook")
TERMS = "https://dapp.example/terms"
PRIVACY = "https://dapp.example/privacy"


def _harness(socials: tuple[str, ...] = OAUTH, email: bool = True, **options: Any) -> Harness:
    h = Harness(is_open=True, options={"networks": ["eip155:1"], **options})
    model = replace(h.model, embedded=replace(h.model.embedded, socials=socials, email_offered=email))
    model = replace(model, connectors=replace(model.connectors, items=(WALLET_CONNECT,)))
    h.session.model = model
    h.session.render()
    return h


def test_appkit_split_of_the_socials_first_wide_then_marks_then_more() -> None:
    assert social_layout(()) == SocialLayout(None, (), False)
    assert social_layout(("google",)) == SocialLayout("google", (), False)
    assert social_layout(("google", "x")) == SocialLayout(None, ("google", "x"), False)  # two marks
    assert social_layout(OAUTH) == SocialLayout("google", OAUTH[1:], False)
    seven = (*OAUTH, "farcaster")
    assert social_layout(seven) == SocialLayout("google", ("x", "discord", "github", "apple"), True)


def test_connect_offers_every_oauth_social_google_wide_and_five_marks_named_as_appkit() -> None:
    h = _harness()
    wide = h.node("connect/social/google")
    assert wide.t == "button" and wide.p["text"] == "Continue with Google" and wide.p["image"] == logos.SOCIALS["google"]
    marks = h.node("connect/social-marks")
    assert [m.id for m in marks.c] == [f"connect/social/{p}" for p in OAUTH[1:]]
    labels = [m.p["label"] for m in marks.c]
    assert labels == ["Continue with X", "Continue with Discord", "Continue with GitHub", "Continue with Apple",
                      "Continue with Facebook"]
    assert all(m.t == "button" and m.p["variant"] == "mark" and m.p["image"] == logos.SOCIALS[m.id.rsplit("/", 1)[1]]
               for m in marks.c)
    assert h.find("connect/social/more") is None
    # farcaster is not offered (its ConnectingFarcaster view is not built: issue 33)
    assert not [i for i in h.ids() if "farcaster" in i]


def test_each_mark_starts_its_providers_sign_in() -> None:
    for provider in OAUTH[1:]:
        h = _harness()
        h.press(f"connect/social/{provider}")
        assert h.view == "ConnectingSocial"
        # issue 27: the sign-in starts in the engine-origin frame of ConnectingSocial, for this provider
        assert h.model.embedded.social == provider
        assert h.node("social/title").p["text"] == f"Log in with {social.NAMES[provider]}"
        assert h.find("social/frame") is not None


def test_no_or_between_email_and_socials_as_appkit() -> None:
    h = _harness()
    body = h.node("connect/body")
    kinds = [c.id for c in body.c]
    assert kinds.index("connect/email-method") + 1 == kinds.index("connect/social-method")
    assert len([k for k in kinds if k.startswith("connect/or/")]) == 1  # only beside the wallets


def test_the_more_mark_leads_to_all_socials_which_lists_every_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    """Reachable with more than six socials offered, which takes a seventh provider (farcaster,
    once ConnectingFarcaster exists): one stands in for it here."""
    seven = (*OAUTH, "extra")
    monkeypatch.setitem(social.NAMES, "extra", "Extra")
    monkeypatch.setattr(connect, "offered_socials", lambda model: seven)
    monkeypatch.setattr(connect_socials, "offered_socials", lambda model: seven)
    h = _harness()
    marks = [m.id for m in h.node("connect/social-marks").c]
    assert marks == ["connect/social/x", "connect/social/discord", "connect/social/github", "connect/social/apple",
                     "connect/social/more"]
    h.press("connect/social/more")
    assert h.view == "ConnectSocials" and h.node("header/title").p["text"] == "All Socials"
    assert [c.p["title"] for c in h.node("socials").c] == [f"Continue with {social.NAMES[p]}" for p in seven]
    h.press("socials/facebook")
    assert h.view == "ConnectingSocial"


def test_two_socials_are_two_marks_and_no_wide_button() -> None:
    h = _harness(socials=("google", "github"), features={"socials": ["google", "github"]})
    assert [m.id for m in h.node("connect/social-marks").c] == ["connect/social/google", "connect/social/github"]
    assert h.node("connect/social/google").t == "button"


def test_the_header_help_leads_to_what_is_a_wallet_on_connect_only() -> None:
    h = _harness()
    help_button = h.node("header/help")
    assert help_button.p["icon"] == "help" and help_button.p["label"] == "What is a wallet?"
    h.press("header/help")
    assert h.view == "WhatIsAWallet"
    assert h.find("header/help") is None  # a back button stands there now


def test_collapse_wallets_draws_one_continue_with_a_wallet_row_leading_to_the_wallets() -> None:
    plain = _harness()
    assert plain.find("connect/wallets") is None and plain.find("connect/wallet/walletConnect") is not None
    h = _harness(features={"collapseWallets": True})
    row = h.node("connect/wallets")
    assert row.p["title"] == "Continue with a wallet" and row.p["icon"] == "wallet"
    assert h.find("connect/wallet/walletConnect") is None and h.find("connect/all-wallets") is None
    h.press("connect/wallets")
    assert h.view == "ConnectWallets" and h.node("header/title").p["text"] == "Connect Wallet"
    assert h.find("wallets/wallet/walletConnect") is not None and h.find("wallets/all-wallets") is not None
    h.press("wallets/wallet/walletConnect")
    assert h.view == "ConnectingWalletConnect"


def test_collapse_wallets_needs_another_method_and_email_show_wallets_off_collapses_too() -> None:
    alone = _harness(socials=(), email=False, features={"collapseWallets": True})
    assert alone.find("connect/wallets") is None and alone.find("connect/wallet/walletConnect") is not None
    old = _harness(features={"emailShowWallets": False})
    assert old.find("connect/wallets") is not None


def test_legal_checkbox_links_terms_and_privacy_and_disables_every_method_until_ticked() -> None:
    h = _harness(features={"legalCheckbox": True}, termsConditionsUrl=TERMS, privacyPolicyUrl=PRIVACY)
    assert [c.id for c in h.node("connect/body").c][0] == "connect/legal-row"
    row = h.node("connect/legal-row")
    assert [(c.t, c.p.get("text")) for c in row.c] == [
        ("checkbox", "I agree to our"), ("link", "terms of service"), ("text", "and"), ("link", "privacy policy")]
    assert h.node("connect/legal/terms").p["href"] == TERMS and h.node("connect/legal/privacy").p["href"] == PRIVACY
    gated = ["connect/email", "connect/email/continue", "connect/social/google", "connect/social/x",
             "connect/wallet/walletConnect", "connect/all-wallets"]
    for node_id in gated:
        found = h.node(node_id)
        assert found.p.get("disabled") is True and "on" not in found.p, node_id
        assert h.intent(node_id, "press") != "ok"
    assert h.view == "Connect"
    h.intent("connect/legal", "toggle", {"checked": True})
    assert h.node("connect/legal").p["checked"] is True
    for node_id in gated:
        assert "on" in h.node(node_id).p and not h.node(node_id).p.get("disabled"), node_id
    h.press("connect/social/google")
    assert h.view == "ConnectingSocial"


def test_legal_checkbox_needs_the_feature_and_a_link_and_shows_the_one_link_given() -> None:
    assert _harness(termsConditionsUrl=TERMS).find("connect/legal") is None
    assert _harness(features={"legalCheckbox": True}).find("connect/legal") is None
    h = _harness(features={"legalCheckbox": True}, privacyPolicyUrl=PRIVACY)
    assert [c.id for c in h.node("connect/legal-row").c] == ["connect/legal", "connect/legal/privacy"]


def test_the_options_page_says_the_legal_checkbox_needs_a_link() -> None:
    """Issue 46: docs/hosts/options.md's row says what the rule above does (a host setting the
    feature alone sees no box)."""
    from pathlib import Path

    page = (Path(__file__).resolve().parents[2] / "docs" / "hosts" / "options.md").read_text()
    row = next(line for line in page.splitlines() if line.startswith("| `legalCheckbox` |"))
    assert "shown only when `termsConditionsUrl` or `privacyPolicyUrl` is set too" in row


@pytest.mark.parametrize("url", ["javascript:alert(1)", "ftp://x", "https://" + "a" * 3000])
def test_a_legal_link_that_is_not_a_bounded_http_url_is_refused(url: str) -> None:
    with pytest.raises(OptionsError):
        parse_options({"termsConditionsUrl": url})
