"""Continue on your phone with no account in the session (issue 44 item 1: "a desktop visitor
without a wallet extension approves on the phone's wallet or embedded account"), through intents.

With no embedded account and none connected, "Yes, it does" is a button of the modal: the phone
it links gets only what the host page has (slices/handoff.py). With an account, only the
engine's confirmation frame links (unchanged); an account that comes while the phone waits
makes the modal's Yes refused (typed `invalid`, nothing changes). An account signed in later
keeps the link only when the phone itself signed in (its linked key registered by the sign-in
frame inside its modal)."""

from __future__ import annotations

from modalcore import samples
from modalcore.core.evolve import replace
from modalcore.enginetest import Harness
from modalcore.enginetest.companion import Phone
from modalcore.services.domain.handles import EMAIL_CODE
from modalcore.slices.accounts import AccountState
from modalcore.slices.embedded import CodeCheckResult, EmailCodeChecked, PasskeySignedIn, SocialSignedIn
from modalcore.slices.farcaster import POLL_MS, ChannelOpened, FarcasterChannelOpened
from modalcore.slices.handoff import PressedHandoffYes, linked_key
from modalcore.slices.model import Model, Step
from modalcore.server.handoff import links_key
from tests.embedded.world import offer_email

from .test_handoff_computer import COMPUTER, NONCE as PHONE_NONCE, _claim as _computer_claim, _on_a_phone
from .test_handoff_engine import BASE, IDENTITY, KEY, NONCE, _claim, _confirm, _signed_in, _waiting

EMAIL = "mia@example.com"
ADDRESS = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
NOT_LINKED_TEXT = "Sign in on this computer with email or a social account to approve on your phone"


def _claimed(signed_in: bool = False) -> Harness:
    """A computer's session with no account (or the embedded one), a phone's claim waiting for Yes."""
    h = Harness.from_join(samples.join(features={"continueOnPhone": True}, networks=["eip155:31337"]))
    offer_email(h)
    if signed_in:
        h.apply(_signed_in)
    h.host("open")
    h.press("footer/continue-on-phone")
    h.settle_call("handoff.token", {"nonce": NONCE, "base": BASE})
    h.deliver(_claim(h))
    h.expect(view="ContinueOnPhone", text="Does your phone show this code?")
    return h


def _connected(model: Model) -> Step:
    """An account connected meanwhile (an extension, say): not the embedded one."""
    return replace(model, accounts=model.accounts.with_account(
        "eip155", AccountState(status="connected", address=ADDRESS, caip_address=f"eip155:31337:{ADDRESS}"))), []


def _refused_unchanged(h: Harness) -> None:
    before, frames = h.model, len(h.frames)
    assert h.intent("handoff/yes") == "invalid"
    assert h.model is before and len(h.frames) == frames + 1, "a refused Yes changed something"  # its ack only
    h.deliver(PressedHandoffYes())  # even delivered past the tree: nothing
    assert h.model == before
    assert linked_key(h.model) == ""


def test_rule_with_no_account_the_modals_yes_links_the_phone_for_no_account() -> None:
    h = _claimed()
    assert not [n for n in h.of_type("frame") if n.id.startswith("handoff/")], "no frame: Yes gives no power the host lacks"
    assert h.node("handoff/yes").p["text"] == "Yes, it does"
    h.press("handoff/yes")
    assert linked_key(h.model) == KEY and h.model.handoff.identity == ""
    h.expect(view="Connect", text="Your phone is connected", no_text="Continue on your phone")
    phone = Phone(h, KEY)
    assert phone.companion.linked and "Connect Wallet" in phone.texts()


def test_rule_with_an_embedded_account_only_the_signed_frame_links() -> None:
    h = _claimed(signed_in=True)
    assert h.find("handoff/yes") is None
    assert h.node(f"handoff/confirm/{h.model.handoff.digest[:16]}").t == "frame"
    _refused_unchanged(h)
    _confirm(h)
    assert linked_key(h.model) == KEY and h.model.handoff.identity == IDENTITY


def test_rule_an_account_connected_while_the_phone_waits_refuses_the_modals_yes() -> None:
    h = _claimed()
    assert h.find("handoff/yes") is not None
    h.apply(_connected)
    h.expect(text=NOT_LINKED_TEXT)
    _refused_unchanged(h)
    _confirm(h)  # nor does the frame's message link it: no embedded account to confirm for
    assert linked_key(h.model) == ""


def test_rule_an_account_signed_in_while_the_phone_waits_refuses_the_modals_yes() -> None:
    h = _claimed()
    h.apply(_signed_in)
    assert h.find("handoff/yes") is None
    _refused_unchanged(h)


def _linked_no_account() -> tuple[Harness, Phone]:
    h = _claimed()
    h.press("handoff/yes")
    return h, Phone(h, KEY)


def _sign_in_on(h: Harness, typed_on: Phone | Harness, key: str) -> None:
    """The email typed in the modal of `typed_on`; its code accepted in the sign-in frame whose
    key (`key`) the engine registered (server/verify.py delivers it with the verdict)."""
    if isinstance(typed_on, Phone):
        typed_on.intent("connect/email", "submit", {"value": EMAIL})
    else:
        typed_on.intent("connect/email", "submit", {"value": EMAIL})
    h.settle_call(EMAIL_CODE, {"status": "sent"})
    assert h.view == "EmailVerifyOtp"
    h.deliver(EmailCodeChecked(email=EMAIL, result=CodeCheckResult(verdict="accepted", attempts_left=5,
                                                                   address=ADDRESS), key=key))
    assert h.model.embedded.identity == f"email:{EMAIL}"


