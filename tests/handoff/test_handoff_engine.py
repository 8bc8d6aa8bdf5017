"""Continue on another device (issue 44 item 1), through the engine's own steps: the footer's
action mints a link by a command, the link works once for 2 minutes (`now`), only for this
session and the engine's origin, and only the desktop's confirmation of the code both screens
show links the phone's key. Every refusal is typed and leaves the model exactly as it was."""

from __future__ import annotations

from modalcore import samples
from modalcore.core.evolve import replace
from modalcore.enginetest import Harness
from modalcore.slices.embedded import EmbeddedRequest
from modalcore.engine.persist import ModelPacker, PendingTimer, session_to_bytes, session_to_save
from modalcore.slices.handoff import (LINK_TTL_MS, HandoffRefusal, PhoneClaimed, PhoneConfirmed, claim_refusal,
                                      link_digest, link_token, linked_key, short_code)
from modalcore.slices.model import Model, Step
from modalcore.views.qrcode import encoded

BASE = "https://engine.example"
NONCE = "n0nce-random-part"
KEY = "phone-public-key"


IDENTITY = "email:mia@example.com"


def _signed_in(model: Model, identity: str = IDENTITY) -> Step:
    return replace(model, embedded=replace(model.embedded, identity=identity)), []


def _offered(**features: object) -> Harness:
    h = Harness.from_join(samples.join(features={"continueOnPhone": True, **features}))
    h.apply(_signed_in)
    h.host("open")
    h.expect(view="Connect", text="Continue on your phone")
    h.press("footer/continue-on-phone")
    h.expect(view="ContinueOnPhone", text="Preparing the QR code")
    h.settle_call("handoff.token", {"nonce": NONCE, "base": BASE})
    return h


def _token(h: Harness, nonce: str = NONCE) -> str:
    return link_token(h.model.session_id, nonce)


def _claim(h: Harness, *, token: str | None = None, origin: str = BASE, key: str = KEY,
           session: str | None = None) -> PhoneClaimed:
    token = token if token is not None else _token(h)
    return PhoneClaimed(digest=link_digest(session or h.model.session_id, token), public_key=key, origin=origin)


def _refused(h: Harness, msg: PhoneClaimed, why: HandoffRefusal) -> None:
    """The refusal the page is told, and nothing changed when the session gets the claim anyway."""
    assert claim_refusal(h.model, msg, h.now) is why
    before, frames = h.model, len(h.frames)
    h.deliver(msg)
    assert h.model == before
    assert len(h.frames) == frames, "a refused claim sent something"


def test_the_footer_offers_it_only_when_the_host_turns_it_on() -> None:
    h = Harness.from_join(samples.join())
    h.host("open")
    h.expect(view="Connect", no_text="Continue on your phone")


def test_the_link_is_minted_by_a_command_and_drawn_as_a_qr_code_with_copy_link() -> None:
    h = _offered()
    state = h.model.handoff
    assert (state.status, state.nonce, state.base) == ("offered", NONCE, BASE)
    assert state.digest == link_digest(h.model.session_id, _token(h))
    assert state.expires_at == h.now + LINK_TTL_MS == h.now + 120_000
    assert h.of_type("qr"), "no QR code"
    h.press("handoff/copy")
    effect = h.pending_effect("clipboard")
    assert effect["req"]["text"] == f"{BASE}/continue/{h.model.session_id}.{_token(h)}"


def _saved(h: Harness) -> list[bytes]:
    """What the session store would be given for this session now: the self-contained bytes and
    a live save (format 3) with its shared blobs, the pending timers included."""
    timers = [PendingTimer(key, t.due, t.msg) for key, t in h.timers.items()]
    live = session_to_save(h.session, timers, ModelPacker(shared=True))
    return [session_to_bytes(h.session, timers), live.data, *live.blobs.values()]


def test_the_saved_session_never_holds_the_links_token() -> None:
    """Rule: the link's secret part is derived at render (engine key, session, nonce), never kept:
    whoever reads the session store cannot build the link."""
    h = _offered()
    token = _token(h)
    link = f"{BASE}/continue/{h.model.session_id}.{token}"
    assert len(token) == 32 and h.of_type("qr")[0].p["bits"] == encoded(link, False)[1], "the QR code is not the link"
    h.press("handoff/copy")
    assert token in h.pending_effect("clipboard")["req"]["text"]
    saves = _saved(h)
    h.deliver(_claim(h))
    saves += _saved(h)
    for data in saves:
        assert token.encode() not in data
    assert NONCE.encode() in saves[0], "the saved session does not hold what the link is derived from"


def _confirm(h: Harness, key: str = KEY) -> None:
    h.deliver(PhoneConfirmed(digest=h.model.handoff.digest, public_key=key))


