"""Each screen draws its own tree of the one session (issue 44 item 1; views/screens.py): while a
request waits for the linked phone, the host page's ApproveTransaction says "Waiting for your
phone" and the phone's modal holds the phone's approval frame (its rows, Approve and Reject,
signed with the phone's key). The host page never gets that frame: an intent of the host page's
naming it is refused, typed, and changes nothing. The memo of view bodies keys on the screen. A
phone's session continued on a computer: the computer's modal approves, drawn as a computer's."""

from __future__ import annotations

from modalcore.core.evolve import replace
from modalcore.enginetest import Harness
from modalcore.enginetest.companion import Phone
from modalcore.views import BodyCache, render
from modalcore.slices.handoff import PhoneConfirmed
from modalcore.views.screens import COMPUTER, HOST, PHONE
from modalcore.wire.frames import Intent
from modalcore.wire.nodes import Node

from .test_companion_engine import _linked, _waiting
from .test_handoff_computer import COMPUTER as COMPUTER_KEY, _claim as _computer_claim, _offered as _on_the_phone
from .test_handoff_engine import KEY

FRAME = "approve/phone-frame/e99"


def _frame_srcs(tree: Node) -> list[str]:
    return [str(n.p.get("src")) for n in tree.walk() if n.t == "frame"]


def _waiting_for_the_phone() -> tuple[Harness, Phone]:
    h = _linked()
    phone = Phone(h, KEY)
    h.apply(_waiting)
    return h, phone


def test_rule_the_phone_approves_in_its_own_modal_while_the_host_page_waits() -> None:
    h, phone = _waiting_for_the_phone()
    h.expect(view="ApproveTransaction", text="Waiting for your phone")
    assert h.tree.find(FRAME) is None and not _frame_srcs(h.tree), "the host page got an approval frame"
    frame = phone.tree.find(FRAME)
    assert frame is not None, "the phone's modal does not draw the approval"
    assert frame.p["src"] == f"/continue-approve?session={h.model.session_id}&request=e99"
    assert "Waiting for your phone" not in phone.texts()
    # the phone's tree is the one the session draws for a phone's screen, from its frames alone
    assert phone.tree_wire == render(h.model, None, PHONE).to_wire()


def test_rule_a_host_intent_naming_the_phones_approval_is_refused_and_changes_nothing() -> None:
    h, phone = _waiting_for_the_phone()
    before, phone_frames = h.model, len(phone.frames)
    frames = h.send(Intent(t="intent", s=h.client_seq + 1, a=h.server_seq, iid="forged", node=FRAME, act="press"))
    h.client_seq += 1
    assert [(f["t"], f["status"]) for f in frames] == [("intent_ack", "invalid")], frames
    assert h.model is before, "a refused intent changed the session"
    assert len(phone.frames) == phone_frames, "a refused intent reached the phone"
    assert h.tree.find(FRAME) is None


def test_rule_a_view_bodys_memo_keys_on_the_screen() -> None:
    h, _phone = _waiting_for_the_phone()
    bodies = BodyCache()
    model = h.model
    for screen in (HOST, PHONE, HOST, PHONE):
        drawn = render(model, bodies, screen)
        assert drawn.to_wire() == render(model, None, screen).to_wire(), f"the memo drew another screen's {screen}"
    assert (render(model, bodies, HOST).find(FRAME) is None) and render(model, bodies, PHONE).find(FRAME) is not None


def test_the_phones_approval_leaves_its_modal_when_the_request_is_answered() -> None:
    h, phone = _waiting_for_the_phone()
    h.apply(lambda m: (replace(m, embedded=replace(m.embedded, request=None)), []))
    assert phone.tree.find(FRAME) is None


def test_rule_a_phones_session_continued_on_a_computer_approves_inside_the_computers_modal() -> None:
    h = _on_the_phone()
    h.deliver(_computer_claim(h))
    h.deliver(PhoneConfirmed(digest=h.model.handoff.digest, public_key=COMPUTER_KEY))
    computer = Phone(h, COMPUTER_KEY)  # the computer's modal: the companion
    assert computer.companion.screen == COMPUTER, "the computer is drawn as a phone"
    h.apply(_waiting)
    h.expect(view="ApproveTransaction", text="Waiting for your computer")
    assert h.tree.find(FRAME) is None
    frame = computer.tree.find(FRAME)
    assert frame is not None and frame.p["title"] == "Approve or reject on your computer"
    assert computer.tree_wire == render(h.model, None, COMPUTER).to_wire()