def test_rule_signing_in_on_the_phone_keeps_the_link_for_that_account() -> None:
    """The sign-in frame inside the phone's modal keeps its key where the phone's page does: the
    key registered is the linked one, so the phone approves for the account it signed in."""
    h, phone = _linked_no_account()
    _sign_in_on(h, phone, KEY)
    assert linked_key(h.model) == KEY and h.model.handoff.identity == f"email:{EMAIL}"
    assert phone.companion.linked
    h.apply(_waiting)
    h.apply(lambda m: (replace(m, router=replace(m.router, history=(*m.router.history,
                                                                   type(m.router.history[0])("ApproveTransaction")))), []))
    h.expect(view="ApproveTransaction", text="Waiting for your phone")
    assert phone.tree.find("approve/phone-frame/e99") is not None


def test_rule_an_account_signed_in_on_another_browser_ends_a_no_account_link() -> None:
    """The host page could have pressed Yes for its own server's key: an account signed in with
    another key (the computer's frame) is never approved for by that phone, nor after sign-out."""
    h, phone = _linked_no_account()
    _sign_in_on(h, h, "the-computers-frame-key")
    assert linked_key(h.model) == ""
    assert not phone.companion.linked
    assert (h.model.handoff.status, h.model.handoff.phone_key) == ("idle", "")
    h.apply(lambda m: _signed_in(m, ""))  # signed out: the link does not come back
    assert linked_key(h.model) == ""


def test_rule_an_account_connected_through_the_link_keeps_it() -> None:
    """A wallet connected after the link (the phone's wallet app over WalletConnect, say) is no
    embedded account: the phone stays linked, with the host page's powers."""
    h, phone = _linked_no_account()
    h.apply(_connected)
    assert linked_key(h.model) == KEY and phone.companion.linked


def test_rule_a_passkey_or_social_sign_in_on_the_phone_keeps_the_link_too() -> None:
    """The passkey's and the provider's sign-ins name the frame's key they registered, as a code's."""
    h, phone = _linked_no_account()
    h.deliver(PasskeySignedIn(email=EMAIL, address=ADDRESS, key=KEY))
    assert h.model.embedded.identity == f"email:{EMAIL}"
    assert linked_key(h.model) == KEY and phone.companion.linked

    h, phone = _linked_no_account()
    h.apply(lambda m: (replace(m, embedded=replace(m.embedded, social="google")), []))  # Continue with Google
    h.deliver(SocialSignedIn(provider="google", subject="g-1", address=ADDRESS, key="the-computers-frame-key"))
    assert h.model.embedded.identity.startswith("google:")
    assert linked_key(h.model) == "" and h.model.handoff.phone_key == "" and not phone.companion.linked


def _farcaster_signs_in(h: Harness, frame_key: str) -> None:
    """Continue with Farcaster: the channel opened by the sign-in frame whose key is `frame_key`
    (server/verify_farcaster.py names it), then the client's verified answer."""
    h.apply(lambda m: (replace(m, embedded=replace(m.embedded, socials=("farcaster",))), []))
    h.press("connect/social/farcaster")
    h.deliver(FarcasterChannelOpened(key="1", result=ChannelOpened(
        channel_token="t" * 32, url="farcaster://connect?channelToken=" + "t" * 32, nonce="abababababab",
        public_key=frame_key)))
    h.advance(POLL_MS)
    h.settle_call("farcaster.status", {"state": "verified", "fid": 2, "username": "carol", "address": ADDRESS})
    assert h.model.embedded.identity == "farcaster:2"


def test_rule_a_farcaster_sign_in_on_the_phone_keeps_the_link_and_anothers_forgets_it() -> None:
    """The channel is opened for the sign-in frame's key and the verified answer registers that
    key: when it is the phone's, the phone signed in inside its own modal."""
    h, phone = _linked_no_account()
    _farcaster_signs_in(h, KEY)
    assert linked_key(h.model) == KEY and h.model.handoff.identity == "farcaster:2" and phone.companion.linked

    h, phone = _linked_no_account()
    _farcaster_signs_in(h, "the-computers-frame-key")
    assert linked_key(h.model) == "" and h.model.handoff.phone_key == "" and not phone.companion.linked


def test_rule_a_no_account_link_names_no_phone_once_any_account_signs_in() -> None:
    """A sign-in whose message names no key (any account set otherwise)
    leaves the link's state as it is: the routes that name the link (the phone's approve, its
    companion nonce) still ask `linked_key`, so the phone gets nothing for that account."""
    h, phone = _linked_no_account()
    digest = h.model.handoff.digest
    assert links_key(h.model, digest, KEY)
    h.apply(_signed_in)
    h.apply(_waiting)
    assert h.model.handoff.status == "linked" and linked_key(h.model) == ""
    assert not links_key(h.model, digest, KEY), "the phone's page could approve the account's request by its link"
    assert not phone.companion.linked


def test_rule_a_phone_with_no_account_continues_on_a_computer_by_its_modals_yes() -> None:
    """The other way round: the phone's session owns it and says Yes; the computer joins with the
    host page's powers, no more."""
    h = Harness.from_join(_on_a_phone())
    h.host("open")
    h.press("footer/continue-on-phone")
    h.settle_call("handoff.token", {"nonce": PHONE_NONCE, "base": BASE})
    h.deliver(_computer_claim(h))
    h.expect(view="ContinueOnPhone", text="Does your computer show this code?")
    h.press("handoff/yes")
    assert linked_key(h.model) == COMPUTER and h.model.handoff.identity == ""
    h.expect(text="Your computer is connected")
