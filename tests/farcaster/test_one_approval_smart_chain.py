"""One Farcaster approval signs in the smart account shown (issues 33 and 32): where the chain has
smart accounts (as `make run` configures both dev chains), the FID's embedded account shown is
its key's smart account, so the SIWX message names the smart account. The engine signs it at
once for that account: the key's signature, ERC-6492-wrapped while the account is not deployed
(its ERC-1271 answers once it is). The session runs through its intents with the real services
(the local relay in process, the SQLite key vault and SIWX store, smart accounts read from the dev
chain with its bundler's contracts); the stored sign-in verifies by the engine's verifier and by
viem's `verifyMessage`, and nothing was asked of the visitor a second time."""

from __future__ import annotations

import json
import subprocess
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest
from eth_account import Account

from modalcore.aa.userop import counterfactual_address, factory_data
from modalcore.embedded.keys import Identity
from modalcore.core.services import ServiceContext, serve
from modalcore.embedded.smart import smart_accounts
from modalcore.enginetest import Harness
from modalcore.services.domain.handles import SMART_ACCOUNTS, SmartAccountsArgs, SmartAccountsFound
from modalcore.siwx.backend.service import siwx_services
from modalcore.siwx.backend.verify import is_erc6492
from modalcore_dev.devchain.pytest_plugin import AaChains
from tests.embedded.test_smart_account_chain import config_for
from tests.viem_dir import viem_dir

from .test_one_approval import CAROL, Engine, HarnessClock, _to_connecting
from .test_service import NOW

pytestmark = pytest.mark.chain
CHAIN = 31337
HARNESS = Path(__file__).resolve().parents[1] / "siwx" / "viem" / "verify_message.mjs"


def _stand(aa: AaChains, tmp_path: Path) -> tuple[Harness, Engine, httpx.AsyncClient]:
    """A session whose only network is the dev chain with smart accounts, sign-in required, and
    the engine's services: Farcaster, SIWX (verifying through the chain's RPC), smart accounts."""
    config = config_for(aa, sponsored_projects=[])
    h = Harness(is_open=True, now=NOW, known_networks=config.known_networks(),
                options={"networks": [f"eip155:{CHAIN}"], "siwx": {"required": True}})
    h.session.model = replace(h.model, embedded=replace(h.model.embedded, socials=("farcaster",)))
    h.session.render()
    engine = Engine(h, tmp_path)
    http = httpx.AsyncClient()
    engine.ctx = ServiceContext(h.model.session_id, h.model.project_id, HarnessClock(h), http=http, config=config)

    async def accounts(ctx: Any, args: SmartAccountsArgs) -> SmartAccountsFound:
        return await smart_accounts(engine.vault, ctx, args)

    engine.services.update(siwx_services(engine.store, http, Account.create(), clock=lambda: h.now))
    engine.services[SMART_ACCOUNTS] = serve(SMART_ACCOUNTS, accounts)
    return h, engine, http


def _code(aa: AaChains, address: str) -> str:
    with aa.chains.rpc(CHAIN) as rpc:
        return str(rpc.code(address))


def _viem_verifies(aa: AaChains, address: str, message: str, signature: str) -> bool:
    found = viem_dir()
    assert found is not None, "viem is not installed (bundler/node_modules) and MODALCORE_VIEM_DIR is unset"
    done = subprocess.run(["node", str(HARNESS)], capture_output=True, text=True, timeout=60,
                          input=json.dumps({"rpc": aa.chains.rpc_urls[CHAIN],
                                            "cases": [{"address": address, "message": message, "signature": signature}]}),
                          env={"VIEM_DIR": str(found), "PATH": "/usr/bin:/bin:/usr/local/bin"})
    assert done.returncode == 0, done.stderr
    return bool(json.loads(done.stdout) == [True])


async def _one_approval(aa: AaChains, h: Harness, engine: Engine) -> tuple[str, dict[str, Any]]:
    """Connect → Farcaster → the demo client approves as FID 2: (the account shown, its stored sign-in)."""
    url = await _to_connecting(h, engine)
    engine.world.answer(url, dev=CAROL)
    await engine.poll()
    assert h.model.siwx.has_session and h.host_state("siwx")["signedIn"] is True, h.model.snack.message
    assert "SIWXSignMessage" not in engine.views and "ApproveTransaction" not in engine.views
    assert h.effects() == []  # nothing was asked of a browser
    asked = engine.services_asked()
    assert asked.count("farcaster.sign_in") == 1 and asked[-1] == "siwx.verify"
    smart = h.model.accounts.get("eip155").address
    assert smart is not None
    [session] = await engine.store.sessions_for(smart.lower(), None, None, h.now)
    stored: dict[str, Any] = session.to_json()
    return smart, stored


async def test_rule_one_approval_signs_in_the_undeployed_smart_account_by_erc6492(
        aachains: AaChains, tmp_path: Path) -> None:
    h, engine, http = _stand(aachains, tmp_path)
    smart, stored = await _one_approval(aachains, h, engine)
    owner = engine.vault.get_or_create(Identity("farcaster", str(CAROL.fid)), NOW)
    assert smart == counterfactual_address(aachains.smart_accounts(CHAIN)["factory"], owner) != owner
    assert h.model.accounts.get("eip155").preferred_account_type == "smartAccount"
    assert f"\n{smart}\n" in stored["message"]  # the message names the account shown
    assert is_erc6492(bytes.fromhex(stored["signature"][2:]))
    assert _code(aachains, smart) in ("0x", "0x0")  # verified without deploying it
    assert _viem_verifies(aachains, smart, stored["message"], stored["signature"])
    await http.aclose()


async def test_rule_one_approval_signs_in_the_deployed_smart_account_by_erc1271(
        aachains: AaChains, tmp_path: Path) -> None:
    h, engine, http = _stand(aachains, tmp_path)
    owner = engine.vault.get_or_create(Identity("farcaster", str(CAROL.fid)), NOW)  # the key FID 2 will get
    factory = aachains.smart_accounts(CHAIN)["factory"]
    with aachains.chains.rpc(CHAIN) as rpc:
        payer = rpc.call("eth_accounts", [])[0]
        rpc.call("eth_sendTransaction", [{"from": payer, "to": factory, "data": "0x" + factory_data(owner).hex()}])
    smart, stored = await _one_approval(aachains, h, engine)
    assert smart == counterfactual_address(factory, owner) and _code(aachains, smart) not in ("0x", "0x0")
    assert h.model.accounts.get("eip155").smart_account_deployed
    assert not is_erc6492(bytes.fromhex(stored["signature"][2:])) and len(stored["signature"]) == 132
    assert _viem_verifies(aachains, smart, stored["message"], stored["signature"])
    await http.aclose()
