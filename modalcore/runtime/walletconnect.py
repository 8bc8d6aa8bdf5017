"""The engine as every visitor's WalletConnect dApp: the runtime side of `walletconnect` effects.

One `RelayClient` per engine process (opened on first use) carries every visitor's topics; each
visitor session has its own `SignClient` (its pairings and session). A slice asks through an
effect of kind `walletconnect` (core/cmds.RUNTIME_EFFECT_KINDS) whose `req` names a method:

- `wc_pair` (`networks`, optional `auth`): a fresh pairing and proposal; answers `{uri, expiry}`
  at once. With `auth` (an authPayload: one-click sign-in) the pairing carries
  `methods=wc_sessionAuthenticate` and a wc_sessionAuthenticate request goes beside the proposal;
- `wc_approval`: waits for the wallet's answer to that proposal; `{accounts, chain, peer}` (plus
  `siwx: {message, signature}` when the wallet signed in with a verified CACAO), or the wallet's
  error (5000: declined; 7000: an authenticate answer refused);
- an EIP-1193 method: `eth_accounts` / `eth_requestAccounts` / `eth_chainId` are answered from
  the session; `wallet_switchEthereumChain` goes to the wallet and then moves the session's
  chain; `wallet_revokePermissions` deletes the session (wc_sessionDelete); anything the
  session permits (`personal_sign`, `eth_sendTransaction`, ...) is a wc_sessionRequest with
  an expiry, answered with the wallet's result or its error code.

The wallet's session events come back to the visitor's session as the messages a browser
wallet's events are (`WalletChainChanged`, `WalletAccountsChanged`, `WalletDisconnected`), for
the connector ref `walletConnect`, through `deliver` (set by the hub).

Server-owned sessions: each visitor's state (pairing and session keys) is written to the
engine's store under `wc:<session id>` after every change, sealed with AES-GCM under a key
derived from the operator's secret (walletconnect/backend/atrest.py); the relay identity likewise under
`wc:identity`. After a reload or an engine restart the state is read back on the first effect
and its topics resubscribed: the same WalletConnect session continues without pairing again.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from ..core.msg import Msg
from ..slices.wallet_events import WalletAccountsChanged, WalletChainChanged, WalletDisconnected
from ..store.base import SessionStore
from ..walletconnect.domain import errors
from ..walletconnect.domain.auth import AuthPayload, signed_in
from ..walletconnect.backend.atrest import SealedStateError, derive_key, open_state, seal_state
from ..walletconnect.backend.didjwt import ClientIdentity
from ..walletconnect.domain.errors import WalletConnectError
from ..walletconnect.backend.events import Event, SessionDeleted, SessionEvent, SessionExpired, SessionUpdated
from ..walletconnect.backend.relay_client import RelayClient, RelayError
from ..walletconnect.domain.sign_rpc import Metadata
from ..walletconnect.backend.signclient import Connection, SignClient
from ..walletconnect.backend.state import DappState, SessionState, session_chains
from ..walletconnect.backend.tags import MIN_REQUEST_EXPIRY
from ..walletconnect.backend.uri import PAIRING_EXPIRY_MS, parse_uri

log = logging.getLogger(__name__)

CONNECTOR = "walletConnect"  # the connector id and ref of WalletConnect sessions
IDENTITY_KEY = "wc:identity"
STORE_MS = 7 * 86400 * 1000  # `now` given to the store's save (its TTL runs from there)
LOCAL_METHODS = ("eth_accounts", "eth_requestAccounts", "eth_chainId", "wallet_revokePermissions",
                 "wallet_switchEthereumChain")

Outcome = tuple[bool, Any, int, str]


def store_key(session_id: str) -> str:
    return f"wc:{session_id}"


@dataclass
class _Visitor:
    client: SignClient
    chain: str = ""  # the session's current CAIP-2 chain
    connection: Connection | None = None
    answered: set[int] = field(default_factory=set)  # proposals whose approval was answered


def _fail(code: int, message: str) -> Outcome:
    return False, None, code, message


def _addresses(session: SessionState, chain: str) -> list[str]:
    """The session's addresses, those on `chain` first, without duplicates."""
    ordered = sorted(session.accounts, key=lambda a: not a.startswith(chain + ":"))
    out: list[str] = []
    for account in ordered:
        address = account.split(":")[-1]
        if address not in out:
            out.append(address)
    return out


