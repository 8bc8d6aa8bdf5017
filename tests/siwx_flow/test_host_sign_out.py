"""The host's signOut() (PROTOCOL.md: the `host` node's `sign_out`; issue 40 item 6): the sign-in
ends in the session and in the store, so the next connect asks to sign again; with `required`
signing out disconnects; without a sign-in nothing happens."""

from __future__ import annotations

from modalcore.core.cmds import Call

from ..connect.conftest import ADDRESS
from .test_siwx_flow import SiwxWorld, run


def signed_in(required: bool) -> SiwxWorld:
    world = SiwxWorld(required=required)
    world.connect()
    world.sign_in()
    assert world.driver.host_state("siwx")["signedIn"] is True
    return world


def test_sign_out_ends_the_sign_in_here_and_in_the_store() -> None:
    world = signed_in(required=False)
    assert len(run(world.store.sessions_for(ADDRESS.lower(), None, None, world.clock_ms))) == 1
    world.driver.intent("host", "sign_out")
    world.run_calls()
    assert world.driver.host_state("siwx") == {"enabled": True, "signedIn": False, "token": ""}
    assert world.driver.model.accounts.get("eip155").status == "connected"
    # the stored session is gone: a fresh look-up finds none (the next connect asks to sign)
    calls = [c for c in world.driver.log if isinstance(c, Call) and c.service.name == "siwx.revoke"]
    assert len(calls) == 1
    assert run(world.store.sessions_for(ADDRESS.lower(), None, None, world.clock_ms)) == []


def test_sign_out_with_sign_in_required_disconnects() -> None:
    world = signed_in(required=True)
    world.driver.intent("host", "sign_out")
    world.run_calls()
    world.driver.answer_last(None)  # the wallet's wallet_revokePermissions
    assert world.driver.host_state("siwx")["signedIn"] is False
    assert world.driver.model.accounts.get("eip155").status == "disconnected"


def test_sign_out_without_a_sign_in_does_nothing() -> None:
    world = SiwxWorld(required=False)
    world.connect()
    frames = len(world.driver.frames)
    log = len(world.driver.log)
    world.driver.intent("host", "sign_out")
    assert [f["t"] for f in world.driver.frames[frames:]] == ["intent_ack"]
    assert world.driver.log[log:] == []
