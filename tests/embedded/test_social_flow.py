"""Social sign-in in the session (issue 15 §2; behaviour.md §1 socials, §5 provider list and Telegram
rules): which buttons Connect draws, the engine-origin frame that opens the popup, the
callback's verdicts."""

from __future__ import annotations

from dataclasses import replace

from modalcore.core.cmds import Call
from modalcore.enginetest import Harness
from modalcore.rules.embedded import AUTH_CONNECTOR_ID
from modalcore.slices.embedded import SocialFailed, SocialSignedIn
from modalcore.views import logos

ADDRESS = "0x" + "ab" * 20


def _harness(socials: tuple[str, ...] = ("google", "github"), env: dict[str, object] | None = None,
             host: list[str] | None = None) -> Harness:
    options: dict[str, object] = {"networks": ["eip155:1"]}
    if host is not None:
        options["features"] = {"socials": host}
    h = Harness(is_open=True, options=options, env=env)
    h.session.model = replace(h.model, embedded=replace(h.model.embedded, socials=socials))
    h.session.render()
    return h


def test_connect_offers_the_configured_socials_only_and_never_farcaster() -> None:
    h = _harness(socials=("google", "github", "apple"), host=["google", "farcaster", "github"])
    ids = {n.id for n in h.tree.walk() if n.id.startswith("connect/social/")}
    assert ids == {"connect/social/google", "connect/social/github"}
    # two socials are two marks side by side (AppKit's w3m-social-login-widget), named by label
    assert h.node("connect/social/google").p["label"] == "Continue with Google"


def test_no_configured_provider_draws_no_social_section() -> None:
    h = _harness(socials=())
    assert h.find("connect/social-method") is None


def test_telegram_on_ios_removes_google() -> None:
    h = _harness(socials=("google", "github"), env={"telegram": True, "platform": "ios", "mobile": False})
    assert h.find("connect/social/google") is None and h.find("connect/social/github") is not None


def test_pressing_a_provider_draws_the_engine_origin_frame_that_opens_the_popup() -> None:
    """Issue 27: the popup is the engine frame's, not the host page's: no URL reaches the page."""
    h = _harness()
    h.press("connect/social/github")
    assert h.view == "ConnectingSocial"
    assert h.node("social/frame").p["src"] == "/embedded/social?session=session-1"
    assert h.effects() == [] and not [c for c in h.cmds if isinstance(c, Call)]


def test_every_social_button_names_the_engine_window_its_press_opens() -> None:
    """Issue 39 item 5: one press opens the provider. Connect's wide button, its marks and All
    Socials' rows carry `popup`, the engine page the renderer opens in the click itself (only a
    click may open a window); Farcaster signs in through its relay and opens none; a row drawn
    inert (legal box unticked) offers neither the press nor the window."""
    providers = ("google", "github", "apple", "facebook", "x", "discord", "farcaster")
    h = _harness(socials=providers, host=list(providers))

    def window(provider: str) -> str:
        return f"/embedded/social/window?session=session-1&provider={provider}"

    assert h.node("connect/social/google").p["popup"] == window("google")  # the wide button
    assert h.node("connect/social/google").p["text"] == "Continue with Google"
    assert h.node("connect/social/github").p["popup"] == window("github")  # a mark
    h.press("connect/social/more")
    assert h.view == "ConnectSocials"
    rows = {n.id: n.p.get("popup") for n in h.tree.walk() if n.id.startswith("socials/")}
    assert rows == {f"socials/{p}": window(p) if p != "farcaster" else None for p in providers}
    options = {"networks": ["eip155:1"], "features": {"socials": ["google", "github"], "legalCheckbox": True},
               "termsConditionsUrl": "https://example.com/terms"}
    gated = Harness(is_open=True, options=options)
    gated.session.model = replace(gated.model, embedded=replace(gated.model.embedded, socials=("google", "github")))
    gated.session.render()
    inert = gated.node("connect/social/google").p
    assert "on" not in inert and "popup" not in inert


def test_a_window_press_still_leads_to_the_frame_that_takes_the_window() -> None:
    h = _harness()
    h.press("connect/social/google")
    assert h.view == "ConnectingSocial"
    assert h.node("social/frame").p["src"] == "/embedded/social?session=session-1"
    assert "popup" not in h.node("social/hint").p


def test_the_callbacks_verdict_connects_or_says_what_failed() -> None:
    h = _harness()
    h.press("connect/social/google")
    h.deliver(SocialFailed("google", "the provider refused the sign-in (access_denied)"))
    assert h.node("social/error").p["text"] == "the provider refused the sign-in (access_denied)"
    assert h.find("social/retry") is not None
    h.deliver(SocialSignedIn("github", "sub-1", ADDRESS, "zoe"))  # not the provider asked for
    assert h.model.accounts.get("eip155").status == "disconnected"
    h.deliver(SocialSignedIn("google", "sub-1", ADDRESS, "zoe", "zoe@example.com"))
    account = h.model.accounts.get("eip155")
    assert account.status == "connected" and account.connector_id == AUTH_CONNECTOR_ID
    assert account.social_provider == "google" and account.user_name == "zoe"
    assert h.model.embedded.identity == "google:sub-1"


def test_a_provider_not_offered_cannot_be_started_by_an_intent() -> None:
    h = _harness(socials=("google",))
    assert h.intent("connect/social/github", "press") in ("invalid", "stale")
    assert h.view != "ConnectingSocial" and not [c for c in h.cmds if isinstance(c, Call)]


def test_a_social_account_is_shown_as_that_providers_account_not_as_a_typed_email() -> None:
    """A Google sign-in's Account read the address beside a mail icon, as if an email code had
    been used: it names the provider."""
    h = _harness()
    h.press("connect/social/google")
    h.deliver(SocialSignedIn("google", "sub-1", ADDRESS, "zoe", "zoe@example.com"))
    h.host("open")
    chip = h.node("account/user").p
    assert (chip["text"], chip["image"], chip["label"]) == (  # the provider's mark (issue 39 item 9)
        "zoe@example.com", logos.SOCIALS["google"], "Signed in with Google as zoe@example.com")