def _chain_hex(chain: str) -> str:
    return hex(int(chain.split(":")[1]))


class WalletConnectRuntime:
    def __init__(self, relay_url: str, *, metadata: Metadata, secret: bytes, store: SessionStore | None = None,
                 project_id: str = "", deliver: Callable[[str, Msg], object] | None = None,
                 pairing_ttl_ms: int = PAIRING_EXPIRY_MS) -> None:
        self.relay_url = relay_url
        self.pairing_ttl_ms = pairing_ttl_ms  # behaviour.md §9's 240 s; shorter only by operator setting
        self.project_id = project_id
        self.metadata = metadata
        self.store = store
        self.deliver = deliver
        self._key = derive_key(secret)
        self._relay: RelayClient | None = None
        self._starting: asyncio.Lock = asyncio.Lock()
        self._visitors: dict[str, _Visitor] = {}
        self._loading: dict[str, asyncio.Lock] = {}
        self.pairings = 0  # pairings created (bench / tests)

    # ---------- lifecycle ----------------------------------------------------------------------

    async def relay(self) -> RelayClient:
        async with self._starting:
            if self._relay is None:
                identity = await self._identity()
                relay = RelayClient(self.relay_url, identity, project_id=self.project_id)
                try:
                    await relay.start()
                except BaseException:
                    await relay.close()  # no reconnect loop left behind: the next effect tries again
                    raise
                self._relay = relay
            return self._relay

    async def close(self) -> None:
        if self._relay is not None:
            await self._relay.close()
            self._relay = None
        self._visitors.clear()

    async def _identity(self) -> ClientIdentity:
        """The relay identity, kept across restarts so the relay knows the same client."""
        saved = await self._load(IDENTITY_KEY)
        if saved is not None and isinstance(saved.get("seed"), str):
            return ClientIdentity(saved["seed"])
        identity = ClientIdentity.generate()
        await self._save(IDENTITY_KEY, {"seed": identity.seed})
        return identity

    # ---------- persistence --------------------------------------------------------------------

    async def _load(self, name: str) -> dict[str, Any] | None:
        if self.store is None:
            return None
        blob = await self.store.load(name, int(time.time() * 1000))
        if blob is None:
            return None
        try:
            data = json.loads(open_state(self._key, name, blob))
        except (SealedStateError, ValueError) as error:
            log.warning("walletconnect: stored state %s unreadable (%s), dropped", name[:20], error)
            await self.store.delete(name)
            return None
        return data if isinstance(data, dict) else None

    async def _save(self, name: str, data: dict[str, object]) -> None:
        if self.store is not None:
            plaintext = json.dumps(data, separators=(",", ":")).encode()
            await self.store.save(name, seal_state(self._key, name, plaintext), int(time.time() * 1000))

    async def _persist(self, session_id: str) -> None:
        visitor = self._visitors.get(session_id)
        if visitor is None:
            return
        state = visitor.client.state
        if not state.sessions and not state.pairings and self.store is not None:
            await self.store.delete(store_key(session_id))
            return
        await self._save(store_key(session_id), {"state": state.model_dump(mode="json"), "chain": visitor.chain})

    async def _visitor(self, session_id: str) -> _Visitor:
        """The visitor's sign client: in memory, else restored from the store, else new."""
        visitor = self._visitors.get(session_id)
        if visitor is not None:
            return visitor
        lock = self._loading.setdefault(session_id, asyncio.Lock())
        try:
            return await self._load_visitor(session_id, lock)
        finally:
            self._loading.pop(session_id, None)

    async def _load_visitor(self, session_id: str, lock: asyncio.Lock) -> _Visitor:
        async with lock:
            visitor = self._visitors.get(session_id)
            if visitor is not None:
                return visitor
            relay = await self.relay()
            saved = await self._load(store_key(session_id))
            state = DappState.model_validate(saved["state"]) if saved and "state" in saved else DappState()
            chain = str(saved.get("chain", "")) if saved else ""
            visitor = _Visitor(SignClient(relay, self.metadata, state=state), chain)

            async def persist(_: DappState) -> None:
                await self._persist(session_id)

            visitor.client.on_change = persist
            visitor.client.on_event = lambda event: self._on_event(session_id, event)
            self._visitors[session_id] = visitor
            if saved is not None:
                await visitor.client.expire()
                await visitor.client.restore()
                log.info("walletconnect: session %s resumed from the store", session_id)
        return visitor

    # ---------- the effect ---------------------------------------------------------------------

    async def run(self, session_id: str, req: dict[str, object]) -> Outcome:
        method = req.get("method")
        try:
            visitor = await self._visitor(session_id)
            if method == "wc_pair":
                return await self._pair(visitor, req.get("networks"), req.get("metadata"), req.get("auth"))
            if method == "wc_approval":
                return await self._approval(session_id, visitor)
            if not isinstance(method, str):
                return _fail(-32602, "no method")
            return await self._request(session_id, visitor, method, req.get("params"))
        except WalletConnectError as error:
            return _fail(error.code, error.message)
        except (RelayError, TimeoutError, OSError) as error:
            log.warning("walletconnect: relay unavailable for %s: %s", method, error)
            return _fail(-32603, "The WalletConnect relay is unavailable")

    async def _pair(self, visitor: _Visitor, networks: object, metadata: object, auth: object = None) -> Outcome:
        if not isinstance(networks, list) or not all(isinstance(n, str) for n in networks):
            return _fail(-32602, "networks must be a list of CAIP-2 ids")
        payload: AuthPayload | None = None
        if auth is not None:
            try:
                payload = AuthPayload.model_validate(auth)
            except ValidationError:
                return _fail(-32602, "auth must be an authPayload")
        try:  # the host's metadata (its createModal options), shown by the wallet
            visitor.client.metadata = Metadata.model_validate(metadata) if metadata else self.metadata
        except ValidationError:
            visitor.client.metadata = self.metadata
        await visitor.client.expire()
        await visitor.client.drop_unanswered()  # the URI shown before is replaced: one pending pairing
        if payload is not None:  # one-click sign-in (wc_sessionAuthenticate, with the fallback proposal)
            connection = await visitor.client.authenticate(networks, payload, pairing_ttl_ms=self.pairing_ttl_ms)
        else:
            connection = await visitor.client.connect(networks, pairing_ttl_ms=self.pairing_ttl_ms)
        visitor.connection = connection
        self.pairings += 1
        return True, {"uri": connection.uri, "expiry": parse_uri(connection.uri).expiry_timestamp}, 0, ""

    async def _approval(self, session_id: str, visitor: _Visitor) -> Outcome:
        connection = visitor.connection
        if connection is None:  # an engine restarted since: wait on the stored proposal again
            for session in visitor.client.state.sessions.values():
                if session.settled and visitor.client.settled_for(session.proposal_id) is session \
                        and session.proposal_id not in visitor.answered:
                    return await self._approved(session_id, visitor, session)
            connection = visitor.connection = visitor.client.pending_connection()
        if connection is None:
            return _fail(errors.NO_SESSION_FOR_TOPIC, "No pairing in flight")
        left = parse_uri(connection.uri).expiry_timestamp - time.time()
        try:  # the proposal outlives the pairing URI by little: no wait past it
            session = await asyncio.wait_for(asyncio.shield(connection.approval), max(1.0, left + 60))
        except TimeoutError:
            return _fail(errors.SESSION_REQUEST_EXPIRED, "The pairing expired")
        if visitor.connection is connection:
            visitor.connection = None
        return await self._approved(session_id, visitor, session)

    async def _approved(self, session_id: str, visitor: _Visitor, session: SessionState) -> Outcome:
        visitor.answered.add(session.proposal_id)
        # one session per visitor: an older one is deleted
        for topic in [t for t in visitor.client.state.sessions if t != session.topic]:
            await visitor.client.disconnect(topic)
        chains = session_chains(session)
        visitor.chain = chains[0] if chains else ""
        await self._persist(session_id)
        peer = session.peer
        answer: dict[str, object] = {
            "accounts": _addresses(session, visitor.chain),
            "chain": visitor.chain,
            "peer": {"name": peer.name if peer else "", "icon": (peer.icons[0] if peer and peer.icons else ""),
                     "url": peer.url if peer else ""},
        }
        signed = signed_in(session.cacaos, visitor.chain) if session.cacaos else None
        if signed is not None:  # one-click sign-in: the CACAO of the active chain, as a SIWE message
            answer["siwx"] = signed
        return True, answer, 0, ""

    def _session(self, visitor: _Visitor) -> SessionState:
        settled = [s for s in visitor.client.state.sessions.values() if s.settled]
        if not settled:
            raise WalletConnectError(4900, "The WalletConnect session ended")
        return settled[-1]

    async def _request(self, session_id: str, visitor: _Visitor, method: str, params: object) -> Outcome:
        session = self._session(visitor)
        if not visitor.chain:
            chains = session_chains(session)
            visitor.chain = chains[0] if chains else "eip155:1"
        if method in ("eth_accounts", "eth_requestAccounts"):
            return True, _addresses(session, visitor.chain), 0, ""
        if method == "eth_chainId":
            return True, _chain_hex(visitor.chain), 0, ""
        if method == "wallet_revokePermissions":
            await visitor.client.disconnect(session.topic)
            return True, None, 0, ""
        if method == "wallet_switchEthereumChain":
            return await self._switch(session_id, visitor, session, params)
        expiry = int(time.time()) + MIN_REQUEST_EXPIRY
        result = await visitor.client.request(session.topic, visitor.chain, method, params, expiry=expiry)
        return True, result, 0, ""

    async def _switch(self, session_id: str, visitor: _Visitor, session: SessionState, params: Any) -> Outcome:
        try:
            target = f"eip155:{int(params[0]['chainId'], 16)}"
        except (TypeError, KeyError, IndexError, ValueError):
            return _fail(-32602, "Invalid params")
        if target not in session_chains(session):
            return _fail(4902, "Unrecognized chain")
        if target != visitor.chain:
            await visitor.client.request(session.topic, visitor.chain, "wallet_switchEthereumChain", params,
                                         expiry=int(time.time()) + MIN_REQUEST_EXPIRY)
            visitor.chain = target
            await self._persist(session_id)
        return True, None, 0, ""

    # ---------- the wallet's events ------------------------------------------------------------

    def _on_event(self, session_id: str, event: Event) -> None:
        visitor = self._visitors.get(session_id)
        msg: Msg | None = None
        if isinstance(event, SessionEvent) and event.name == "chainChanged":
            chain = event.chain_id
            try:
                number = int(event.data, 16) if isinstance(event.data, str) else int(event.data)
                chain = f"eip155:{number}"
            except (TypeError, ValueError):
                pass
            if visitor is not None and chain.startswith("eip155:"):
                visitor.chain = chain
                self._later(self._persist(session_id))
                msg = WalletChainChanged(CONNECTOR, _chain_hex(chain))
        elif isinstance(event, SessionEvent) and event.name == "accountsChanged" and isinstance(event.data, list):
            addresses = tuple(str(a).split(":")[-1] for a in event.data)[:16]
            msg = WalletAccountsChanged(CONNECTOR, addresses)
        elif isinstance(event, SessionUpdated) and visitor is not None:
            msg = WalletAccountsChanged(CONNECTOR, tuple(_addresses(event.session, visitor.chain))[:16])
        elif isinstance(event, (SessionDeleted, SessionExpired)):
            msg = WalletDisconnected(CONNECTOR)
        if msg is not None and self.deliver is not None:
            self.deliver(session_id, msg)

    def _later(self, coroutine: Any) -> None:
        task = asyncio.ensure_future(coroutine)
        task.add_done_callback(lambda t: t.cancelled() or t.exception())

    async def forget(self, session_id: str) -> None:
        """The visitor's session ended for good (its host left): delete its WalletConnect state."""
        visitor = self._visitors.pop(session_id, None)
        if visitor is not None:
            for topic in list(visitor.client.state.sessions):
                try:
                    await visitor.client.disconnect(topic)
                except (WalletConnectError, RelayError):
                    pass
            await visitor.client.close()
        if self.store is not None:
            await self.store.delete(store_key(session_id))
