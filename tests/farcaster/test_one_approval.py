"""Issue 33, "with sign-in required, one approval ends signed in": the Farcaster approval is the
visitor's consent to sign in to this host, because the message they approve names this host's
domain and URI and a SIWX nonce the engine issued to this session, signed by the custody key.
A session driven through its intents with the real services (the local relay in process, an ID
registry answering `idOf`, the SQLite key vault and SIWX store): Connect → Farcaster → the demo
client approves → signed in, with no SIWXSignMessage and no approval frame; the stored message
verifies with SpruceID's `siwe` (an independent library). A forged or replayed answer (another
nonce or domain) signs nothing and stores nothing; a statement of the host's that the visitor
was not shown, or a signing the approval does not cover, takes the two-step sign-in."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from eth_account import Account
from eth_account.messages import encode_defunct

from modalcore.core.cmds import Call
from modalcore.embedded.keys import Identity, KeyVault
from modalcore.embedded.masterkey import MasterKey
from modalcore.embedded.signer import sign_text
from modalcore.enginetest import Harness
from modalcore.farcaster.one_approval import Approval, SignInBinding, SignInRefusal, check_sign_in
from modalcore.farcaster.service import APPROVED, FarcasterSignIns, farcaster_services
from modalcore.runtime.clock import FakeClock
from modalcore.core.services import ServiceContext, ServiceError
from modalcore.flows.farcaster import awaiting_frame
from modalcore.flows.farcaster_siwx import binding
from modalcore.siwx.domain.message import SiwxMessage, iso_from_ms
from modalcore.siwx.backend.service import siwx_services
from modalcore.siwx.backend.store import SqliteSiwxStore
from modalcore.slices.farcaster import POLL_MS, ChannelOpened, FarcasterChannelOpened
from modalcore.store.notes import MemoryNotes
from modalcore_dev.farcaster.democlient import DEV_FIDS

from ..siwx.test_siwe_interop import independent_check
from .test_service import NOW, SETTING, World

DOMAIN, URI = "localhost:8000", "http://localhost:8000"  # the harness's verified page origin
CAROL = DEV_FIDS[1]
SIGNED = "0x" + "ab" * 65
ADDRESS = "0x" + "ab" * 20


def _harness(siwx: dict[str, Any] | None = None) -> Harness:
    options: dict[str, Any] = {"networks": ["eip155:1"], "siwx": {"required": True, **(siwx or {})}}
    h = Harness(is_open=True, options=options, now=NOW)
    h.session.model = replace(h.model, embedded=replace(h.model.embedded, socials=("farcaster",)))
    h.session.render()
    return h


class HarnessClock(FakeClock):
    """The services read the harness's time."""

    def __init__(self, h: Harness) -> None:
        super().__init__(h.now)
        self.h = h

    def now_ms(self) -> int:
        return self.h.now


def _no_approval(engine: Engine) -> bool:
    """No verified answer is kept to sign in with (the notes of this process's store)."""
    notes = engine.signins.store.notes
    return isinstance(notes, MemoryNotes) and notes.held(APPROVED) == 0


