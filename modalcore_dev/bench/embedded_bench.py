"""Embedded wallet figures (issue 15), engine side, with the real parts: the SQLite code store
and key vault, SMTP to a local aiosmtpd server, one session driven through its intents.

- email submitted → code sent: the submit intent, `embedded.email_code` (digest stored, mail
  accepted by the SMTP server), its reply applied (EmailVerifyOtp drawn);
- code submitted → Account: the code as the sign-in frame's route checks it (`check_code`: the
  key created on first sign-in, the frame's public key registered), `EmailCodeChecked` applied
  (connected, Account);
- approval frame drawn after a sign request: the request on the auth connector → the
  ApproveTransaction tree holding the engine-origin frame, and that frame's page rendered;
- wallet_getAssets request → answer: the host's `rpc` intent → the engine's `balances` reads of
  both local Hardhat chains (native + configured tokens) → the host event `rpc` with the assets.
"""

from __future__ import annotations

import asyncio
import base64
import re
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from modalcore.core.cmds import Call, CallSettled, EffectReply
from modalcore_dev.devchain.pytest_plugin import start_chains
from modalcore.flows.assets import AssetBalancesFetched
from modalcore.server.config import dev_networks, parse_config
from modalcore.services.table import default_services
from modalcore.embedded.budget import BudgetLimits, memory_budget
from modalcore.embedded.codes import EmailCodes
from modalcore.embedded.codestore import CodeStore
from modalcore.embedded.decode import describe
from modalcore_dev.devmail import LocalSmtpServer
from modalcore.embedded.keys import KeyVault
from modalcore.embedded.mail import SmtpConfig, SmtpSender
from modalcore.embedded.masterkey import MasterKey
from modalcore.embedded.service import EmbeddedWallet, check_code, embedded_services
from modalcore.slices.embedded import CodeCheckResult, EmailCodeChecked
from modalcore.enginetest import Harness
from modalcore.core.evolve import replace
from modalcore.rules.embedded import AUTH_CONNECTOR_ID
from modalcore.slices.connecting import wallet_request
from modalcore.slices.model import Model, Step
from modalcore.runtime.clock import RealClock
from modalcore.core.services import ServiceContext
from modalcore_dev.bench.stats import line, summary
from modalcore.services.handles import BALANCES

ROUNDS = 40
ASSET_ASKS = 5  # wallet_getAssets requests per signed-in session


class BenchSigned(EffectReply):
    """The reply the bench's sign request names (nothing handles it: it is never answered)."""


CTX = ServiceContext(session_id="bench", project_id="bench", clock=RealClock())


def _ms(samples: list[float]) -> str:
    s = summary(samples)
    return f"p50 {s['p50']:.1f} ms, p99 {s['p99']:.1f} ms ({len(samples)} runs)"


def _public_key() -> str:
    """A P-256 public key as the frame sends it (base64url SubjectPublicKeyInfo)."""
    spki = ec.generate_private_key(ec.SECP256R1()).public_key().public_bytes(
        Encoding.DER, PublicFormat.SubjectPublicKeyInfo)
    return base64.urlsafe_b64encode(spki).rstrip(b"=").decode()


def run() -> list[str]:
    smtp = LocalSmtpServer().start()
    loop = asyncio.new_event_loop()
    http = httpx.AsyncClient()
    try:
        with tempfile.TemporaryDirectory() as folder, start_chains() as chains:
            known = parse_config({"networks": dev_networks(chains.rpc_urls, chains.deployment)}).known_networks()
            balances = default_services(http)[BALANCES]
            db = Path(folder) / "embedded.db"
            wallet = EmbeddedWallet(
                codes=EmailCodes(CodeStore(db), b"b" * 32),
                mailer=SmtpSender(SmtpConfig("127.0.0.1", smtp.port, "bench@modal.test", tls="none")),
                vault=KeyVault(db, MasterKey.generate()),
                budget=memory_budget(BudgetLimits(session_per_hour=0)))  # every round is the session "bench"
            services = embedded_services(wallet)
            device = _public_key()

            def settle(h: Harness) -> None:
                for call in [c for c in h.cmds if isinstance(c, Call) and c.service in services]:
                    h.cmds.remove(call)
                    result: Any = loop.run_until_complete(services[call.service](CTX, **call.args_data))
                    h.deliver(CallSettled(call.to, True, result, context=call.context))

            def read_assets(h: Harness) -> None:
                for call in [c for c in h.cmds if isinstance(c, Call) and c.reply is AssetBalancesFetched]:
                    h.cmds.remove(call)
                    result: Any = loop.run_until_complete(balances(CTX, **call.args_data))
                    h.deliver(CallSettled(call.to, True, result, context=call.context))

            sent, connected, framed, assets = [], [], [], []
            for i in range(ROUNDS):
                h = Harness(is_open=True, options={"networks": ["eip155:31337", "eip155:31338"]},
                            known_networks=known)
                h.session.model = replace(h.model, embedded=replace(h.model.embedded, email_offered=True))
                h.session.render()
                email = f"bench{i}@example.com"
                h.intent("connect/email", "change", {"value": email})
                start = time.perf_counter()
                h.intent("connect/email", "submit", {"value": email})
                settle(h)
                sent.append(1000 * (time.perf_counter() - start))
                assert h.view == "EmailVerifyOtp"
                found = re.search(r"\b(\d{6})\b", smtp.mailbox.to(email)[-1].body)
                assert found is not None
                start = time.perf_counter()
                checked = check_code(wallet, email, found.group(1), device, int(time.time() * 1000),
                                     session=CTX.session_id)
                h.deliver(EmailCodeChecked(email=email, result=CodeCheckResult.model_validate(checked)))
                settle(h)
                connected.append(1000 * (time.perf_counter() - start))
                assert h.model.accounts.get("eip155").connector_id == AUTH_CONNECTOR_ID
                address = h.model.accounts.get("eip155").address or ""
                for n in range(ASSET_ASKS):
                    start = time.perf_counter()
                    h.intent("host", "rpc", {"id": f"a{n}", "method": "wallet_getAssets",
                                             "params": [{"account": address}]})
                    read_assets(h)
                    answer = h.host_state("rpc")
                    assets.append(1000 * (time.perf_counter() - start))
                    assert answer["ok"] and list(answer["result"]) == ["0x7a69", "0x7a6a"], answer

                def ask(model: Model) -> Step:
                    model, effect = wallet_request(model, AUTH_CONNECTOR_ID, "personal_sign",
                                                   ["0x68656c6c6f", address], BenchSigned)
                    return model, [effect]

                start = time.perf_counter()
                h.apply(ask)
                request = h.model.embedded.request
                assert request is not None and h.find(f"approve/frame/{request.eid}") is not None
                describe(request.method, request.params, h.model.networks.active_network)
                framed.append(1000 * (time.perf_counter() - start))
    finally:
        loop.run_until_complete(http.aclose())
        loop.close()
        smtp.stop()
    return [
        "Embedded wallet (engine side, local SMTP and SQLite)",
        line("email submitted → code sent (SMTP accepted)", _ms(sent)),
        line("code submitted → Account (key created)", _ms(connected)),
        line("sign request → approval frame in the tree", _ms(framed)),
        line("wallet_getAssets request → answer (2 Hardhat chains)", _ms(assets)),
    ]
