"""Sign in with Farcaster figures (issue 33), engine side, with the real parts: the local relay
(uvicorn, its demo client answering), Farcaster's IdRegistry on a Hardhat dev chain, the SQLite
key vault, one session driven through its intents.

- Farcaster pressed → channel open: the Connect row's intent (ConnectingFarcaster with its
  engine-origin frame), then what the frame's route does: the channel opened on the relay for
  the frame's key, delivered to the session (the frame then draws the QR code it was answered);
- approved → Account: the demo client's approve (message written and signed, channel answered),
  then the session's next status read: `farcaster.status` (relay read, message and signature
  checked, `idOf` on the chain, the FID's key opened) and its reply applied (connected, Account).
  The session polls every POLL_MS (1 s), so a person waits up to that much longer.
- approved → signed in (the host requires sign-in): as above, then the session's sign-in lookup
  (`siwx.sessions`), the SIWX message signed at once by the FID's key (`farcaster.sign_in`, the
  approval's checks) and verified and stored (`siwx.verify`, SQLite): one approval, no second.
"""

from __future__ import annotations

import asyncio
import base64
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from eth_account import Account
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from modalcore.core.cmds import Call, CallSettled
from modalcore.core.evolve import replace
from modalcore.embedded.keys import Identity, KeyVault
from modalcore.embedded.masterkey import MasterKey
from modalcore.enginetest import Harness
from modalcore_dev.farcaster.devrelay import farcaster_section
from modalcore_dev.farcaster.relay import create_relay_app
from modalcore.farcaster.service import FarcasterSignIns, farcaster_services
from modalcore.embedded.setup import FarcasterSection
from modalcore.runtime.clock import RealClock
from modalcore.core.services import ServiceContext
from modalcore.server.config import dev_networks, parse_config
from modalcore.embedded.devicekeys import DeviceKeys
from modalcore.farcaster.one_approval import SignInBinding
from modalcore.flows.farcaster import awaiting_frame
from modalcore.flows.farcaster_siwx import binding
from modalcore.embedded.signer import sign_text
from modalcore.siwx.service import siwx_services
from modalcore.siwx.store import SqliteSiwxStore
from modalcore.slices.farcaster import ChannelOpened, FarcasterChannelOpened, FarcasterPollDue
from modalcore_testing import serve_app
from modalcore_dev.bench.parts import Parts
from modalcore_dev.bench.stats import Figure, Lines, line, summary

ROUNDS = 30


def frame_key() -> str:
    """A frame's P-256 public key as the frame sends it (SubjectPublicKeyInfo, base64url)."""
    spki = ec.generate_private_key(ec.SECP256R1()).public_key().public_bytes(
        Encoding.DER, PublicFormat.SubjectPublicKeyInfo)
    return base64.urlsafe_b64encode(spki).rstrip(b"=").decode()


CTX = ServiceContext(session_id="bench", project_id="bench", clock=RealClock())


def _ms(name: str, samples: list[float]) -> Figure:
    s = summary(samples)
    return line(name, f"p50 {s['p50']:.1f} ms, p99 {s['p99']:.1f} ms ({len(samples)} runs)", measured=[s["p50"], s["p99"]])


def run(parts: Parts) -> Lines:
    rounds = parts.size(ROUNDS)
    loop = asyncio.new_event_loop()
    http = httpx.AsyncClient()
    try:
        with (tempfile.TemporaryDirectory() as folder, parts.dev_chains() as chains,
              serve_app(create_relay_app(demo_client=True)) as relay):
            known = parse_config({"networks": dev_networks(chains.rpc_urls, chains.deployment)}).known_networks()
            section = farcaster_section(relay.http_url, chains.chain(31337), "http://127.0.0.1:5173")
            assert section is not None
            vault = KeyVault(Path(folder) / "embedded.db", MasterKey.generate())
            devices = DeviceKeys(Path(folder) / "embedded.db")
            signins = FarcasterSignIns(FarcasterSection.model_validate(section).setting(),
                                       lambda fid, now: vault.get_or_create(Identity("farcaster", fid), now),
                                       register_key=devices.register,
                                       sign_text=lambda fid, text: sign_text(vault, Identity("farcaster", fid), text))
            signins.http = http
            services = farcaster_services(signins)

            siwx_store = SqliteSiwxStore(str(Path(folder) / "siwx.db"))
            services.update(siwx_services(siwx_store, http, Account.create()))

            def settle(h: Harness) -> None:
                """Every call the services answer, answered, until none is left."""
                while calls := [c for c in h.cmds if isinstance(c, Call) and c.service in services]:
                    for call in calls:
                        h.cmds.remove(call)
                        ctx = replace(CTX, session_id=h.model.session_id)
                        result: Any = loop.run_until_complete(services[call.service](ctx, **call.args_data))
                        h.deliver(CallSettled(call.to, True, result, context=call.context))

            drawn: list[float] = []
            approved: list[float] = []
            signed_in: list[float] = []
            for i in range(2 * rounds):
                sign_in = i % 2 == 1  # every other round: the host requires sign-in (interleaved: same load)
                options: dict[str, Any] = {"networks": ["eip155:31337"], **({"siwx": {"required": True}} if sign_in else {})}
                h = Harness(is_open=True, options=options, known_networks=known, session_id=f"bench-{i}",
                            now=int(time.time() * 1000))
                h.session.model = replace(h.model, embedded=replace(h.model.embedded, socials=("farcaster",)))
                h.session.render()
                start = time.perf_counter()
                h.press("connect/social/farcaster")
                settle(h)  # with sign-in required: the sign-in's nonce, before the frame opens the channel
                attempt = awaiting_frame(h.model)
                assert attempt is not None and h.find("farcaster/frame") is not None
                bound = binding(h.model)
                opened = loop.run_until_complete(signins.open_channel(
                    int(time.time() * 1000), key=frame_key(),
                    binding=SignInBinding(h.model.session_id, *bound) if bound is not None else None))
                h.deliver(FarcasterChannelOpened(key=str(attempt), result=ChannelOpened(
                    channel_token=opened["channel_token"], url=opened["url"], nonce=opened["nonce"])))
                if not sign_in:
                    drawn.append(1000 * (time.perf_counter() - start))
                channel = h.model.embedded.farcaster
                assert channel is not None and channel.token
                h.now = int(time.time() * 1000)
                start = time.perf_counter()
                answer = httpx.post(f"{relay.http_url}/client/approve", json={"url": channel.url, "fid": 1 + i % 3})
                assert answer.status_code == 201, answer.text
                h.deliver(FarcasterPollDue(channel.token))
                settle(h)
                (signed_in if sign_in else approved).append(1000 * (time.perf_counter() - start))
                assert h.model.accounts.get("eip155").status == "connected"
                assert h.model.siwx.has_session == sign_in and h.view == "Account"
    finally:
        loop.run_until_complete(http.aclose())
        loop.close()
    return [
        "Sign in with Farcaster (the session in process with the engine's services: local relay, IdRegistry on "
        "Hardhat, SQLite vault)",
        _ms("Farcaster pressed → channel opened for the frame's key", drawn),
        _ms("demo client approves → Account (verified, idOf, key opened, frame key registered)", approved),
        _ms("sign-in required: demo client approves → signed in (as above, then lookup, signed at once, "
            "verified and stored)", signed_in),
    ]


if __name__ == "__main__":
    for text in run(Parts()):
        print(text)
