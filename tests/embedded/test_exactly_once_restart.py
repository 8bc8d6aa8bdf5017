"""Exactly once across reloads and crashes (issue 38 item 6), at the session level on the Hardhat
chain: the embedded wallet's send after Approve, with the engine's process killed at each point
of the send (its session restored from its saved bytes, what was in flight gone), and a page
reload while the approval frame waits.

Rules:
- a request approved once is executed at most once, and after a restart its outcome is looked up
  (the record written before broadcasting, then the chain) before anything is called lost;
- a request whose execution is unknown after a restart is resolved, never left pending: the view
  leaves ApproveTransaction and the wallet takes new requests;
- a reload while the approval waits does not lose the send: Approve then ends it as sent, with
  the balances fetched again, and no second approval is ever asked for it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from modalcore.core.cmds import Call
from modalcore.core.evolve import replace
from modalcore.core.services import ServiceContext
from modalcore.embedded.signer import sign
from modalcore.engine.persist import load_bytes, session_to_bytes
from modalcore.runtime.clock import FakeClock
from modalcore.server.config import dev_networks, parse_config
from modalcore.services.domain.handles import BALANCES, EMBEDDED_RESOLVE, EMBEDDED_SIGN
from modalcore.slices import send_tx
from modalcore.slices.accounts import TokenBalance
from modalcore.slices.connecting import Restored
from modalcore.slices.embedded import ApprovalDecided
from modalcore.slices.model import Model, Step
from modalcore_dev.devchain.pytest_plugin import ChainsInfo
from modalcore_dev.devmail import LocalSmtpServer

from .world import EmailWorld, open_wallet

pytestmark = pytest.mark.chain
RECEIVER = "0x70997970C51812dc3A010C7d01b50e0d17dC79C8"
VALUE = 2 * 10**15  # 0.002 ETH, the send


def _world(chains: ChainsInfo, tmp_path: Path, smtp: LocalSmtpServer) -> tuple[EmailWorld, str]:
    config = parse_config({"networks": dev_networks(chains.rpc_urls, chains.deployment)})
    world = EmailWorld(open_wallet(tmp_path / "e.db", smtp), smtp, config=config)
    address = world.sign_in("sam@example.com")
    with chains.rpc(31337) as rpc:
        rpc.call("hardhat_setBalance", [address, hex(10**18)])
    return world, address


def _nonce(chains: ChainsInfo, address: str) -> int:
    with chains.rpc(31337) as rpc:
        return int(rpc.call("eth_getTransactionCount", [address, "pending"]), 16)


def _restart(world: EmailWorld) -> None:
    """The engine's process dies: only the saved bytes survive; the calls it ran are gone; the
    session is loaded by the next process, which tells it so."""
    session, _ = load_bytes(session_to_bytes(world.h.session))
    world.h.session = session
    world.h.cmds.clear()
    world.h.deliver(Restored())


def _approve(world: EmailWorld) -> Call[Any]:
    request = world.h.model.embedded.request
    assert request is not None and world.h.view == "ApproveTransaction"
    world.h.deliver(ApprovalDecided(request.eid, approve=True))
    [call] = world.h.pending_calls(EMBEDDED_SIGN)
    return call


def _run_lost(world: EmailWorld, call: Call[Any]) -> dict[str, Any]:
    """The signer runs to its end, but its answer dies with the process."""
    world.h.cmds.remove(call)
    return world._run(call).result  # type: ignore[no-any-return]


def _resolved(world: EmailWorld) -> Any:
    [resolve] = world.h.pending_calls(EMBEDDED_RESOLVE)
    assert not world.h.pending_calls(EMBEDDED_SIGN)  # never signed anew
    [settled] = world.run_calls()
    return settled


def _send_request(world: EmailWorld) -> None:
    world.ask_wallet("eth_sendTransaction", [{"to": RECEIVER, "value": hex(VALUE)}])


def _left_pending(world: EmailWorld) -> None:
    """Resolved: no request held, the view left the approval, the wallet answers anew."""
    assert world.h.model.embedded.request is None
    assert world.h.view != "ApproveTransaction"
    world.ask_wallet("eth_chainId", [])
    assert world.h.model.embedded.request is None  # answered at once, not -32002


def test_rule_killed_after_approve_before_anything_was_sent_is_failed_cleanly(
        devchain: ChainsInfo, tmp_path: Path, smtp: LocalSmtpServer) -> None:
    world, address = _world(devchain, tmp_path, smtp)
    _send_request(world)
    _approve(world)  # the signer was asked; the process dies before it ran
    _restart(world)
    settled = _resolved(world)
    assert not settled.ok and "Not sent" in settled.error
    assert _nonce(devchain, address) == 0
    _left_pending(world)


def test_rule_killed_after_the_broadcast_answers_the_landed_hash(
        devchain: ChainsInfo, tmp_path: Path, smtp: LocalSmtpServer) -> None:
    world, address = _world(devchain, tmp_path, smtp)
    _send_request(world)
    sent = _run_lost(world, _approve(world))
    assert _nonce(devchain, address) == 1
    _restart(world)
    settled = _resolved(world)
    assert settled.ok and settled.result == sent  # the very transaction, looked up
    assert _nonce(devchain, address) == 1  # nothing sent again
    _left_pending(world)


def test_rule_killed_between_the_record_and_the_broadcast_sends_the_same_bytes_once(
        devchain: ChainsInfo, tmp_path: Path, smtp: LocalSmtpServer) -> None:
    world, address = _world(devchain, tmp_path, smtp)
    _send_request(world)
    call = _approve(world)
    world.h.cmds.remove(call)

    _record_then_die(world, call)
    assert _nonce(devchain, address) == 0
    _restart(world)
    settled = _resolved(world)
    assert settled.ok
    assert _nonce(devchain, address) == 1  # sent once, by the restored engine
    with devchain.rpc(31337) as rpc:
        assert rpc.call("eth_getTransactionReceipt", [settled.result["result"]])["status"] == "0x1"
    _restart(world)  # a second restart finds nothing pending: nothing is sent again
    assert not world.h.pending_calls(EMBEDDED_RESOLVE)
    assert _nonce(devchain, address) == 1


class Died(Exception):
    """The process ends here."""


def _record_then_die(world: EmailWorld, call: Call[Any]) -> list[Any]:
    """The signer records the signed transaction, and its process dies before the broadcast."""
    recorded = world.wallet.intents.record
    kept: list[Any] = []

    def record_then_die(intent: Any) -> None:
        recorded(intent)
        kept.append(intent)
        raise Died()

    world.wallet.intents.record = record_then_die  # type: ignore[method-assign]
    try:
        with pytest.raises(Died):
            _sign_directly(world, call)
    finally:
        world.wallet.intents.record = recorded  # type: ignore[method-assign]
    return kept


def _sign_directly(world: EmailWorld, call: Call[Any]) -> None:
    async def go() -> Any:
        ctx = ServiceContext(session_id="session-1", project_id="test", clock=FakeClock(world.h.now),
                             http=world.http, config=world.config)
        args = call.args_data
        return await sign(world.wallet.vault, ctx, identity=args["identity"], method=args["method"],
                          params=args["params"], chain=args["chain"], account=args["account"],
                          intents=world.wallet.intents, request=args["request"])

    world.loop.run_until_complete(go())


def test_rule_the_nonce_taken_by_another_transaction_fails_the_request(
        devchain: ChainsInfo, tmp_path: Path, smtp: LocalSmtpServer) -> None:
    world, address = _world(devchain, tmp_path, smtp)
    _send_request(world)
    call = _approve(world)
    world.h.cmds.remove(call)
    kept = _record_then_die(world, call)
    with devchain.rpc(31337) as rpc:  # the account's nonce goes elsewhere meanwhile
        rpc.call("hardhat_impersonateAccount", [address])
        rpc.call("eth_sendTransaction", [{"from": address, "to": address, "value": "0x0"}])
    _restart(world)
    settled = _resolved(world)
    assert not settled.ok and "another transaction" in settled.error
    assert _nonce(devchain, address) == 1
    with devchain.rpc(31337) as rpc:
        assert rpc.call("eth_getTransactionByHash", [kept[0].hash]) is None
    _left_pending(world)


def _native(model: Model) -> Model:
    account = model.accounts.get("eip155")
    native = TokenBalance(name="Ether", symbol="ETH", chain_id="eip155:31337", address=None,
                          value=1.0, price=0.0, quantity_decimals="18", quantity_numeric="1")
    return replace(model, accounts=model.accounts.with_account("eip155", replace(account, token_balance=(native,))))


def _start_send(model: Model) -> Step:
    model = _native(model)
    model = replace(model, send=replace(model.send, token="native", amount="0.002", receiver=RECEIVER))
    return send_tx.start_send(model, 0)


def test_rule_a_reload_while_the_approval_waits_ends_as_sent_not_lost(
        devchain: ChainsInfo, tmp_path: Path, smtp: LocalSmtpServer) -> None:
    world, address = _world(devchain, tmp_path, smtp)
    world.h.apply(_start_send)
    assert world.h.model.send.pending is not None and world.h.view == "ApproveTransaction"
    world.h.rejoin(last=None)  # the page reloads: the frame shows again
    pending = world.h.model.send.pending
    assert pending is not None and pending.status == "waiting"
    assert world.h.view == "ApproveTransaction"
    before = len(world.h.pending_calls(BALANCES))
    _approve(world)
    [settled] = world.run_calls()
    assert settled.ok
    assert world.h.model.send.pending is None  # sent: no "Wallet request lost", no Try again
    assert not world.h.find_text("Wallet request lost")
    assert "Transaction sent" in world.h.screen_texts()
    assert len(world.h.pending_calls(BALANCES)) > before  # the balances are fetched again
    assert _nonce(devchain, address) == 1
