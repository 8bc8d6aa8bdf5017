"""Sign in with Farcaster in the session (issue 33; behaviour.md §1 socials, §2 ConnectingFarcaster and
its back rule): Connect offers it only when the engine is configured for it; the channel's URL
as a QR code (desktop) or an Open Farcaster button (phone); polling; a verified answer connects
the FID's embedded account; a refusal stores nothing and offers Try again; an expired channel is
replaced; back from ConnectingFarcaster clears the link and stops polling."""

from __future__ import annotations

from dataclasses import replace

from modalcore.core.cmds import Failure
from modalcore.chains.catalog import catalog
from modalcore.slices.model import initial_model
from modalcore.enginetest import Harness
from modalcore.slices.options import parse_options
from modalcore.wire.frames import Env
from modalcore.flows.farcaster import awaiting_frame, user_line
from modalcore.rules.embedded import AUTH_CONNECTOR_ID
from modalcore.slices.farcaster import POLL_MS, POLL_TIMER, ChannelOpened, FarcasterChannelOpened

ADDRESS = "0x" + "ab" * 20
URL = "farcaster://connect?channelToken=tok&nonce=abababababab&siweUri=https%3A%2F%2Fa&domain=a"
TOKEN = "t" * 32


def _harness(socials: tuple[str, ...] = ("google", "farcaster"), env: dict[str, object] | None = None) -> Harness:
    h = Harness(is_open=True, options={"networks": ["eip155:1"]}, env=env)
    h.session.model = replace(h.model, embedded=replace(h.model.embedded, socials=socials))
    h.session.render()
    return h


def _channel(h: Harness, token: str = TOKEN, attempt: int = 1) -> None:
    """What ConnectingFarcaster's frame route delivers once it opened a channel for its key."""
    h.deliver(FarcasterChannelOpened(key=str(attempt), result=ChannelOpened(
        channel_token=token, url=URL.replace("tok", token), nonce="abababababab")))


def test_farcaster_is_offered_only_when_the_engine_is_configured_for_it() -> None:
    assert _harness(socials=("google",)).find("connect/social/farcaster") is None
    h = _harness()
    # two socials are two marks side by side (AppKit), each named by its label
    assert h.node("connect/social/farcaster").p["label"] == "Continue with Farcaster"


def test_the_engine_origin_frame_opens_the_channel_and_the_session_polls_it() -> None:
    """The host page never draws the link (issue 27): the frame opens the channel for its key
    and draws it; the session only learns it and polls it."""
    h = _harness()
    h.press("connect/social/farcaster")
    assert h.view == "ConnectingFarcaster" and h.pending_calls() == []
    frame = h.node("farcaster/frame")
    assert frame.p["src"] == "/embedded/farcaster?session=session-1&attempt=1"
    assert h.node("farcaster/hint").p["text"] == "Scan this QR Code with your phone"
    assert awaiting_frame(h.model) == 1
    _channel(h, attempt=2)  # not the frame shown: ignored
    assert h.model.embedded.farcaster is not None and h.model.embedded.farcaster.token == ""
    _channel(h)
    assert awaiting_frame(h.model) is None  # a second channel for this attempt is refused
    assert h.find("farcaster/qr") is None and h.find("farcaster/copy") is None
    assert h.timer_due(POLL_TIMER) == h.now + POLL_MS
    h.advance(POLL_MS)
    [status] = h.pending_calls("farcaster.status")
    assert status.args_data == {"token": TOKEN, "nonce": "abababababab"}
    h.settle_call("farcaster.status", {"state": "pending"})
    assert h.timer_due(POLL_TIMER) == h.now + POLL_MS


def test_a_phone_is_told_to_continue_in_farcaster_the_frame_holds_the_link() -> None:
    h = _harness(env={"mobile": True})
    h.press("connect/social/farcaster")
    _channel(h)
    assert h.node("farcaster/hint").p["text"] == "Continue in Farcaster"
    assert h.find("farcaster/frame") is not None and h.find("farcaster/open") is None


def test_the_frame_cannot_open_a_channel_that_failed_or_once_connected() -> None:
    h = _harness()
    h.press("connect/social/farcaster")
    h.deliver(FarcasterChannelOpened(key="1", failure=Failure("upstream", "unreachable")))
    assert h.node("farcaster/status").p["text"] == "Farcaster could not be reached"
    assert awaiting_frame(h.model) is None and h.find("farcaster/frame") is None
    h.press("farcaster/retry")
    assert awaiting_frame(h.model) == 2
    assert h.node("farcaster/frame").p["src"].endswith("&attempt=2")


def test_a_verified_answer_connects_the_fids_embedded_account() -> None:
    h = _harness()
    h.press("connect/social/farcaster")
    _channel(h)
    h.advance(POLL_MS)
    h.settle_call("farcaster.status", {"state": "verified", "fid": 2, "username": "carol",
                                       "display_name": "Carol Caster", "pfp_url": "https://x.example/c.svg",
                                       "address": ADDRESS})
    account = h.model.accounts.get("eip155")
    assert account.status == "connected" and account.connector_id == AUTH_CONNECTOR_ID
    assert (account.social_provider, account.user_name) == ("farcaster", "Carol Caster (@carol)")
    assert account.profile_image == "https://x.example/c.svg"
    assert h.node("account/user").p["text"] == "Carol Caster (@carol)"
    assert h.model.embedded.identity == "farcaster:2"


