"""Passkeys (issue 43 §3, §4; modalcore/embedded/passkeys.py): a passkey registered for an
identity signs in and approves for it; the challenge is the engine's, bound to the session (and
for an approval to the request and what was shown), spent once; the origin and relying party are
the engine's; the visitor must be verified; a replayed or cloned assertion is refused. Every
refusal is typed and stores nothing. The authenticator is a software one (ES256, "none")."""

from __future__ import annotations

import copy

import pytest

from modalcore.embedded.passkeys import (MAX_PER_IDENTITY, PasskeyError, PasskeyRefused, Passkeys, RelyingParty,
                                         approval_challenge, challenge_ok, issue_challenge, legacy_user_handle, unb64)
from modalcore_testing.passkey import SoftAuthenticator, b64

SECRET = b"s" * 32
RP = RelyingParty.of("http://127.0.0.1:8765")
ALICE = "email:alice@example.com"


def registered(store: Passkeys, identity: str = ALICE, counter: bool = True, handle: str | None = None
               ) -> SoftAuthenticator:
    """A passkey added for `identity`, created with its user handle (the opaque one by default)."""
    device = SoftAuthenticator(counter=counter)
    challenge = issue_challenge(SECRET, "register", "sess-1", 1_000)
    user = unb64(store.user_handle(identity) if handle is None else handle, 88)
    store.register(identity, device.create(challenge, RP.origin, RP.rp_id, user), challenge, RP, 1_000)
    return device


def refusal(call: object) -> PasskeyRefused:
    assert callable(call)
    with pytest.raises(PasskeyError) as caught:
        call()
    return caught.value.why


def test_relying_party_is_the_engine_host() -> None:
    assert RelyingParty.of("https://engine.example:8443/some/path") == RelyingParty("https://engine.example:8443",
                                                                                  "engine.example")


def test_challenge_is_bound_to_purpose_session_and_time() -> None:
    c = issue_challenge(SECRET, "signin", "sess-1", 1_000)
    assert challenge_ok(SECRET, "signin", "sess-1", c, 2_000)
    assert not challenge_ok(SECRET, "signin", "sess-2", c, 2_000)
    assert not challenge_ok(SECRET, "register", "sess-1", c, 2_000)
    assert not challenge_ok(b"x" * 32, "signin", "sess-1", c, 2_000)
    assert not challenge_ok(SECRET, "signin", "sess-1", c, 1_000 + 5 * 60_000)


def test_registered_passkey_signs_in_for_its_identity_and_moves_the_counter() -> None:
    store = Passkeys()
    device = registered(store)
    assert store.credential_ids(ALICE) == [device.id]
    challenge = issue_challenge(SECRET, "signin", "sess-2", 2_000)
    assert store.authenticate(device.get(challenge, RP.origin, RP.rp_id), challenge, RP, 2_000) == ALICE
    again = issue_challenge(SECRET, "signin", "sess-3", 3_000)
    assert store.authenticate(device.get(again, RP.origin, RP.rp_id), again, RP, 3_000) == ALICE


def test_replayed_assertion_is_refused() -> None:
    store = Passkeys()
    device = registered(store)
    challenge = issue_challenge(SECRET, "signin", "sess-2", 2_000)
    answer = device.get(challenge, RP.origin, RP.rp_id)
    store.authenticate(answer, challenge, RP, 2_000)
    assert refusal(lambda: store.authenticate(answer, challenge, RP, 2_001)) is PasskeyRefused.REPLAYED


def test_reused_challenge_is_refused_even_without_a_counter() -> None:
    """Platform passkeys often keep no counter (always 0): the spent challenge still refuses."""
    store = Passkeys()
    device = registered(store, counter=False)
    challenge = issue_challenge(SECRET, "signin", "sess-2", 2_000)
    store.authenticate(device.get(challenge, RP.origin, RP.rp_id), challenge, RP, 2_000)
    fresh = device.get(challenge, RP.origin, RP.rp_id)
    assert refusal(lambda: store.authenticate(fresh, challenge, RP, 2_001)) is PasskeyRefused.REPLAYED


def test_cloned_authenticator_with_a_stale_counter_is_refused() -> None:
    store = Passkeys()
    device = registered(store)
    clone = copy.deepcopy(device)
    first = issue_challenge(SECRET, "signin", "sess-2", 2_000)
    store.authenticate(device.get(first, RP.origin, RP.rp_id), first, RP, 2_000)
    second = issue_challenge(SECRET, "signin", "sess-3", 2_000)
    answer = clone.get(second, RP.origin, RP.rp_id)  # the clone's counter is where the original's was
    assert refusal(lambda: store.authenticate(answer, second, RP, 2_000)) is PasskeyRefused.REPLAYED


