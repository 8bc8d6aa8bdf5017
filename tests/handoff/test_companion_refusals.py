"""Who may join a session as its companion (PROTOCOL.md, "Companion"), decided by one pure
function over the session's model: only the phone whose key the computer confirmed, with the
engine's nonce for that session, signed by that key, from the engine's own origin. Each refusal
is typed and the session is left exactly as it was."""

from __future__ import annotations

from modalcore.enginetest import Harness
from modalcore.rules.limits import COMPANION_NONCE_MS
from modalcore.server.approval import issue_nonce
from modalcore.server.companion import CompanionRefusal, engine_origin_ok, refusal, signed_text
from modalcore.wire.frames import CompanionJoin
from modalcore_testing.device import DeviceKey

from .test_handoff_engine import IDENTITY, _claim, _confirm, _offered, _signed_in

SECRET = b"s" * 32
OTHER_SECRET = b"o" * 32


def _linked(phone: DeviceKey) -> Harness:
    h = _offered()
    h.deliver(_claim(h, key=phone.spki))
    _confirm(h, phone.spki)
    return h


def _join(h: Harness, key: DeviceKey, *, session: str | None = None, secret: bytes = SECRET,
          signer: DeviceKey | None = None, text: bytes | None = None) -> CompanionJoin:
    session = session or h.model.session_id
    nonce = issue_nonce(secret, session, "companion", h.now)
    signature = (signer or key).sign(text if text is not None else signed_text(session, nonce))
    return CompanionJoin(session=session, public_key=key.spki, nonce=nonce, signature=signature)


def test_the_linked_phone_with_its_signature_joins() -> None:
    phone = DeviceKey()
    h = _linked(phone)
    assert refusal(h.model, _join(h, phone), SECRET, h.now) is None


def test_each_refusal_is_typed_and_changes_nothing() -> None:
    phone, attacker = DeviceKey(), DeviceKey()
    h = _linked(phone)
    before, frames = h.model, len(h.frames)
    cases = {
        "no such session here": (None, _join(h, phone)),
        "another session's id": (h.model, _join(h, phone, session="another-session")),
        "not the engine's nonce": (h.model, _join(h, phone, secret=OTHER_SECRET)),
        "a key never confirmed": (h.model, _join(h, attacker)),
        "the phone's key, another's signature": (h.model, _join(h, phone, signer=attacker)),
        "the phone's signature over something else": (h.model, _join(h, phone, text=b"modalcore-companion\nx\ny")),
    }
    got = {name: refusal(model, join, SECRET, h.now) for name, (model, join) in cases.items()}
    assert got == {
        "no such session here": CompanionRefusal.UNKNOWN,
        "another session's id": CompanionRefusal.UNKNOWN,
        "not the engine's nonce": CompanionRefusal.UNKNOWN,
        "a key never confirmed": CompanionRefusal.NOT_LINKED,
        "the phone's key, another's signature": CompanionRefusal.NOT_LINKED,
        "the phone's signature over something else": CompanionRefusal.NOT_LINKED,
    }
    assert h.model is before and len(h.frames) == frames


def test_a_nonce_older_than_its_window_is_refused() -> None:
    phone = DeviceKey()
    h = _linked(phone)
    join = _join(h, phone)
    assert refusal(h.model, join, SECRET, h.now + COMPANION_NONCE_MS - 1) is None
    assert refusal(h.model, join, SECRET, h.now + COMPANION_NONCE_MS) is CompanionRefusal.UNKNOWN


def test_a_phone_unlinked_by_another_account_cannot_join() -> None:
    phone = DeviceKey()
    h = _linked(phone)
    h.apply(lambda m: _signed_in(m, IDENTITY.replace("mia", "noa")))
    assert refusal(h.model, _join(h, phone), SECRET, h.now) is CompanionRefusal.NOT_LINKED


def test_only_the_engines_own_origin_opens_the_companion_socket() -> None:
    engine = "http://127.0.0.1:8000"
    assert engine_origin_ok(engine, engine)
    assert engine_origin_ok("https://engine.example", engine, "https://engine.example/base")
    for origin in ("https://app.example.com", "", None, "http://127.0.0.1:8001"):
        assert not engine_origin_ok(origin, engine, "https://engine.example")
