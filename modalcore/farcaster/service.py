"""The engine's Farcaster services (issue 33), from the `[embedded.farcaster]` config:

- ``open_channel(now, key)`` → ``{channel_token, url, nonce}``: a channel opened on the auth
  relay with a fresh nonce, the configured domain and siweUri, expiring with the channel, for an
  engine-origin frame's key (server/verify_farcaster.py calls it; no session service does).
- ``farcaster.status(token, nonce)`` → ``{state: pending}``, ``{state: expired}`` (the relay no
  longer knows the channel), ``{state: refused, reason}`` (the answer failed a check of
  verify.py; one log line, nothing stored) or ``{state: verified, fid, username, display_name,
  pfp_url, address}`` with the address of the FID's embedded key (created on first sign-in).

The requests are exactly the auth-client's: ``POST {relay}/v1/channel`` with JSON {siweUri,
domain, nonce, expirationTime}, ``GET {relay}/v1/channel/status`` with ``Authorization: Bearer
<channelToken>``."""

from __future__ import annotations

import logging
import secrets
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx
from pydantic import BaseModel, ConfigDict

from ..core.services import serve, ServiceError, ServiceTable
from ..services.handles import FARCASTER_STATUS, StatusArgs
from ..siwx.message import iso_from_ms
from .verify import Expected, Refusal, check_message, registry_fid

log = logging.getLogger(__name__)

MAX_ANSWER = 32 * 1024
MAX_BOUND = 1024  # channels opened for frames' keys, not answered yet (the oldest dropped)
TEXT_BOUNDS = {"username": 64, "displayName": 128, "pfpUrl": 1024}


@dataclass(frozen=True)
class FarcasterSetting:
    relay_url: str  # e.g. http://127.0.0.1:8791 (the hosted one: https://relay.farcaster.xyz)
    rpc_url: str  # the chain of the ID registry (OP Mainnet; a dev chain standing in)
    id_registry: str
    domain: str  # the app's domain the message must name
    siwe_uri: str
    channel_ttl_ms: int = 300_000


class FarcasterSignIns:
    """`register_key(identity, public_key, now)`: a channel opened for an engine-origin frame's
    key (`open_channel(key=...)`, ConnectingFarcaster's frame) registers that key for the FID
    that answered it (issue 27: the browser may then approve)."""

    def __init__(self, setting: FarcasterSetting, open_key: Callable[[str, int], str],
                 random_hex: Callable[[int], str] = secrets.token_hex,
                 register_key: Callable[[str, str, int], object] | None = None) -> None:
        self.setting = setting
        self.open_key = open_key
        self.random_hex = random_hex
        self.register_key = register_key
        self.bound: OrderedDict[str, str] = OrderedDict()  # channel token → the frame's key
        self.http: httpx.AsyncClient | None = None

    def _client(self) -> httpx.AsyncClient:
        if self.http is None:
            raise ServiceError("the engine has no HTTP client yet")
        return self.http

    async def open_channel(self, now_ms: int, key: str | None = None) -> dict[str, str]:
        setting = self.setting
        body = {"siweUri": setting.siwe_uri, "domain": setting.domain, "nonce": self.random_hex(12),
                "expirationTime": iso_from_ms(now_ms + setting.channel_ttl_ms)}
        try:
            response = await self._client().post(f"{setting.relay_url}/v1/channel", json=body, timeout=10.0)
            data = response.json() if response.status_code == 201 else None
        except (httpx.HTTPError, ValueError):
            data = None
        if not isinstance(data, dict) or data.get("nonce") != body["nonce"]:
            raise ServiceError("the Farcaster relay did not open a channel")
        token = str(data.get("channelToken", ""))
        if key is not None:
            self.bound[token] = key
            while len(self.bound) > MAX_BOUND:
                self.bound.popitem(last=False)
        return {"channel_token": token, "url": str(data.get("url", "")), "nonce": body["nonce"]}

    async def status(self, token: str, nonce: str, now_ms: int) -> dict[str, Any]:
        try:
            response = await self._client().get(f"{self.setting.relay_url}/v1/channel/status",
                                                 headers={"Authorization": f"Bearer {token}"}, timeout=10.0)
        except httpx.HTTPError:
            raise ServiceError("the Farcaster relay cannot be reached") from None
        if response.status_code == 401:
            return {"state": "expired"}
        if response.status_code == 202:
            return {"state": "pending"}
        if response.status_code != 200 or len(response.content) > MAX_ANSWER:
            raise ServiceError(f"the Farcaster relay answered {response.status_code}")
        try:
            answer = response.json()
        except ValueError:
            answer = None
        verdict = await self._verify(answer, nonce, now_ms)
        key = self.bound.pop(token, None)  # the relay answers a channel once
        if isinstance(verdict, Refusal):
            log.warning("farcaster sign-in refused: %s", verdict.value)
            return {"state": "refused", "reason": verdict.value}
        if key is not None and self.register_key is not None:
            self.register_key(f"farcaster:{verdict['fid']}", key, now_ms)
        return verdict

    async def _verify(self, answer: Any, nonce: str, now_ms: int) -> dict[str, Any] | Refusal:
        if not isinstance(answer, dict) or answer.get("state") != "completed":
            return Refusal.MALFORMED
        fid, message, signature = answer.get("fid"), answer.get("message"), answer.get("signature")
        custody = answer.get("custody") or ""
        texts = {key: answer.get(key) or "" for key in TEXT_BOUNDS}
        if (not isinstance(fid, int) or isinstance(fid, bool) or not 0 < fid < 2**63
                or not isinstance(message, str) or not isinstance(signature, str) or not isinstance(custody, str)
                or not all(isinstance(v, str) and len(v) <= TEXT_BOUNDS[k] for k, v in texts.items())
                or (texts["pfpUrl"] and not texts["pfpUrl"].startswith(("https://", "http://")))):
            return Refusal.MALFORMED
        checked = check_message(message, signature, fid, custody, Expected(self.setting.domain, nonce), now_ms)
        if isinstance(checked, Refusal):
            return checked
        try:
            registered = await registry_fid(self._client(), self.setting.rpc_url, self.setting.id_registry,
                                            checked.account_address)
        except (httpx.HTTPError, ValueError):
            return Refusal.UNREACHABLE
        if registered != fid:
            return Refusal.REGISTRY
        address = self.open_key(str(fid), now_ms)
        return {"state": "verified", "fid": fid, "username": texts["username"],
                "display_name": texts["displayName"], "pfp_url": texts["pfpUrl"], "address": address}


def _now(ctx: Any) -> int:
    return int(ctx.clock.now_ms())


def farcaster_services(signins: FarcasterSignIns) -> ServiceTable:
    async def status(ctx: Any, args: StatusArgs) -> dict[str, Any]:
        return await signins.status(args.token, args.nonce, _now(ctx))

    return {FARCASTER_STATUS: serve(FARCASTER_STATUS, status)}
