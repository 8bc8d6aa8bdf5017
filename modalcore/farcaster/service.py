"""The engine's Farcaster services (issue 33), from the `[embedded.farcaster]` config:

- ``open_channel(now, key, binding)`` → ``{channel_token, url, nonce}``: a channel opened on the
  auth relay with a fresh nonce, the configured domain and siweUri, expiring with the channel, for
  an engine-origin frame's key (server/verify_farcaster.py calls it; no session service does).
  With a `SignInBinding` (the host requires sign-in, one_approval.py) the channel carries the
  SIWX message's domain, URI and nonce instead, and its verified answer is an `Approval`.
- ``farcaster.status(token, nonce)`` → ``{state: pending}``, ``{state: expired}`` (the relay no
  longer knows the channel), ``{state: refused, reason}`` (the answer failed a check of
  verify.py; one log line, nothing stored) or ``{state: verified, fid, username, display_name,
  pfp_url, address}`` with the address of the FID's embedded key (created on first sign-in).
- ``farcaster.sign_in(token, message)`` → ``{signature}``: the SIWX message signed with the FID's
  embedded key, only for the session whose channel's answer left an `Approval` and only a
  message `check_sign_in` passes (once per approval); otherwise a ServiceError (one log line).
  A message naming the key's smart account (the account shown where the chain has smart
  accounts, issue 32) gets the smart account's signature: the key's, ERC-6492-wrapped while the
  account is not deployed (embedded/smart_sign.py).

The requests are exactly the auth-client's: ``POST {relay}/v1/channel`` with JSON {siweUri,
domain, nonce, expirationTime}, ``GET {relay}/v1/channel/status`` with ``Authorization: Bearer
<channelToken>``.

What a channel was opened for (`Opened`) and its verified answer (`Approval`) are notes in the
session store (issue 42, store/notes.py), named by the SHA-256 of the channel token (a bearer
of the relay): with Redis a channel opened on host A may be answered while the socket is on B,
and signed in with on C; each is taken once (of two hosts, one gets it). Neither holds a secret
(the frame's public key, the session id, the SIWX domain, URI and nonce, the FID)."""

from __future__ import annotations

import hashlib
import json
import logging
import secrets
from collections.abc import Callable
from dataclasses import asdict, dataclass
from collections.abc import Awaitable
from typing import Any, NoReturn, TypeVar

import httpx
from pydantic import TypeAdapter, ValidationError

from ..core.services import serve, ServiceError, ServiceTable
from ..embedded.smart import smart_address
from ..embedded.smart_sign import account_signature
from ..services.domain.handles import FARCASTER_SIGN_IN, FARCASTER_STATUS, SignInArgs, SignInSigned, StatusArgs
from ..siwx.domain.message import iso_from_ms
from ..siwx.domain.message import SiwxMessage
from ..store.base import SessionStore
from ..store.memory import MemoryStore
from .one_approval import APPROVAL_TTL_MS, Approval, SignInBinding, SignInRefusal, check_sign_in
from .verify import Expected, Refusal, check_message, registry_fid

log = logging.getLogger(__name__)
T = TypeVar("T")

MAX_ANSWER = 32 * 1024
MAX_BOUND = 1024  # channels opened for frames' keys, not answered yet (the oldest dropped)
MAX_APPROVALS = 1024  # verified answers not yet signed in with (the oldest dropped)
TEXT_BOUNDS = {"username": 64, "displayName": 128, "pfpUrl": 1024}
OPENED, APPROVED = "farcaster-opened", "farcaster-approved"  # the notes' kinds
MAX_NOTE_BYTES = 8 * 1024  # a note read back larger is refused unread


@dataclass(frozen=True)
class FarcasterSetting:
    relay_url: str  # e.g. http://127.0.0.1:8791 (the hosted one: https://relay.farcaster.xyz)
    rpc_url: str  # the chain of the ID registry (OP Mainnet; a dev chain standing in)
    id_registry: str
    domain: str  # the app's domain the message must name
    siwe_uri: str
    channel_ttl_ms: int = 300_000


