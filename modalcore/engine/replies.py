"""The edge where a call's raw result becomes the typed message `update` sees.

The runtime (and a test, and a recording) hands the session `CallSettled(purpose, ok, result,
error, context)`: the raw envelope, JSON-able, what a recorded session stores. Its purpose names
the `Reply` subclass the call asked for (`"BalancesFetched|eip155:1:0x.."`). Here the result is
validated into that message; a result that does not validate becomes the same message with
`ok=False` and `error="invalid result"`, logged once (one line, no traceback). An effect's answer
(`EffectSettled`, from the browser) becomes the `EffectReply` the effect named the same way.
Nothing past this module sees a purpose string or an untyped result.
"""

from __future__ import annotations

import logging

from pydantic import TypeAdapter, ValidationError

from ..core.cmds import CallSettled, EffectReply, EffectSettled, FailureKind, Reply
from ..core.msg import MessageTypes, Msg
from ..rules.rpc_errors import is_user_rejection

log = logging.getLogger(__name__)

INVALID_RESULT = "invalid result"

# Recordings (and stored sessions) made before results were typed name the purpose, not the
# reply: they still replay (and resume).
LEGACY_PURPOSES: dict[str, str] = {
    "connect.accounts": "WalletAccountsAnswered",
    "connect.chain": "WalletChainAnswered",
    "resync.accounts": "ResyncAccountsAnswered",
    "resync.chain": "ResyncChainAnswered",
    "disconnect": "PermissionsRevokeAnswered",
    "clipboard": "AddressCopyAnswered",
    "siwx.sign": "SiwxMessageSigned",
    "switch": "ChainSwitchAnswered",
    "add-chain": "ChainAddAnswered",
    "send.tx": "TransactionAnswered",
    "directory.open": "WalletLinkOpened",
    "balances": "BalancesFetched",
    "history": "HistoryFetched",
    "nfts": "NftsFetched",
    "send.fee": "FeeEstimated",
    "send.max": "MaxFeeEstimated",
    "siwx.sessions": "SiwxSessionsFetched",
    "siwx.nonce": "SiwxNonceFetched",
    "siwx.verify": "SiwxVerified",
    "directory": "DirectoryFetched",
}

_ADAPTERS: dict[type[Reply], TypeAdapter[Reply]] = {}


def _adapter(cls: type[Reply]) -> TypeAdapter[Reply]:
    adapter = _ADAPTERS.get(cls)
    if adapter is None:
        adapter = _ADAPTERS[cls] = TypeAdapter(cls)
    return adapter


def _reply_named(purpose: str, types: MessageTypes) -> tuple[str, str, type[Msg] | None]:
    name, _, key = purpose.partition("|")
    name = LEGACY_PURPOSES.get(name, name)
    return name, key, types.get(name)


_EFFECT_ADAPTERS: dict[type[EffectReply], TypeAdapter[EffectReply]] = {}


def typed_effect(settled: EffectSettled, types: MessageTypes) -> Msg:
    """The typed `EffectReply` for an effect's answer; a result that is not a JSON value
    becomes the failure (-32603, "invalid result"), logged once. `types`: the session's table of
    message names (`Table.messages`)."""
    name, key, cls = _reply_named(settled.purpose, types)
    if not (isinstance(cls, type) and issubclass(cls, EffectReply)):
        return settled
    fields = {"eid": settled.eid, "key": key, "ok": settled.ok, "result": settled.result if settled.ok else None,
              "error_code": settled.error_code, "error_message": settled.error_message,
              "failure": effect_failure(settled)}
    adapter = _EFFECT_ADAPTERS.get(cls)
    if adapter is None:
        adapter = _EFFECT_ADAPTERS[cls] = TypeAdapter(cls)
    try:
        return adapter.validate_python(fields)
    except ValidationError as error:
        log.warning("%s: answer did not validate (%d errors)", name, error.error_count())
        return cls(eid=settled.eid, key=key, ok=False, error_code=-32603, error_message=INVALID_RESULT,
                   failure="invalid")


# PROTOCOL.md: the page's own wait for a wallet ran out (the wire keeps EIP-1193's shape)
PAGE_TIMEOUT = (-32603, "timeout")


def effect_failure(settled: EffectSettled) -> FailureKind | None:
    """What a failed effect was, decoded once here: the engine's own refusal (`not_sent`) or
    timer, the page's time-out, the visitor's no (EIP-1193 4001), else the wallet's error."""
    if settled.ok:
        return None
    if settled.failure is not None:
        return settled.failure
    if settled.timed_out or (settled.error_code, settled.error_message) == PAGE_TIMEOUT:
        return "timeout"
    return "rejected" if is_user_rejection(settled.error_code) else "upstream"


def typed(settled: CallSettled, types: MessageTypes) -> Msg:
    """The typed `Reply` for `settled`; a purpose that names no Reply is left as it is (the
    message is then logged by `update` as handled by no slice)."""
    name, key, named = _reply_named(settled.purpose, types)
    cls = named if isinstance(named, type) and issubclass(named, Reply) else None
    if cls is None:
        return settled
    context = {str(k): str(v) for k, v in settled.context.items()}
    if not settled.ok:
        return cls(key=key, ok=False, error=settled.error or "failed", context=context,
                   failure=settled.failure or "unknown")
    data = {"key": key, "ok": True, "result": settled.result, "error": "", "context": context}
    try:
        reply = _adapter(cls).validate_python(data)
    except ValidationError as error:
        first = error.errors()[0]
        log.warning("%s: result did not validate (%d errors; first at %s: %s)", name,
                    error.error_count(), ".".join(str(p) for p in first["loc"]), first["msg"])
        return cls(key=key, ok=False, error=INVALID_RESULT, context=context, failure="invalid")
    if getattr(reply, "result", None) is None:
        log.warning("%s: result is empty", name)
        return cls(key=key, ok=False, error=INVALID_RESULT, context=context, failure="invalid")
    return reply