def test_assertion_for_another_challenge_is_refused() -> None:
    """An approval's challenge is the hash of its text: another session or request is another text."""
    store = Passkeys()
    device = registered(store)
    mine = approval_challenge(b"modalcore-approve\nsess-1\nreq-1\n...")
    other = approval_challenge(b"modalcore-approve\nsess-2\nreq-1\n...")
    answer = device.get(other, RP.origin, RP.rp_id)
    assert refusal(lambda: store.authenticate(answer, mine, RP, 2_000, identity=ALICE)) is PasskeyRefused.CHALLENGE
    # nothing was spent: the visitor's own answer still counts
    assert store.authenticate(device.get(mine, RP.origin, RP.rp_id), mine, RP, 2_000, identity=ALICE) == ALICE


def test_wrong_origin_or_relying_party_is_refused() -> None:
    store = Passkeys()
    device = registered(store)
    challenge = approval_challenge(b"text")
    elsewhere = device.get(challenge, "https://dapp.example", RP.rp_id)
    assert refusal(lambda: store.authenticate(elsewhere, challenge, RP, 2_000)) is PasskeyRefused.ORIGIN
    other_rp = device.get(challenge, RP.origin, "dapp.example")
    assert refusal(lambda: store.authenticate(other_rp, challenge, RP, 2_000)) is PasskeyRefused.ORIGIN
    c = issue_challenge(SECRET, "register", "sess-1", 1_000)
    new = SoftAuthenticator()
    answer = new.create(c, "https://dapp.example", RP.rp_id)
    assert refusal(lambda: store.register(ALICE, answer, c, RP, 1_000)) is PasskeyRefused.ORIGIN
    assert store.credential_ids(ALICE) == [device.id]


def test_in_a_frame_the_top_page_must_be_the_sessions() -> None:
    """A ceremony in a cross-origin frame names the page around it (`topOrigin`)."""
    store = Passkeys()
    device = registered(store)
    rp = RelyingParty.of(RP.origin, ("https://dapp.example",))
    challenge = approval_challenge(b"text")
    device.top_origin = "https://evil.example"
    framed_elsewhere = device.get(challenge, RP.origin, RP.rp_id)
    assert refusal(lambda: store.authenticate(framed_elsewhere, challenge, rp, 2_000)) is PasskeyRefused.ORIGIN
    device.top_origin = "https://dapp.example"
    assert store.authenticate(device.get(challenge, RP.origin, RP.rp_id), challenge, rp, 2_000) == ALICE


def test_user_verification_is_required() -> None:
    store = Passkeys()
    device = registered(store)
    device.user_verified = False
    challenge = approval_challenge(b"text")
    answer = device.get(challenge, RP.origin, RP.rp_id)
    assert refusal(lambda: store.authenticate(answer, challenge, RP, 2_000)) is PasskeyRefused.USER_NOT_VERIFIED
    c = issue_challenge(SECRET, "register", "sess-1", 1_000)
    unverified = SoftAuthenticator(user_verified=False)
    created = unverified.create(c, RP.origin, RP.rp_id)
    assert refusal(lambda: store.register("email:bob@example.com", created, c, RP, 1_000)) \
        is PasskeyRefused.SIGNATURE
    assert store.count("email:bob@example.com") == 0


def test_another_identitys_passkey_or_a_forged_signature_is_refused() -> None:
    store = Passkeys()
    device = registered(store)
    challenge = approval_challenge(b"text")
    answer = device.get(challenge, RP.origin, RP.rp_id)
    assert refusal(lambda: store.authenticate(answer, challenge, RP, 2_000, identity="email:bob@example.com")) \
        is PasskeyRefused.UNKNOWN
    stranger = SoftAuthenticator()
    stranger.credential_id = device.credential_id  # same id, another key
    forged = stranger.get(approval_challenge(b"text 2"), RP.origin, RP.rp_id)
    forged_challenge = approval_challenge(b"text 2")
    forged["response"]["authenticatorData"] = b64(bytes(32) + b"\x05" + (99).to_bytes(4, "big"))
    assert refusal(lambda: store.authenticate(forged, forged_challenge, RP, 2_000)) is PasskeyRefused.ORIGIN
    stranger.sign_count = 50
    forged = stranger.get(forged_challenge, RP.origin, RP.rp_id)
    assert refusal(lambda: store.authenticate(forged, forged_challenge, RP, 2_000)) is PasskeyRefused.SIGNATURE


@pytest.mark.parametrize("answer", [None, "x", {}, {"type": "public-key", "id": "!!", "response": {}},
                                    {"type": "public-key", "id": "AAAA", "response": {"clientDataJSON": "A" * 5000}},
                                    {"type": "public-key", "id": "AAAA", "response": {"clientDataJSON": b64(b"[1]")}}])
