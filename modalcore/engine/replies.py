"""The edge where a call's raw result becomes the typed message `update` sees.

The runtime (and a test, and a recording) hands the session `CallSettled(purpose, ok, result,
error, context)`: the raw envelope, JSON-able, what a recorded session stores. Its purpose names
the `Reply` subclass the call asked for (`"BalancesFetched|eip155:1:0x.."`). Here the result is
validated into that message; a result that does not validate becomes the same message with
`ok=False` and `error="invalid result"`, logged once (one line, no traceback). Nothing past this
module sees a purpose string or an untyped result.
"""

from __future__ import annotations

import logging

from pydantic import TypeAdapter, ValidationError

from ..core.cmds import CallSettled, Reply
from ..core.msg import Msg

log = logging.getLogger(__name__)

INVALID_RESULT = "invalid result"

# Recordings made before results were typed name the purpose, not the reply: they still replay.
LEGACY_PURPOSES: dict[str, str] = {
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


def reply_class(name: str) -> type[Reply] | None:
    cls = Msg.registry.get(name)
    return cls if isinstance(cls, type) and issubclass(cls, Reply) else None


def typed(settled: CallSettled) -> Msg:
    """The typed `Reply` for `settled`; a purpose that names no Reply is left as it is (the
    message is then logged by `update` as handled by no slice)."""
    name, _, key = settled.purpose.partition("|")
    name = LEGACY_PURPOSES.get(name, name)
    cls = reply_class(name)
    if cls is None:
        return settled
    context = {str(k): str(v) for k, v in settled.context.items()}
    if not settled.ok:
        return cls(key=key, ok=False, error=settled.error or "failed", context=context)
    data = {"key": key, "ok": True, "result": settled.result, "error": "", "context": context}
    try:
        reply = _adapter(cls).validate_python(data)
    except ValidationError as error:
        first = error.errors()[0]
        log.warning("%s: result did not validate (%d errors; first at %s: %s)", name,
                    error.error_count(), ".".join(str(p) for p in first["loc"]), first["msg"])
        return cls(key=key, ok=False, error=INVALID_RESULT, context=context)
    if getattr(reply, "result", None) is None:
        log.warning("%s: result is empty", name)
        return cls(key=key, ok=False, error=INVALID_RESULT, context=context)
    return reply