class Engine:
    """The engine's services for one harness session: Farcaster (relay in process, registry,
    a real key vault), SIWX (SQLite store), run as the runtime runs them."""

    def __init__(self, h: Harness, folder: Path) -> None:
        self.h = h
        self.world = World()
        vault = KeyVault(folder / "embedded.db", MasterKey.generate())
        self.vault = vault
        self.signins = FarcasterSignIns(
            SETTING, lambda fid, now: vault.get_or_create(Identity("farcaster", fid), now),
            sign_text=lambda fid, text: sign_text(vault, Identity("farcaster", fid), text))
        self.signins.http = self.world.signins.http
        self.store = SqliteSiwxStore(":memory:")
        self.services = {**farcaster_services(self.signins),
                         **siwx_services(self.store, None, Account.create(), clock=lambda: h.now)}
        self.ctx = ServiceContext(h.model.session_id, h.model.project_id, HarnessClock(h))
        self.asked: list[Call[Any]] = []
        self.views: list[str] = []  # the view after each answer

    async def run(self) -> None:
        """Every pending call the engine runs, answered, until none is left."""
        while calls := [c for c in self.h.pending_calls() if c.service in self.services]:
            for call in calls:
                self.asked.append(call)
                try:
                    result = await self.services[call.service](self.ctx, **call.args_data)
                except Exception as error:  # a ServiceError: the runtime answers ok=False
                    self.h.settle(call, None, ok=False, error=str(error))
                else:
                    self.h.settle(call, result)
                self.views.append(self.h.view)

    async def frame_opens(self) -> str:
        """What ConnectingFarcaster's frame route does: the channel for the attempt shown, with
        the sign-in's binding; its farcaster:// URL."""
        attempt = awaiting_frame(self.h.model)
        assert attempt is not None
        bound = binding(self.h.model)
        opened = await self.signins.open_channel(
            self.h.now, key=None, binding=SignInBinding(self.h.model.session_id, *bound) if bound else None)
        self.h.deliver(FarcasterChannelOpened(key=str(attempt), result=ChannelOpened(
            channel_token=opened["channel_token"], url=opened["url"], nonce=opened["nonce"])))
        return opened["url"]

    async def poll(self) -> None:
        self.h.advance(POLL_MS)
        await self.run()

    def services_asked(self) -> list[str]:
        return [c.service.name for c in self.asked]


async def _to_connecting(h: Harness, engine: Engine) -> str:
    h.press("connect/social/farcaster")
    await engine.run()  # the sign-in's nonce, before the frame may open the channel
    return await engine.frame_opens()


async def test_with_sign_in_required_one_farcaster_approval_ends_signed_in(tmp_path: Path) -> None:
    h = _harness()
    engine = Engine(h, tmp_path)
    url = await _to_connecting(h, engine)
    engine.world.answer(url, dev=CAROL)  # the demo client approves as FID 2
    await engine.poll()

    assert h.model.siwx.has_session and h.host_state("siwx")["signedIn"] is True
    assert h.host_state("siwx")["token"]
    assert h.view == "Account" and not h.model.modal.open
    assert "SIWXSignMessage" not in engine.views and "ApproveTransaction" not in engine.views
    assert h.effects() == []  # nothing was asked of a browser: no approval frame
    assert engine.services_asked() == ["siwx.nonce", "farcaster.status", "siwx.sessions", "farcaster.sign_in",
                                       "siwx.verify"]
    address = engine.vault.get_or_create(Identity("farcaster", "2"), NOW)
    assert h.model.accounts.get("eip155").address == address

    [stored] = await engine.store.sessions_for(address.lower(), DOMAIN, 1, h.now)
    message = SiwxMessage.parse(stored.message)
    assert (message.domain, message.uri, message.account_address) == (DOMAIN, URI, address)
    assert message.statement is None and message.resources is None
    channel_nonce = [c for c in engine.asked if c.service.name == "farcaster.status"][0].args_data["nonce"]
    assert message.nonce == channel_nonce and message.issued_at_ms == h.now  # the approved channel's, now
    [result] = independent_check("siwe-py", [{"text": stored.message, "signature": stored.signature,
                                               "domain": DOMAIN, "nonce": channel_nonce,
                                               "time": iso_from_ms(h.now + 1_000)}])
    assert result["verified"], result["error"]
    assert result["rebuilt"] == stored.message
    assert result["fields"]["address"] == address
    assert Account.recover_message(encode_defunct(text=stored.message), signature=stored.signature) == address


@pytest.mark.parametrize(("rule", "params"), [
    ("another nonce (an answer to another sign-in replayed)", {"nonce": "ff" * 16}),
    ("another domain", {"domain": "evil.example"}),
    ("another URI", {"siweUri": "https://evil.example"}),
])
async def test_a_forged_or_replayed_answer_signs_nothing_and_stores_nothing(
        tmp_path: Path, rule: str, params: dict[str, str]) -> None:
    h = _harness()
    engine = Engine(h, tmp_path)
    url = await _to_connecting(h, engine)
    engine.world.answer(url, dev=CAROL, params=params)
    await engine.poll()
    assert h.node("farcaster/status").p["text"] == "The Farcaster sign-in could not be verified", rule
    assert "farcaster.sign_in" not in engine.services_asked() and "siwx.verify" not in engine.services_asked()
    assert _no_approval(engine)
    assert h.model.accounts.get("eip155").status == "disconnected" and not h.model.siwx.has_session
    address = engine.vault.get_or_create(Identity("farcaster", "2"), NOW)
    assert await engine.store.sessions_for(address.lower(), None, None, h.now) == []


