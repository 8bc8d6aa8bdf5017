"""Continue on your computer (issue 44 item 1, phone to computer), through the engine's own steps:
on a phone-sized session (`env.mobile`) the footer offers "Continue on your computer", the link
is offered as a short address and a code to type, the computer claims it with its own key, and
the phone (the screen owning the session) confirms the code both show. The same link rules
hold: once, 2 minutes, this session, the engine's origin; every refusal leaves the model as it was."""

from __future__ import annotations

from typing import Any

from modalcore import samples
from modalcore.core.evolve import replace
from modalcore.enginetest import Harness
from modalcore.slices.handoff import (CODE_ALPHABET, LINK_TTL_MS, TYPED_MAX_CHARS, HandoffRefusal, PhoneClaimed,
                                      PhoneConfirmed, claim_refusal, link_digest, link_token, linked_key, read_code,
                                      short_code, spaced_code, typed_code)

from .test_handoff_engine import _refused, _signed_in, _waiting

BASE = "https://engine.example"
NONCE = "n0nce-of-the-phone"
COMPUTER = "computer-public-key"


def _on_a_phone(**features: object) -> dict[str, Any]:
    join = samples.join(features={"continueOnPhone": True, **features})
    join["env"] = {**join["env"], "mobile": True}
    return join


def _offered() -> Harness:
    h = Harness.from_join(_on_a_phone())
    h.apply(_signed_in)
    h.host("open")
    h.expect(view="Connect", text="Continue on your computer", no_text="Continue on your phone")
    h.press("footer/continue-on-phone")
    h.expect(view="ContinueOnPhone", text="Preparing the code")
    assert h.pending_calls("handoff.token")[0].args.typed is True, "the code is not noted for the computer's page"
    h.settle_call("handoff.token", {"nonce": NONCE, "base": BASE})
    return h


def _claim(h: Harness, *, key: str = COMPUTER, origin: str = BASE) -> PhoneClaimed:
    token = link_token(h.model.session_id, NONCE)
    return PhoneClaimed(digest=link_digest(h.model.session_id, token), public_key=key, origin=origin)


def test_rule_on_a_computer_the_footer_still_offers_the_phone() -> None:
    h = Harness.from_join(samples.join(features={"continueOnPhone": True}))
    h.host("open")
    h.expect(view="Connect", text="Continue on your phone", no_text="Continue on your computer")


def test_rule_on_a_phone_the_link_is_a_short_address_and_a_code_to_type_not_a_qr_code() -> None:
    h = _offered()
    code = typed_code(h.model.session_id, NONCE)
    assert h.model.handoff.to == "computer" and h.model.handoff.status == "offered"
    h.expect(view="ContinueOnPhone", text=["Continue on computer", "engine.example/continue", spaced_code(code),
                                           "The code works once, for 2 minutes."])
    assert not h.of_type("qr"), "a QR code offered to a computer"
    assert len(code) == 8 and set(code) <= set(CODE_ALPHABET)
    assert code != typed_code("another-session", NONCE) and code != typed_code(h.model.session_id, "another-nonce")
    h.press("handoff/copy")  # the whole link, copyable too
    assert h.pending_effect("clipboard")["req"]["text"] == (
        f"{BASE}/continue/{h.model.session_id}.{link_token(h.model.session_id, NONCE)}")


def test_rule_the_typed_code_is_bounded_and_read_forgivingly() -> None:
    code = typed_code("s1", NONCE)
    assert read_code(code) == code
    assert read_code(f" {code[:4].lower()}-{code[4:]} ") == code
    assert read_code(code.replace("0", "o").replace("1", "l")) == code
    assert read_code(code[:7]) is None and read_code(code + "0") is None
    assert read_code("U" * 8) is None  # not of the alphabet
    assert read_code(" " * (TYPED_MAX_CHARS + 1) + code) is None  # too long before it is read


def test_rule_the_computer_claims_and_only_the_phones_confirmation_links_it() -> None:
    h = _offered()
    h.deliver(_claim(h))
    code = short_code(h.model.handoff.digest, COMPUTER)
    h.expect(view="ContinueOnPhone", text=["Does your computer show this code?", f"{code[:3]} {code[3:]}"])
    assert h.node(f"handoff/confirm/{h.model.handoff.digest[:16]}").p["title"] == "Confirm your computer"
    assert linked_key(h.model) == "", "linked from the code alone"
    h.deliver(PhoneConfirmed(digest=h.model.handoff.digest, public_key=COMPUTER))
    assert linked_key(h.model) == COMPUTER
    h.expect(view="Connect", text="Your computer is connected", no_text="Continue on your computer")


def test_rule_a_second_use_and_a_leaked_link_are_refused_and_change_nothing() -> None:
    h = _offered()
    _refused(h, _claim(h, origin="https://app.example"), HandoffRefusal.FOREIGN_ORIGIN)
    h.deliver(_claim(h))
    _refused(h, _claim(h, key="third-context-key"), HandoffRefusal.USED)
    h.deliver(PhoneConfirmed(digest=h.model.handoff.digest, public_key="third-context-key"))
    assert linked_key(h.model) == ""
    h.deliver(PhoneConfirmed(digest=h.model.handoff.digest, public_key=COMPUTER))
    _refused(h, _claim(h, key="third-context-key"), HandoffRefusal.USED)
    assert linked_key(h.model) == COMPUTER


def test_rule_the_code_works_for_2_minutes() -> None:
    h = _offered()
    h.advance(LINK_TTL_MS - 1)
    assert claim_refusal(h.model, _claim(h), h.now) is None
    h.advance(1)
    h.expect(view="ContinueOnPhone", text="This link expired")
    _refused(h, _claim(h), HandoffRefusal.UNKNOWN)
    h.press("handoff/new")
    assert h.pending_calls("handoff.token")[0].args.typed is True


def test_rule_no_on_the_phone_forgets_the_computer() -> None:
    h = _offered()
    h.deliver(_claim(h))
    h.press("handoff/deny")
    assert linked_key(h.model) == ""
    h.expect(text="Computer not connected")


def test_rule_with_a_computer_linked_the_phones_approval_waits_for_the_computer() -> None:
    h = _offered()
    h.deliver(_claim(h))
    h.deliver(PhoneConfirmed(digest=h.model.handoff.digest, public_key=COMPUTER))
    h.apply(_waiting)
    h.apply(lambda m: (replace(m, router=replace(m.router, history=(*m.router.history,
                                                                   type(m.router.history[0])("ApproveTransaction")))), []))
    h.expect(view="ApproveTransaction", text="Waiting for your computer", no_text="Waiting for your phone")
    assert not h.of_type("frame")