def test_a_claim_shows_the_code_and_only_the_confirmation_frames_yes_links_the_phone() -> None:
    h = _offered()
    h.deliver(_claim(h))
    code = short_code(h.model.handoff.digest, KEY)
    h.expect(view="ContinueOnPhone", text="Does your phone show this code?")
    assert f"{code[:3]} {code[3:]}" in h.screen_texts()
    assert linked_key(h.model) == "", "linked from the link alone"
    # "Yes" is not a node of the host's tree: the engine's own frame confirms (handoff_confirm.py)
    assert not [n for n in h.of_type("button") if n.p.get("text") == "Yes, it does"]
    assert h.node(f"handoff/confirm/{h.model.handoff.digest[:16]}").p["src"].startswith("/continue-confirm?session=")
    _confirm(h)
    assert linked_key(h.model) == KEY
    h.expect(view="Connect", text="Your phone is connected", no_text="Continue on your phone")


def test_a_confirmation_for_another_key_links_nothing() -> None:
    h = _offered()
    h.deliver(_claim(h))
    before = h.model
    _confirm(h, key="attackers-key")
    assert h.model == before


def test_without_an_embedded_account_the_frames_confirmation_links_nothing() -> None:
    """No account at all: the modal's own Yes links for no account (test_handoff_no_account.py);
    the frame's signed confirmation, which links for an embedded account, counts for none."""
    h = _offered()
    h.apply(lambda m: _signed_in(m, ""))
    h.deliver(_claim(h))
    assert not h.of_type("frame") and h.find("handoff/yes") is not None
    before = h.model
    _confirm(h)
    assert h.model == before


def test_the_linked_phone_approves_only_for_the_account_it_was_linked_for() -> None:
    h = _offered()
    h.deliver(_claim(h))
    _confirm(h)
    h.apply(lambda m: _signed_in(m, "email:someone-else@example.com"))
    assert linked_key(h.model) == ""
    h.expect(text="Continue on your phone")  # offered again, for the account signed in now


def test_no_forgets_the_phone() -> None:
    h = _offered()
    h.deliver(_claim(h))
    h.press("handoff/deny")
    assert h.model.handoff.phone_key == "" and linked_key(h.model) == ""
    h.expect(text="Phone not connected")


def test_the_link_expires_after_2_minutes() -> None:
    h = _offered()
    h.advance(LINK_TTL_MS - 1)
    assert claim_refusal(h.model, _claim(h), h.now) is None, "refused before its 2 minutes"
    h.advance(1)
    h.expect(view="ContinueOnPhone", text="This link expired")
    assert h.model.handoff.nonce == ""
    _refused(h, _claim(h), HandoffRefusal.UNKNOWN)


def test_a_claim_at_the_expiry_time_is_refused_expired_even_before_the_timer() -> None:
    h = _offered()
    late = _claim(h)
    model = h.model
    assert claim_refusal(model, late, model.handoff.expires_at) is HandoffRefusal.EXPIRED
    assert claim_refusal(model, late, model.handoff.expires_at - 1) is None


def test_a_second_scan_is_refused_used_and_changes_nothing() -> None:
    h = _offered()
    h.deliver(_claim(h))
    _refused(h, _claim(h, key="someone-elses-key"), HandoffRefusal.USED)
    _confirm(h)
    _refused(h, _claim(h, key="someone-elses-key"), HandoffRefusal.USED)
    assert linked_key(h.model) == KEY


def test_a_link_of_another_session_is_refused_unknown() -> None:
    h = _offered()
    _refused(h, _claim(h, session="another-session"), HandoffRefusal.UNKNOWN)
    _refused(h, _claim(h, token="guessed"), HandoffRefusal.UNKNOWN)


def test_a_claim_from_another_origin_is_refused_foreign_origin() -> None:
    h = _offered()
    _refused(h, _claim(h, origin="https://app.example"), HandoffRefusal.FOREIGN_ORIGIN)
    assert h.model.handoff.status == "offered"


def test_a_new_link_after_expiry_and_the_old_one_stays_dead() -> None:
    h = _offered()
    old = _claim(h)
    h.advance(LINK_TTL_MS)
    h.press("handoff/new")
    h.settle_call("handoff.token", {"nonce": "second-nonce", "base": BASE})
    _refused(h, old, HandoffRefusal.UNKNOWN)
    assert claim_refusal(h.model, _claim(h, token=_token(h, "second-nonce")), h.now) is None


def test_a_code_mismatch_answered_no_links_nothing_and_a_later_claim_of_that_link_is_used() -> None:
    h = _offered()
    h.deliver(_claim(h, key="attackers-key"))
    h.press("handoff/deny")
    assert linked_key(h.model) == ""
    _refused(h, _claim(h), HandoffRefusal.USED)


def _waiting(model: Model) -> Step:
    request = EmbeddedRequest(eid="e99", method="eth_sendTransaction", params="[]", key="", chain="eip155:31337")
    return replace(model, embedded=replace(model.embedded, request=request)), []


def test_with_a_phone_linked_the_approval_waits_for_the_phone() -> None:
    h = _offered()
    h.deliver(_claim(h))
    _confirm(h)
    h.apply(_waiting)
    h.apply(lambda m: (replace(m, router=replace(m.router, history=(*m.router.history,
                                                                   type(m.router.history[0])("ApproveTransaction")))), []))
    h.expect(view="ApproveTransaction", text="Waiting for your phone")
    assert not h.of_type("frame"), "the approval frame is drawn while the phone approves"