async def test_the_answer_to_an_earlier_sign_in_is_not_this_ones_approval(tmp_path: Path) -> None:
    """The message a visitor approved for one session's sign-in, posted to another's channel."""
    first, second = _harness(), _harness()
    earlier = Engine(first, tmp_path / "a")
    url = await _to_connecting(first, earlier)
    old_nonce = binding(first.model)
    assert old_nonce is not None
    engine = Engine(second, tmp_path)
    url = await _to_connecting(second, engine)
    engine.world.answer(url, dev=CAROL, params={"nonce": old_nonce[2]})
    await engine.poll()
    assert "farcaster.sign_in" not in engine.services_asked()
    assert second.model.accounts.get("eip155").status == "disconnected"


async def test_a_host_statement_the_visitor_was_not_shown_takes_two_steps(tmp_path: Path) -> None:
    h = _harness({"statement": "I accept the ServiceOrg Terms of Service"})
    engine = Engine(h, tmp_path)
    url = await _to_connecting(h, engine)
    assert "siwx.nonce" not in engine.services_asked()
    assert f"domain={SETTING.domain}" in url  # the configured channel, not the sign-in's
    engine.world.answer(url, dev=CAROL)
    await engine.poll()
    assert h.model.accounts.get("eip155").status == "connected"
    assert h.view == "SIWXSignMessage" and not h.model.siwx.has_session
    assert "farcaster.sign_in" not in engine.services_asked() and _no_approval(engine)


@pytest.mark.parametrize(("rule", "siwx"), [
    ("host resources", {"resources": ["https://example.com/terms"]}),
    ("a statement other than Farcaster's", {"statement": "Sign in to continue"}),
])
def test_a_message_with_text_the_visitor_did_not_see_is_never_bound_to_the_channel(
        rule: str, siwx: dict[str, Any]) -> None:
    h = _harness(siwx)
    h.press("connect/social/farcaster")
    assert h.pending_calls("siwx.nonce") == [] and binding(h.model) is None, rule


async def test_the_farcaster_statement_is_the_one_the_visitor_saw(tmp_path: Path) -> None:
    h = _harness({"statement": "Farcaster Auth"})
    engine = Engine(h, tmp_path)
    engine.world.answer(await _to_connecting(h, engine), dev=CAROL)
    await engine.poll()
    assert h.model.siwx.has_session
    address = engine.vault.get_or_create(Identity("farcaster", "2"), NOW)
    [stored] = await engine.store.sessions_for(address.lower(), DOMAIN, 1, h.now)
    assert SiwxMessage.parse(stored.message).statement == "Farcaster Auth"


def _verified(h: Harness) -> None:
    """The channel opened with the sign-in's nonce was answered and verified (services faked)."""
    h.press("connect/social/farcaster")
    h.settle_call("siwx.nonce", {"nonce": "cafe" * 8})
    assert binding(h.model) == (DOMAIN, URI, "cafe" * 8)
    h.deliver(FarcasterChannelOpened(key="1", result=ChannelOpened(
        channel_token="t" * 32, url="farcaster://connect?channelToken=" + "t" * 32, nonce="cafe" * 8)))
    h.advance(POLL_MS)
    h.settle_call("farcaster.status", {"state": "verified", "fid": 2, "username": "carol", "address": ADDRESS})