@dataclass(frozen=True)
class Opened:
    """What the engine opened a channel for: a frame's key to register, a sign-in to approve."""

    key: str | None
    binding: SignInBinding | None


def _channel(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _decoded(data: bytes | None) -> dict[str, object] | None:
    try:
        value = json.loads(data) if data is not None and len(data) <= MAX_NOTE_BYTES else None
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _opened(data: bytes | None, now_ms: int, ttl_ms: int) -> Opened | None:
    """What the channel was opened for, while the channel lasts (`ttl_ms` after it was opened)."""
    value = _decoded(data)
    at, key = (value.get("at"), value.get("key")) if value is not None else (None, None)
    if value is None or not isinstance(at, int) or not 0 <= now_ms - at < ttl_ms or not isinstance(key, (str, type(None))):
        return None
    binding = value.get("binding")
    try:
        return Opened(key, SignInBinding(**binding) if isinstance(binding, dict) else None)
    except TypeError:
        return None


def _approval(data: bytes | None) -> Approval | None:
    if data is None or len(data) > MAX_NOTE_BYTES:
        return None
    try:
        return _APPROVAL.validate_json(data, strict=True)
    except ValidationError:
        return None


_APPROVAL = TypeAdapter(Approval)


class FarcasterSignIns:
    """`register_key(identity, public_key, now)`: a channel opened for an engine-origin frame's
    key (`open_channel(key=...)`, ConnectingFarcaster's frame) registers that key for the FID
    that answered it (issue 27: the browser may then approve). `sign_text(fid, text)`: the
    EIP-191 signature of `text` by the FID's embedded key (one approval signs in)."""

    def __init__(self, setting: FarcasterSetting, open_key: Callable[[str, int], str],
                 random_hex: Callable[[int], str] = secrets.token_hex,
                 register_key: Callable[[str, str, int], object] | None = None,
                 sign_text: Callable[[str, str], str] | None = None,
                 store: SessionStore | None = None) -> None:
        self.setting = setting
        self.open_key = open_key
        self.random_hex = random_hex
        self.register_key = register_key
        self.sign_text = sign_text
        # channel → what it was opened for, and its verified answer (the server sets the engine's store)
        self.store: SessionStore = store if store is not None else MemoryStore()
        self.http: httpx.AsyncClient | None = None

    def _client(self) -> httpx.AsyncClient:
        if self.http is None:
            raise ServiceError("the engine has no HTTP client yet")
        return self.http

    async def open_channel(self, now_ms: int, key: str | None = None,
                           binding: SignInBinding | None = None) -> dict[str, str]:
        setting = self.setting
        body = {"siweUri": binding.uri if binding else setting.siwe_uri,
                "domain": binding.domain if binding else setting.domain,
                "nonce": binding.nonce if binding else self.random_hex(12),
                "expirationTime": iso_from_ms(now_ms + setting.channel_ttl_ms)}
        try:
            response = await self._client().post(f"{setting.relay_url}/v1/channel", json=body, timeout=10.0)
            data = response.json() if response.status_code == 201 else None
        except (httpx.HTTPError, ValueError):
            data = None
        if not isinstance(data, dict) or data.get("nonce") != body["nonce"]:
            raise ServiceError("the Farcaster relay did not open a channel")
        token = str(data.get("channelToken", ""))
        if key is not None or binding is not None:
            note = json.dumps({"key": key, "binding": asdict(binding) if binding else None, "at": now_ms}).encode()
            await self._store(OPENED, token, note, now_ms, setting.channel_ttl_ms, MAX_BOUND)
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
        # the relay answers a channel once: taken (of two hosts polling it, one registers the key)
        opened = _opened(await self._take(OPENED, token, now_ms), now_ms, self.setting.channel_ttl_ms)
        binding = opened.binding if opened is not None else None
        expected = (Expected(binding.domain, binding.nonce, binding.uri) if binding is not None
                    else Expected(self.setting.domain, nonce, self.setting.siwe_uri))  # the URI always (issue 38)
        checked = await self._verify(answer, expected, now_ms)
        if isinstance(checked, Refusal):
            log.warning("farcaster sign-in refused: %s", checked.value)
            return {"state": "refused", "reason": checked.value}
        verdict, message = checked
        if opened is not None and opened.key is not None and self.register_key is not None:
            self.register_key(f"farcaster:{verdict['fid']}", opened.key, now_ms)
        if binding is not None:
            approval = Approval(binding.session, verdict["fid"], message.domain, message.uri,
                                message.nonce, message.statement or "", now_ms)
            # kept past APPROVAL_TTL_MS so a late sign-in is refused as expired (check_sign_in)
            await self._store(APPROVED, token, json.dumps(asdict(approval)).encode(), now_ms,
                              2 * APPROVAL_TTL_MS, MAX_APPROVALS)
        return verdict

    async def sign_in(self, ctx: object, session: str, token: str, text: str, now_ms: int) -> SignInSigned:
        """The SIWX message `text` signed for the account it names (the FID's embedded key, or
        that key's smart account on the message's chain, per `ctx.config`), if the visitor's
        Farcaster approval of channel `token` for this session covers it (one_approval.py); once
        per approval (a refused message spends it too: the session signs in in two steps)."""
        approval = _approval(await self._store_call(self.store.notes.noted(APPROVED, _channel(token), now_ms)))
        if approval is None or approval.session != session or self.sign_text is None:
            _not_signed(SignInRefusal.NO_APPROVAL)
        if _approval(await self._take(APPROVED, token, now_ms)) != approval:  # spent meanwhile
            _not_signed(SignInRefusal.NO_APPROVAL)
        owner = self.open_key(str(approval.fid), now_ms)
        config = getattr(ctx, "config", None)

        def accounts(chain_id: int) -> tuple[str, ...]:
            smart = smart_address(config, f"eip155:{chain_id}", owner) if config is not None else None
            return (owner,) if smart is None else (owner, smart)

        checked = check_sign_in(approval, text, accounts, session, now_ms)
        if isinstance(checked, SignInRefusal):
            _not_signed(checked)
        signature = self.sign_text(str(approval.fid), text)
        if checked.account_address.lower() != owner.lower():  # the key's smart account
            signature = await account_signature(ctx, chain=f"eip155:{checked.chain_id}", owner=owner,
                                                account=checked.account_address, signature=signature)
        return {"signature": signature}

    async def _store(self, kind: str, token: str, note: bytes, now_ms: int, ttl_ms: int, most: int) -> None:
        await self._store_call(self.store.notes.note(kind, _channel(token), note, now_ms, ttl_ms, most))

    async def _take(self, kind: str, token: str, now_ms: int) -> bytes | None:
        return await self._store_call(self.store.notes.take(kind, _channel(token), now_ms))

    async def _store_call(self, call: Awaitable[T]) -> T:
        """The session store's answer; its outage: a ServiceError (one log line)."""
        try:
            return await call
        except Exception as error:
            log.warning("farcaster channel store failed: %s", type(error).__name__)
            raise ServiceError("the engine's session store cannot be reached") from None

    async def _verify(self, answer: object, expected: Expected,
                      now_ms: int) -> tuple[dict[str, Any], SiwxMessage] | Refusal:
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
        checked = check_message(message, signature, fid, custody, expected, now_ms)
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
                "display_name": texts["displayName"], "pfp_url": texts["pfpUrl"], "address": address}, checked


def _not_signed(refusal: SignInRefusal) -> NoReturn:
    log.warning("farcaster sign-in not signed at once: %s", refusal.value)
    raise ServiceError(f"the Farcaster approval does not cover this sign-in ({refusal.value})")


def _now(ctx: Any) -> int:
    return int(ctx.clock.now_ms())


def farcaster_services(signins: FarcasterSignIns) -> ServiceTable:
    async def status(ctx: object, args: StatusArgs) -> dict[str, Any]:
        return await signins.status(args.token, args.nonce, _now(ctx))

    async def sign_in(ctx: Any, args: SignInArgs) -> SignInSigned:
        return await signins.sign_in(ctx, str(ctx.session_id), args.token, args.message, _now(ctx))

    return {FARCASTER_STATUS: serve(FARCASTER_STATUS, status), FARCASTER_SIGN_IN: serve(FARCASTER_SIGN_IN, sign_in)}