def test_account_shows_the_farcaster_display_name_and_pfp_after_the_accounts_name_lookup() -> None:
    """The display name is the user chip's and the pfp the avatar: an ENS name found for the
    address (the names slice, profile_name) is shown as the address line, and overwrites neither."""
    networks = catalog([replace(catalog()["eip155:31337"], rpc_urls=("http://127.0.0.1:1",),
                                ens_registry="0x" + "e1" * 20)])
    h = Harness(initial_model("p", "http://localhost:8000", parse_options({"networks": ["eip155:31337"]}),
                              Env(), [], networks), is_open=True)
    h.session.model = replace(h.model, embedded=replace(h.model.embedded, socials=("google", "farcaster")))
    h.session.render()
    h.press("connect/social/farcaster")
    _channel(h)
    h.advance(POLL_MS)
    h.settle_call("farcaster.status", {"state": "verified", "fid": 2, "username": "carol",
                                       "display_name": "Carol Caster", "pfp_url": "https://x.example/c.svg",
                                       "address": ADDRESS})
    h.settle_call("name_of", {"name": "carol.eth"})
    account = h.model.accounts.get("eip155")
    assert account.profile_name == "carol.eth"
    assert h.node("account/address").p["text"] == "carol.eth"
    assert h.node("account/user").p["text"] == "Carol Caster (@carol)"
    assert h.node("account/user").p["label"] == "Signed in with Farcaster as Carol Caster (@carol)"
    assert h.node("account/avatar").p["image"] == "https://x.example/c.svg"


def test_the_user_chip_says_what_the_farcaster_client_sent() -> None:
    assert user_line("Carol Caster", "carol", 2) == "Carol Caster (@carol)"
    assert user_line("", "carol", 2) == "@carol"
    assert user_line("Carol Caster", "", 2) == "Carol Caster"
    assert user_line("", "", 2) == "FID 2"


def test_a_refused_answer_stores_nothing_and_offers_try_again() -> None:
    h = _harness()
    h.press("connect/social/farcaster")
    _channel(h)
    h.advance(POLL_MS)
    h.settle_call("farcaster.status", {"state": "refused", "reason": "registry"})
    assert h.model.accounts.get("eip155").status == "disconnected" and h.model.embedded.identity == ""
    assert h.node("farcaster/status").p["text"] == "The Farcaster sign-in could not be verified"
    assert h.timer_due(POLL_TIMER) is None
    h.press("farcaster/retry")
    assert h.find("farcaster/retry") is None and awaiting_frame(h.model) == 2  # a fresh frame


def test_an_expired_channel_is_replaced_by_a_fresh_one() -> None:
    h = _harness()
    h.press("connect/social/farcaster")
    _channel(h)
    h.advance(POLL_MS)
    h.settle_call("farcaster.status", {"state": "expired"})
    assert awaiting_frame(h.model) == 2 and h.view == "ConnectingFarcaster"
    assert h.node("farcaster/frame").p["src"].endswith("&attempt=2")
    _channel(h, "n" * 32, attempt=2)
    assert h.model.embedded.farcaster is not None and h.model.embedded.farcaster.token == "n" * 32


def test_back_from_connecting_farcaster_clears_the_link_and_stops_polling() -> None:
    h = _harness()
    h.press("connect/social/farcaster")
    _channel(h)
    assert h.model.accounts.get("eip155").farcaster_url == URL.replace("tok", TOKEN)
    h.press("header/back")
    assert h.view == "Connect" and h.model.embedded.farcaster is None
    assert h.model.accounts.get("eip155").farcaster_url is None
    assert h.timer_due(POLL_TIMER) is None
    h.advance(POLL_MS * 3)
    assert h.pending_calls("farcaster.status") == []
    _channel(h, "z" * 32)
    assert h.model.embedded.farcaster is None  # a late channel does not reopen it
    assert awaiting_frame(h.model) is None


def test_a_late_status_for_an_old_channel_is_ignored() -> None:
    h = _harness()
    h.press("connect/social/farcaster")
    _channel(h)
    h.advance(POLL_MS)
    [old] = h.pending_calls("farcaster.status")
    h.press("header/back")
    h.settle(old, {"state": "verified", "fid": 1, "address": ADDRESS})
    assert h.model.accounts.get("eip155").status == "disconnected"


def test_with_sign_in_required_and_a_statement_of_the_hosts_the_account_goes_on_to_sign_in() -> None:
    """A statement the visitor was not shown in Farcaster is never signed at once: two steps
    (tests/farcaster/test_one_approval.py has the one-approval sign-in)."""
    h = Harness(is_open=True, options={"networks": ["eip155:1"],
                                       "siwx": {"required": True, "statement": "I accept the terms"}})
    h.session.model = replace(h.model, embedded=replace(h.model.embedded, socials=("farcaster",)))
    h.session.render()
    h.press("connect/social/farcaster")
    assert h.pending_calls("siwx.nonce") == [] and awaiting_frame(h.model) == 1
    _channel(h)
    h.advance(POLL_MS)
    h.settle_call("farcaster.status", {"state": "verified", "fid": 2, "username": "carol", "address": ADDRESS})
    h.settle_call("siwx.sessions", {"sessions": []})
    assert h.view == "SIWXSignMessage"  # signed by the embedded key through the approval frame
    assert h.pending_calls("farcaster.sign_in") == []