def test_the_frame_waits_for_the_sign_ins_nonce() -> None:
    h = _harness()
    h.press("connect/social/farcaster")
    assert awaiting_frame(h.model) is None and h.find("farcaster/frame") is None
    assert h.find("farcaster/spinner") is not None
    h.deliver(FarcasterChannelOpened(key="1", result=ChannelOpened(
        channel_token="t" * 32, url="farcaster://connect?channelToken=x", nonce="beef" * 8)))
    assert h.model.embedded.farcaster is not None and h.model.embedded.farcaster.token == ""  # not yet
    h.settle_call("siwx.nonce", {"nonce": "cafe" * 8})
    assert awaiting_frame(h.model) == 1 and h.find("farcaster/frame") is not None
    h.deliver(FarcasterChannelOpened(key="1", result=ChannelOpened(
        channel_token="t" * 32, url="farcaster://connect?channelToken=x", nonce="beef" * 8)))
    assert h.node("farcaster/status").p["text"] == "Farcaster could not be reached"  # not the sign-in's nonce


def test_no_nonce_means_the_approval_connects_and_sign_in_takes_two_steps() -> None:
    h = _harness()
    h.press("connect/social/farcaster")
    h.settle_call("siwx.nonce", ok=False, error="the store is down")
    assert binding(h.model) is None and awaiting_frame(h.model) == 1


def test_a_signing_the_approval_does_not_cover_takes_two_steps() -> None:
    h = _harness()
    _verified(h)
    h.settle_call("siwx.sessions", {"sessions": []})
    assert h.view == "ConnectingFarcaster" and h.find("farcaster/spinner") is not None  # signing at once
    [call] = h.pending_calls("farcaster.sign_in")
    assert call.args_data["token"] == "t" * 32 and "Nonce: " + "cafe" * 8 in call.args_data["message"]
    h.settle_call("farcaster.sign_in", ok=False, error="the Farcaster approval does not cover this sign-in")
    assert h.view == "SIWXSignMessage" and h.model.modal.open
    assert h.pending_calls("siwx.verify") == [] and not h.model.siwx.signing


def test_a_stored_session_needs_no_signature() -> None:
    h = _harness()
    _verified(h)
    h.settle_call("siwx.sessions", {"sessions": [{"id": "s"}]})
    assert h.pending_calls("farcaster.sign_in") == [] and h.model.siwx.has_session
    assert h.model.siwx.approved is None
    assert h.view == "Account" and not h.model.modal.open  # the connect is done


def test_a_refused_verification_takes_two_steps() -> None:
    h = _harness()
    _verified(h)
    h.settle_call("siwx.sessions", {"sessions": []})
    h.settle_call("farcaster.sign_in", {"signature": SIGNED})
    h.settle_call("siwx.verify", {"ok": False, "reason": "nonce", "error": "nonce already used"})
    assert h.view == "SIWXSignMessage" and not h.model.siwx.has_session


SESSION = "session-1"


async def _approval(tmp_path: Path) -> tuple[Engine, str, str, str]:
    """A channel opened for this session's sign-in, answered by FID 2 and verified: (engine,
    channel token, the sign-in's nonce, the FID's embedded address)."""
    engine = Engine(_harness(), tmp_path)
    bound = SignInBinding(SESSION, DOMAIN, URI, "cafe" * 8)
    opened = await engine.signins.open_channel(NOW, binding=bound)
    engine.world.answer(opened["url"], dev=CAROL)
    verdict = await engine.signins.status(opened["channel_token"], "ignored: the binding's nonce is", NOW)
    assert verdict["state"] == "verified"
    return engine, opened["channel_token"], bound.nonce, str(verdict["address"])


def _message(address: str, nonce: str, **changes: Any) -> str:
    fields: dict[str, Any] = {"domain": DOMAIN, "address": address, "uri": URI, "chain_id": 1, "nonce": nonce,
                              "now_ms": NOW, "ttl_ms": 86_400_000, **changes}
    return SiwxMessage.create(**fields).to_text()


async def test_the_signing_service_signs_the_approved_sign_in_once(tmp_path: Path) -> None:
    engine, token, nonce, address = await _approval(tmp_path)
    text = _message(address, nonce)
    with pytest.raises(ServiceError):  # another session: refused, the approval kept
        await engine.signins.sign_in(engine.ctx, "another-session", token, text, NOW)
    signed = await engine.signins.sign_in(engine.ctx, SESSION, token, text, NOW + 1_000)
    assert Account.recover_message(encode_defunct(text=text), signature=signed["signature"]) == address
    with pytest.raises(ServiceError):  # once
        await engine.signins.sign_in(engine.ctx, SESSION, token, text, NOW + 1_000)


