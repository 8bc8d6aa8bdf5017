"""The host dApp's provider over a real WalletConnect session (issue 13): a session driven by the
Harness whose `walletconnect` effects the engine's runtime runs against the local relay and the
real wallet peer (the official sign-client under Node, on Hardhat). `personal_sign` sent by the
host as the intent `rpc` is signed by the wallet, and the signature recovers to its address."""

from __future__ import annotations

import pytest
from eth_account import Account
from eth_account.messages import encode_defunct

from modalcore.core.cmds import EffectSettled
from modalcore_dev.devchain.pytest_plugin import ChainsInfo
from modalcore.enginetest import Harness
from modalcore.runtime.walletconnect import WalletConnectRuntime
from modalcore.store.memory import MemoryStore
from modalcore_dev.walletconnect_relay import running_relay

from .conftest import DAPP, DEV_ADDRESS, wallet_peer

pytestmark = pytest.mark.chain
NETWORKS = ["eip155:31337", "eip155:31338"]
SID = "session-host-provider"


async def run(h: Harness, rt: WalletConnectRuntime, method: str) -> None:
    """The runtime runs the session's pending `method` effect and its outcome goes back to it."""
    effect = h.pending_relay(method)
    h.cmds.remove(effect)
    success, result, code, message = await rt.run(SID, dict(effect.req))
    h.deliver(EffectSettled(effect.eid, effect.to, success, result if success else None,
                            0 if success else code, "" if success else message))


async def test_personal_sign_from_the_host_provider_is_signed_by_the_walletconnect_wallet(
        devchain: ChainsInfo) -> None:
    """Rule: with WalletConnect active the host's `rpc` personal_sign is signed by the paired
    wallet and the host event `rpc` carries a signature recovering to the wallet's address;
    eth_chainId is answered from the session; the wallet's rejection reaches the host as 4001."""
    async with running_relay() as relay, wallet_peer(relay.url, devchain.rpc_urls) as wallet:
        rt = WalletConnectRuntime(relay.url, metadata=DAPP, secret=b"host-provider-secret",
                                  store=MemoryStore(), deliver=lambda _sid, _msg: None)
        try:
            h = Harness(options={"networks": NETWORKS}, walletconnect=True)
            h.host("open")
            h.press("connect/wallet/walletConnect")
            await run(h, rt, "wc_pair")
            await wallet.send(cmd="pair", uri=h.model.walletconnect.uri)
            await run(h, rt, "wc_approval")
            account = h.model.accounts.get("eip155")
            assert account.status == "connected" and account.connector_id == "walletConnect"

            message = "Host dApp asks to sign"
            params = ["0x" + message.encode().hex(), DEV_ADDRESS]
            assert h.intent("host", "rpc", {"id": "h1", "method": "personal_sign", "params": params}) == "ok"
            await run(h, rt, "personal_sign")
            answer = h.host_state("rpc")
            assert answer["id"] == "h1" and answer["ok"] is True, answer
            assert Account.recover_message(encode_defunct(text=message), signature=answer["result"]) == DEV_ADDRESS
            assert [e["method"] for e in wallet.events if e["event"] == "request"].count("personal_sign") == 1

            assert h.intent("host", "rpc", {"id": "h2", "method": "eth_chainId", "params": []}) == "ok"
            await run(h, rt, "eth_chainId")
            assert h.host_state("rpc") == {"id": "h2", "ok": True, "result": hex(31337)}

            await wallet.send(cmd="policy", value="reject")
            assert h.intent("host", "rpc", {"id": "h3", "method": "personal_sign", "params": params}) == "ok"
            await run(h, rt, "personal_sign")
            answer = h.host_state("rpc")
            assert answer["id"] == "h3" and answer["ok"] is False and answer["code"] == 4001, answer
        finally:
            await rt.close()
