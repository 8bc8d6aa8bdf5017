"""The WalletConnect flow: pairing by QR code or deep link, then the account connected as for
any connector (behaviour.md §1 connector `walletConnect`).

A pairing starts whenever a view that shows one is on top (ConnectingWalletConnect, or the
wallet page of a directory wallet with a WalletConnect link) and none is in flight for it: the
runtime makes the `wc:` URI (`wc_pair`), then waits for the wallet's answer (`wc_approval`).
A timer fires shortly before the pairing expires and a fresh URI replaces it. Leaving the view
forgets the pairing (a late answer to it is ignored).

One-click sign-in (behaviour.md §7: WalletConnect authenticate for SIWX): when the host set up sign-in,
the engine first issues a nonce (`siwx.nonce`), then pairs with an authPayload built from the
same fields as every sign-in message (`slices/siwx.message_fields`); the runtime sends
wc_sessionAuthenticate beside the fallback proposal. A wallet that signs in answers with CACAOs
(checked by the runtime); the approval then carries the CACAO's message and signature, which the
engine verifies and stores as the sign-in (`siwx.verify`, as after personal_sign): connected and
signed in with one prompt. A wallet without it settles the proposal and signs in by personal_sign.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.cmds import CancelTimer, Cmd, Effect, StartTimer
from ..core.evolve import replace
from ..core.shape import On, Slice
from ..directory.domain import platform
from ..directory.domain.wallets import Wallet
from ..rules import limits as L
from ..rules.addresses import checksum, is_evm_address
from ..rules.caip import CaipError, parse_caip2, validate_evm_chain_id
from ..rules.rpc_errors import classify
from ..slices import clipboard, siwx
from ..slices.accounts import WalletInfo
from ..slices.connecting import Reattached
from ..slices.connectors import WALLET_CONNECT_ID
from ..slices.walletconnect import (
    CONNECTING_VIEW,
    EXPIRY_MARGIN_MS,
    EXPIRY_TIMER,
    PressedCopyWcLink,
    PressedOpenWalletApp,
    PressedOpenWcLink,
    PressedRetryWalletConnect,
    WalletAppOpened,
    WcApprovalAnswered,
    WcLinkCopied,
    WcLinkOpened,
    WcNonceFetched,
    WcPairingCreated,
    WcPairingExpired,
    WcState,
)
from ..walletconnect.domain.auth import build_payload
from ..walletconnect.domain.errors import AUTH_REFUSED, SESSION_SETTLEMENT_FAILED
from ..walletconnect.domain.proposal import EIP155_METHODS
from .connect import NAMESPACE, connected
from .walletconnect_links import pairing_links, pairs_with, wallet_link
from ..services.domain.handles import SIWX_NONCE

if TYPE_CHECKING:
    from ..slices.model import Model, Step

KIND = "walletconnect"
PAIR_TIMEOUT_MS = 30_000
APPROVAL_GRACE_MS = 60_000
MAX_URI = 2048
MAX_SIGNED_MESSAGE = L.WC_AUTH_MESSAGE_CHARS  # a one-click sign-in's message (EIP-4361 with a ReCap)
MAX_SIGNATURE = L.WC_AUTH_SIGNATURE_CHARS
WALLET_PAGE = "WalletPage"
DECLINED = "Connection declined"
LINK_COPIED = "Link copied"
EXPIRED_CODE = 8000


def _wanted(model: Model) -> str:
    """The route a pairing should be in flight for ("" when none)."""
    if model.connectors.get(WALLET_CONNECT_ID) is None or not model.modal.open:
        return ""
    if model.accounts.get(NAMESPACE).status != "disconnected":
        return ""  # connected (signing in, say): nothing to pair
    view, param = model.router.view, model.router.param
    if view == CONNECTING_VIEW:
        return f"{view}|{param}"
    if view == WALLET_PAGE:
        wallet = model.directory.selected
        if wallet is not None and wallet.id == param and pairs_with(model, wallet):
            return f"{view}|{param}"
    return ""


def _networks(model: Model) -> list[str]:
    """The host's EVM networks, the one chosen before connecting first: the wallet's session
    starts on the first (issue 39 item 7)."""
    ids = [n.id for n in model.networks.known if n.namespace == NAMESPACE]
    chosen = model.networks.chosen
    return [chosen, *(i for i in ids if i != chosen)] if chosen in ids else ids


def reuses_pairing(model: Model) -> bool:
    """behaviour.md §4: on Telegram or iOS Safari a pending pairing is reused until its expiry (a new
    URI would not reach the wallet app the visitor already switched to)."""
    env = model.env
    return env.telegram or (env.safari and env.platform == "ios")


def _reusable(model: Model, now: int) -> bool:
    state = model.walletconnect
    return (reuses_pairing(model) and bool(state.uri) and state.error is None
            and state.expiry * 1000 - now > EXPIRY_MARGIN_MS)


def start(model: Model, route: str, now: int | None = None) -> Step:
    """A fresh pairing for `route`: the runtime makes the URI (`wc_pair`); on Telegram or iOS
    Safari a pending one is shown again instead, until its expiry."""
    state = model.walletconnect
    if now is not None and _reusable(model, now):
        model = replace(model, walletconnect=replace(state, route=route, deep_linked=False))
        timer = StartTimer(EXPIRY_TIMER, state.expiry * 1000 - now - EXPIRY_MARGIN_MS, WcPairingExpired(state.attempt))
        model, opened = open_deep_link(model)
        return model, [timer, *opened]
    attempt = model.walletconnect.attempt + 1
    linked = state.deep_linked and state.route == route  # a fresh URI does not reopen the wallet app
    model = replace(model, walletconnect=WcState(attempt=attempt, route=route, deep_linked=linked))
    if model.siwx.enabled and model.options.siwx is not None:  # one-click sign-in: the nonce first
        call = SIWX_NONCE.call(SIWX_NONCE.args(session_key=model.session_id), WcNonceFetched, str(attempt))
        return model, [CancelTimer(EXPIRY_TIMER), call]
    model, effect = _pair(model, str(attempt))
    return model, [CancelTimer(EXPIRY_TIMER), effect]


def _pair(model: Model, key: str, auth: dict[str, object] | None = None) -> tuple[Model, Effect]:
    """The runtime makes the pairing (`wc_pair`), with the one-click sign-in request when `auth`."""
    model, eid = model.next_id("e")
    meta = model.options.metadata
    metadata = {"name": meta.name, "description": meta.description, "url": meta.url or model.origin,
                "icons": list(meta.icons)}
    req: dict[str, object] = {"method": "wc_pair", "networks": _networks(model), "metadata": metadata}
    if auth is not None:
        req["auth"] = auth
    return model, Effect(eid, KIND, req, WcPairingCreated, key=key, timeout_ms=PAIR_TIMEOUT_MS)


def auth_payload(model: Model, nonce: str, now: int) -> dict[str, object] | None:
    """The authPayload of a one-click sign-in: the fields of every sign-in message (domain, URI,
    statement, lifetime, resources), the engine's nonce, the host's eip155 networks, issued now,
    with a ReCap for the methods the session proposes. None without an eip155 network."""
    chains = _networks(model)
    if not chains:
        return None
    fields = siwx.message_fields(model)
    payload = build_payload(chains=chains, methods=EIP155_METHODS, domain=fields.domain, aud=fields.uri,
                            nonce=nonce, now_ms=now, statement=fields.statement, ttl_ms=fields.ttl_ms,
                            resources=fields.resources or ())
    return payload.model_dump(exclude_none=True)


def on_nonce(model: Model, msg: WcNonceFetched, now: int) -> Step:
    """The nonce of a one-click sign-in came back: pair with the authenticate request (without
    it, should the nonce fail: the wallet then signs in by personal_sign after connecting)."""
    state = model.walletconnect
    if not _current(model, msg.key) or state.uri or state.error is not None:
        return model, []
    auth = auth_payload(model, msg.result.nonce, now) if msg.result is not None else None
    model, effect = _pair(model, msg.key, auth)
    return model, [effect]


def observe(before: Model, after: Model, now: int) -> Step:
    wanted = _wanted(after)
    if wanted == after.walletconnect.route:
        return after, []
    if not wanted:
        state = after.walletconnect
        kept = replace(state, route="") if _reusable(after, now) else WcState(attempt=state.attempt)
        return replace(after, walletconnect=kept), [CancelTimer(EXPIRY_TIMER)]
    return start(after, wanted, now)


def _current(model: Model, key: str) -> bool:
    state = model.walletconnect
    return bool(state.route) and key == str(state.attempt)


def on_pairing_created(model: Model, msg: WcPairingCreated, now: int) -> Step:
    if not _current(model, msg.key):
        return model, []
    state = model.walletconnect
    result = msg.result if isinstance(msg.result, dict) else {}
    uri, expiry = result.get("uri"), result.get("expiry")
    if not msg.ok or not isinstance(uri, str) or not uri.startswith("wc:") or len(uri) > MAX_URI \
            or not isinstance(expiry, int) or isinstance(expiry, bool):
        text = msg.error_message if msg.failure is not None and msg.failure.kind != "timeout" else "Connection failed"
        return replace(model, walletconnect=replace(state, error=text)), []
    model = replace(model, walletconnect=replace(state, uri=uri, expiry=expiry))
    left_ms = max(0, expiry * 1000 - now)
    model, eid = model.next_id("e")
    approval = Effect(eid, KIND, {"method": "wc_approval"}, WcApprovalAnswered, key=msg.key,
                      timeout_ms=left_ms + APPROVAL_GRACE_MS)
    timer = StartTimer(EXPIRY_TIMER, max(0, left_ms - EXPIRY_MARGIN_MS), WcPairingExpired(state.attempt))
    model, opened = open_deep_link(model)
    return model, [approval, timer, *opened]


def open_deep_link(model: Model) -> tuple[Model, list[Cmd]]:
    """On a phone, the wallet page opens the wallet's deep link with the pairing URI as soon as the
    URI exists, once per visit (AppKit's ConnectingWcMobile: onHandleURI → onConnectMobile); the QR
    code is for computers."""
    state = model.walletconnect
    wallet = model.directory.selected
    if not model.env.mobile or state.deep_linked or model.router.view != WALLET_PAGE or wallet is None:
        return model, []
    model, effect = _open_link(model, wallet, "mobile")
    if effect is None:
        return model, []
    return replace(model, walletconnect=replace(model.walletconnect, deep_linked=True)), [effect]


def _open_link(model: Model, wallet: Wallet, kind: str) -> tuple[Model, Effect | None]:
    # the link of the kind pressed: the linked phone's "Open" (its screen draws the phone's
    # link, views/screens.py) opens the phone's deep link though the session is a computer's
    url = dict(pairing_links(model, wallet, mobile=kind == "mobile")).get(kind)
    if url is None or not model.walletconnect.uri:
        return model, None
    # AppKit opens a phone wallet's link in this tab (`_self`); Telegram only follows `_blank`
    target = ("_blank" if model.env.telegram else "_self") if kind == "mobile" else platform.link_target(url)
    model, eid = model.next_id("e")
    return model, Effect(eid, "open_url", {"url": url, "target": target}, WcLinkOpened, key=kind, timeout_ms=5000)


def on_reattached(model: Model, msg: Reattached, now: int) -> Step:
    """A socket came back (a reload, or an engine restart that lost the runtime's waiting): the
    pairing in flight is waited on again (the runtime reads it back from its store)."""
    state = model.walletconnect
    if not state.route or not state.uri or state.error is not None:
        return model, []
    model, eid = model.next_id("e")
    left_ms = max(0, state.expiry * 1000 - now)
    return model, [Effect(eid, KIND, {"method": "wc_approval"}, WcApprovalAnswered, key=str(state.attempt),
                          timeout_ms=left_ms + APPROVAL_GRACE_MS)]


def on_pairing_expired(model: Model, msg: WcPairingExpired, now: int) -> Step:
    state = model.walletconnect
    if msg.attempt != state.attempt or not state.route or state.error is not None:
        return model, []
    return start(model, state.route)  # a fresh URI


def on_retry(model: Model, msg: PressedRetryWalletConnect, now: int) -> Step:
    route = _wanted(model)
    if not route:
        return model, []
    # a retry on a phone opens the wallet again with the fresh URI (AppKit's onTryAgain)
    model = replace(model, walletconnect=replace(model.walletconnect, deep_linked=False))
    return start(model, route)


def _approved(result: object) -> tuple[str, str, WalletInfo] | None:
    """(address, CAIP-2 chain, wallet info) from the runtime's `{accounts, chain, peer}`."""
    if not isinstance(result, dict):
        return None
    accounts, chain, peer = result.get("accounts"), result.get("chain"), result.get("peer")
    if not isinstance(accounts, list) or not accounts or not isinstance(accounts[0], str) \
            or not is_evm_address(accounts[0]) or not isinstance(chain, str):
        return None
    try:
        caip = parse_caip2(chain)
        validate_evm_chain_id(int(caip.reference))
    except (CaipError, ValueError):
        return None
    peer = peer if isinstance(peer, dict) else {}
    name, icon, url = (str(peer.get(k) or "")[:256] for k in ("name", "icon", "url"))
    info = WalletInfo(name=name or "WalletConnect", icon=icon if icon.startswith("https://") else "",
                      type="WALLET_CONNECT", identifier=url)
    return checksum(accounts[0]), str(caip), info


def on_approval(model: Model, msg: WcApprovalAnswered, now: int) -> Step:
    if msg.key != str(model.walletconnect.attempt) or model.accounts.get(NAMESPACE).status == "connected":
        return model, []  # another pairing's, or a second answer to this one
    state = model.walletconnect
    if not msg.ok:
        if (msg.failure is not None and msg.failure.kind == "timeout") or msg.error_code == EXPIRED_CODE or not state.route:
            return model, []  # the pairing expired: the expiry timer brings a fresh URI
        error = classify(msg.error_code, msg.error_message)
        text = DECLINED if error.user_rejected else AUTH_REFUSED if msg.error_code == SESSION_SETTLEMENT_FAILED \
            else (error.message or "Connection failed")
        return replace(model, walletconnect=replace(state, error=text)), [CancelTimer(EXPIRY_TIMER)]
    approved = _approved(msg.result)
    if approved is None:
        return replace(model, walletconnect=replace(state, error="Connection failed")), [CancelTimer(EXPIRY_TIMER)]
    address, chain, info = approved
    info = replace(info, link=_paired_link(model))
    model = replace(model, walletconnect=WcState(attempt=state.attempt))
    signed = _signed_in(msg.result) if model.siwx.enabled else None
    if signed is not None:  # one-click sign-in: no session lookup, no personal_sign
        model = replace(model, siwx=replace(model.siwx, signing=True, message=signed[0]))
    model, cmds = connected(model, WALLET_CONNECT_ID, address, chain, now, fresh=True)
    account = model.accounts.get(NAMESPACE)
    model = replace(model, accounts=model.accounts.with_account(
        NAMESPACE, replace(account, connected_wallet_info=info)))
    if signed is not None:
        if siwx.signing_account(model) is None:  # an unsupported network: nothing to sign in on
            model = replace(model, siwx=replace(model.siwx, signing=False, message=None))
        else:
            cmds = [*cmds, siwx.verify_call(model, signed[1])]
    return model, [CancelTimer(EXPIRY_TIMER), *cmds]


def _paired_link(model: Model) -> str:
    """The deep link of the wallet this phone paired with by it (its page), "" otherwise."""
    wallet = model.directory.selected
    if not model.env.mobile or model.router.view != WALLET_PAGE or wallet is None:
        return ""
    return wallet_link(wallet.mobile_link) or ""


def on_open_wallet_app(model: Model, msg: PressedOpenWalletApp, now: int) -> Step:
    """The wallet of this WalletConnect session opened on this phone, to approve what it was asked."""
    account = model.accounts.get(model.networks.active_namespace or NAMESPACE)
    info = account.connected_wallet_info
    if account.connector_id != WALLET_CONNECT_ID or info is None or not info.link or not model.env.mobile:
        return model, []
    model, eid = model.next_id("e")
    target = "_blank" if model.env.telegram else "_self"
    return model, [Effect(eid, "open_url", {"url": info.link, "target": target}, WalletAppOpened, timeout_ms=5000)]


def on_wallet_app_opened(model: Model, msg: WalletAppOpened, now: int) -> Step:
    return model, []  # the wallet's answer comes over the relay


def _signed_in(result: object) -> tuple[str, str] | None:
    """(message, signature) of a one-click sign-in in the runtime's answer, if it has one."""
    signed = result.get("siwx") if isinstance(result, dict) else None
    if not isinstance(signed, dict):
        return None
    message, signature = signed.get("message"), signed.get("signature")
    if not isinstance(message, str) or not isinstance(signature, str) \
            or len(message) > MAX_SIGNED_MESSAGE or len(signature) > MAX_SIGNATURE:
        return None
    return message, signature


def on_copy(model: Model, msg: PressedCopyWcLink, now: int) -> Step:
    uri = model.walletconnect.uri
    if not uri:
        return model, []
    return clipboard.copy(model, uri, WcLinkCopied)


def on_copied(model: Model, msg: WcLinkCopied, now: int) -> Step:
    return clipboard.copied(model, msg.ok, LINK_COPIED)


def on_open(model: Model, msg: PressedOpenWcLink, now: int) -> Step:
    wallet = model.directory.selected
    if model.router.view != WALLET_PAGE or wallet is None or not model.walletconnect.uri:
        return model, []
    model, effect = _open_link(model, wallet, msg.kind)
    return model, [effect] if effect is not None else []


def on_opened(model: Model, msg: WcLinkOpened, now: int) -> Step:
    return model, []  # the wallet app opened (or not): its answer comes over the relay


HANDLERS = (
    On(WcNonceFetched, on_nonce),
    On(WcPairingCreated, on_pairing_created),
    On(WcPairingExpired, on_pairing_expired),
    On(WcApprovalAnswered, on_approval),
    On(PressedRetryWalletConnect, on_retry),
    On(PressedCopyWcLink, on_copy),
    On(WcLinkCopied, on_copied),
    On(PressedOpenWcLink, on_open),
    On(WcLinkOpened, on_opened),
    On(PressedOpenWalletApp, on_open_wallet_app),
    On(WalletAppOpened, on_wallet_app_opened),
)

SLICE = Slice("walletconnect", HANDLERS, observe=observe)

__all__ = ["SLICE", "pairing_links", "pairs_with", "start"]