@pytest.mark.parametrize(("rule", "changes", "reason"), [
    ("another nonce", {"nonce": "beef" * 8}, "nonce"),
    ("another domain", {"domain": "evil.example"}, "domain"),
    ("another URI", {"uri": "https://evil.example"}, "uri"),
    ("a statement the visitor was not shown", {"statement": "Send all my tokens"}, "statement"),
    ("resources", {"resources": ["https://evil.example/grant"]}, "extra_text"),
    ("a request id", {"request_id": "r-1"}, "extra_text"),
    ("another address", {"address": "0x" + "12" * 20}, "address"),
    ("issued long ago", {"now_ms": NOW - 3_600_000}, "not_now"),
    ("issued in the future", {"now_ms": NOW + 3_600_000}, "not_now"),
])
async def test_a_message_the_approval_does_not_cover_is_not_signed(
        tmp_path: Path, caplog: pytest.LogCaptureFixture, rule: str, changes: dict[str, Any], reason: str) -> None:
    engine, token, nonce, address = await _approval(tmp_path)
    fields: dict[str, Any] = {"address": address, "nonce": nonce, **changes}
    text = _message(fields.pop("address"), fields.pop("nonce"), **fields)
    with caplog.at_level("INFO", logger="modalcore.farcaster"), pytest.raises(ServiceError):
        await engine.signins.sign_in(engine.ctx, SESSION, token, text, NOW)
    lines = [r for r in caplog.records if r.name == "modalcore.farcaster.service"]
    assert [r.getMessage() for r in lines] == [f"farcaster sign-in not signed at once: {reason}"], rule
    assert lines[0].exc_info is None
    with pytest.raises(ServiceError):  # the approval is spent: the genuine message is refused too
        await engine.signins.sign_in(engine.ctx, SESSION, token, _message(address, nonce), NOW)


async def test_an_approval_is_only_for_a_channel_opened_for_the_sign_in(tmp_path: Path) -> None:
    engine = Engine(_harness(), tmp_path)
    opened = await engine.signins.open_channel(NOW)  # Connect without sign-in, or another frame's
    engine.world.answer(opened["url"], dev=CAROL)
    verdict = await engine.signins.status(opened["channel_token"], opened["nonce"], NOW)
    assert verdict["state"] == "verified" and _no_approval(engine)
    with pytest.raises(ServiceError):
        await engine.signins.sign_in(engine.ctx, SESSION, opened["channel_token"], _message(str(verdict["address"]), opened["nonce"]), NOW)


async def test_an_approval_goes_stale(tmp_path: Path) -> None:
    engine, token, nonce, address = await _approval(tmp_path)
    later = NOW + 10 * 60_000
    with pytest.raises(ServiceError):
        await engine.signins.sign_in(engine.ctx, SESSION, token, _message(address, nonce, now_ms=later), later)


def test_the_message_may_name_the_keys_smart_account_only_on_a_chain_that_has_it() -> None:
    """Issue 32: where the chain has smart accounts the account shown is the key's smart account,
    and the message names it; on another chain only the key's own address is the FID's."""
    owner, smart = "0x" + "0a" * 20, "0x" + "5a" * 20
    approval = Approval(SESSION, 2, DOMAIN, URI, "cafe" * 8, "Farcaster Auth", NOW)

    def accounts(chain_id: int) -> tuple[str, ...]:
        return (owner, smart) if chain_id == 31337 else (owner,)

    for address, chain_id, allowed in ((smart, 31337, True), (owner, 31337, True), (owner, 1, True),
                                       (smart, 1, False), ("0x" + "12" * 20, 31337, False)):
        text = _message(address, approval.nonce, chain_id=chain_id)
        checked = check_sign_in(approval, text, accounts, SESSION, NOW)
        assert isinstance(checked, SiwxMessage) if allowed else checked is SignInRefusal.ADDRESS, (address, chain_id)
