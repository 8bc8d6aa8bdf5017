"""SIWX from the embedded smart account (issue 32 item 5; behaviour.md §8): the sign-in message is signed
by the engine for the smart account, and the engine's verifier accepts it whether or not the
account is deployed: on the dev chain, an email sign-in's undeployed account signs in by
ERC-6492 (the stored session's signature also verifies for viem). A signature that fails while
the account in use is the smart account shows 'This application might not support Smart
Accounts' (an EOA's shows 'Signature declined')."""

from __future__ import annotations

import json
from dataclasses import replace
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest
from eth_account import Account

from modalcore.core.services import ServiceError, serve
from modalcore.embedded.service import EmbeddedWallet
from modalcore.rules import texts
from modalcore.services.domain.handles import EMBEDDED_SIGN, SignArgs
from modalcore.siwx.backend.service import siwx_services
from modalcore.siwx.backend.store import SqliteSiwxStore
from modalcore.siwx.backend.verify import is_erc6492
from modalcore.slices.embedded import ApprovalDecided
from modalcore_dev.devchain.pytest_plugin import AaChains
from modalcore_dev.devmail import LocalSmtpServer
from tests.viem_dir import viem_dir

from .test_calls_session import Stand, _world
from .test_smart_account_chain import config_for
from .world import EmailWorld, open_wallet

SIWX = {"siwx": {"required": True, "statement": "Sign in to the demo"}}
HARNESS = Path(__file__).resolve().parents[1] / "siwx" / "viem" / "verify_message.mjs"


def _sign_request(world: EmailWorld) -> None:
    """SIWXSignMessage's Sign: the message is asked of the embedded wallet, which waits for Approve."""
    assert world.h.view == "SIWXSignMessage", world.h.view
    assert world.h.intent("siwx/sign", "press", {}) == "ok"
    world.settle_all()
    request = world.h.model.embedded.request
    assert request is not None and request.method == "personal_sign"
    world.h.deliver(ApprovalDecided(request.eid, approve=True))
    world.settle_all()


def test_rule_a_failed_smart_account_signature_shows_the_smart_accounts_snack(
        wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    for preferred, shown in (("smartAccount", texts.SMART_ACCOUNTS), ("eoa", texts.SIGNATURE_DECLINED)):
        stand = Stand(wallet)

        async def refuse(ctx: Any, args: SignArgs) -> dict[str, str]:
            raise ServiceError("the smart account could not sign")
        stand.services[EMBEDDED_SIGN] = serve(EMBEDDED_SIGN, refuse)
        stand.services.update(siwx_services(SqliteSiwxStore(":memory:"), httpx.AsyncClient(),
                                            Account.from_key("0x" + "11" * 32)))
        world, _ = _world(wallet, smtp, stand=stand, options=SIWX, email=f"{preferred}@example.com")
        if preferred == "eoa":  # the account in use is the EOA
            model = world.h.model
            accounts = model.accounts.with_account("eip155", replace(model.accounts.get("eip155"), preferred_account_type="eoa"))
            world.h.session.model = replace(model, accounts=accounts)
        _sign_request(world)
        world.h.advance(150)  # the loading snack closes first
        assert world.h.model.snack.message == shown, preferred
        assert world.h.model.siwx.has_session is False


@pytest.mark.chain
def test_rule_an_undeployed_embedded_smart_account_signs_in_by_erc6492(
        aachains: AaChains, tmp_path: Path, smtp: LocalSmtpServer) -> None:
    store = SqliteSiwxStore(":memory:")
    http = httpx.AsyncClient()
    siwx = siwx_services(store, http, Account.from_key("0x" + "11" * 32))
    config = config_for(aachains, sponsored_projects=["test"])
    world = EmailWorld(open_wallet(tmp_path / "e.db", smtp), smtp, config=config, services=siwx,
                       known_networks=config.known_networks(), options={"networks": ["eip155:31337"], **SIWX})
    world.submit_email("siwx@example.com")
    world.type_code(world.code_for("siwx@example.com"))
    world.settle_all()
    smart = world.h.model.accounts.get("eip155").address
    assert smart is not None and smart != world.h.model.smart.owner
    _sign_request(world)
    assert world.h.model.siwx.has_session is True, world.h.model.snack.message
    sessions = world.loop.run_until_complete(store.sessions_for(smart.lower(), None, None, world.h.now))
    [session] = sessions
    stored = session.to_json()
    signature, message = stored["signature"], stored["message"]
    assert is_erc6492(bytes.fromhex(signature[2:]))
    with aachains.chains.rpc(31337) as rpc:
        assert rpc.code(smart) in ("0x", "0x0")  # verified without deploying it
    found = viem_dir()
    assert found is not None, "viem is not installed (bundler/node_modules) and MODALCORE_VIEM_DIR is unset"
    done = subprocess.run(["node", str(HARNESS)], capture_output=True, text=True, timeout=60,
                          input=json.dumps({"rpc": aachains.chains.rpc_urls[31337],
                                            "cases": [{"address": smart, "message": message, "signature": signature}]}),
                          env={"VIEM_DIR": str(found), "PATH": "/usr/bin:/bin:/usr/local/bin"})
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [True]
    world.loop.run_until_complete(http.aclose())
    store.close()