def test_malformed_answers_are_refused(answer: object) -> None:
    store = Passkeys()
    assert refusal(lambda: store.authenticate(answer, b"c", RP, 1)) is PasskeyRefused.MALFORMED
    assert refusal(lambda: store.register(ALICE, answer, b"c", RP, 1)) is PasskeyRefused.MALFORMED
    assert store.count(ALICE) == 0


def test_a_credential_belongs_to_one_identity_and_at_most_sixteen_are_kept() -> None:
    store = Passkeys()
    device = registered(store)
    c = issue_challenge(SECRET, "register", "sess-9", 1_000)
    answer = device.create(c, RP.origin, RP.rp_id)
    assert refusal(lambda: store.register("email:bob@example.com", answer, c, RP, 1_000)) is PasskeyRefused.UNKNOWN
    for n in range(MAX_PER_IDENTITY + 2):
        other = SoftAuthenticator()
        c = issue_challenge(SECRET, "register", f"s{n}", 1_000 + n)
        store.register("email:carol@example.com", other.create(c, RP.origin, RP.rp_id), c, RP, 1_000 + n)
    assert store.count("email:carol@example.com") == MAX_PER_IDENTITY


def test_audit_show_checks_a_passkey_approval_again_from_the_log() -> None:
    """The audit log keeps a passkey Approve's COSE key and assertion (server/passkey.py
    passkey_evidence); `audit show` checks it against the approval text, offline."""
    import json

    from modalcore.ops.audit_show import _passkey_holds
    from modalcore.server.approval import approval_text

    store = Passkeys()
    device = registered(store)
    text = approval_text("sess-1", "e1", "d" * 64, "1.n.m", True, "visible 600 https://dapp.example", "h" * 64)
    answer = device.get(approval_challenge(text), RP.origin, RP.rp_id)
    store.authenticate(answer, approval_challenge(text), RP, 2_000, identity=ALICE)
    key = store.public_key(device.id)
    assert key is not None
    data = {"public_key": "passkey:" + b64(key), "signature": json.dumps(answer)}
    assert _passkey_holds(data, text)
    other = approval_text("sess-1", "e1", "d" * 64, "1.n.m", True, "visible 600 https://evil.example", "h" * 64)
    assert not _passkey_holds(data, other)  # the record's text changed
    stranger = SoftAuthenticator()
    stranger_key = stranger._cose()
    assert not _passkey_holds({**data, "public_key": "passkey:" + b64(stranger_key)}, text)
    assert not _passkey_holds({**data, "signature": "not json"}, text)


# ----- signing in from Connect: a discoverable passkey names the account (issue 43 §3)


def test_the_user_handle_is_random_opaque_and_kept_per_identity() -> None:
    """Rule: the WebAuthn user id names the account without saying who it is (not a function of
    the email anyone could compute), and stays the same for the identity's later passkeys."""
    store = Passkeys()
    alice = store.user_handle(ALICE)
    assert store.user_handle(ALICE) == alice
    assert alice != store.user_handle("email:bob@example.com")
    assert alice != legacy_user_handle(ALICE) and len(unb64(alice, 88)) == 16
    assert ALICE not in alice


def test_a_discoverable_answer_names_its_owner_by_credential_id_and_user_handle() -> None:
    store = Passkeys()
    device = registered(store)
    challenge = issue_challenge(SECRET, "signin", "sess-2", 2_000)
    answer = device.get(challenge, RP.origin, RP.rp_id)
    assert store.owner(answer) == ALICE
    assert store.owner(SoftAuthenticator().get(challenge, RP.origin, RP.rp_id)) is None
    assert store.authenticate(answer, challenge, RP, 2_000, identity=store.owner(answer)) == ALICE


def test_a_user_handle_of_another_account_is_refused_and_spends_nothing() -> None:
    store = Passkeys()
    device = registered(store)
    challenge = issue_challenge(SECRET, "signin", "sess-2", 2_000)
    device.user_handle = unb64(store.user_handle("email:bob@example.com"), 88)
    answer = device.get(challenge, RP.origin, RP.rp_id)
    assert refusal(lambda: store.authenticate(answer, challenge, RP, 2_000)) is PasskeyRefused.UNKNOWN
    device.user_handle = unb64(store.user_handle(ALICE), 88)
    assert store.authenticate(device.get(challenge, RP.origin, RP.rp_id), challenge, RP, 2_000) == ALICE


def test_a_passkey_made_with_the_old_hashed_user_handle_still_signs_in() -> None:
    """Passkeys added before the opaque handle carry the hash of the identity: found by their
    credential id, they keep working."""
    store = Passkeys()
    device = registered(store, handle=legacy_user_handle(ALICE))
    challenge = issue_challenge(SECRET, "signin", "sess-2", 2_000)
    answer = device.get(challenge, RP.origin, RP.rp_id)
    assert store.owner(answer) == ALICE
    assert store.authenticate(answer, challenge, RP, 2_000) == ALICE
