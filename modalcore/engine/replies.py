"""The edge where a call's raw result becomes the typed message `update` sees.

The runtime (and a test, and a recording) hands the session `CallSettled(to, ok, result, error,
context)`: the raw envelope, JSON-able, what a recorded session stores, addressed `to` the
`Reply` subclass the call asked for and its key (a typed reference, `core/cmds.ReplyTo`). Here
the result is validated into that message; a result that does not validate becomes the same
message with the failure ("invalid", "invalid result"), logged once (one line, no traceback). An
effect's answer (`EffectSettled`, from the browser) becomes the `EffectReply` it is addressed to
the same way. Nothing past this module sees an untyped result.
"""

from __future__ import annotations

import logging

from pydantic import TypeAdapter, ValidationError

from ..core.cmds import CallSettled, EffectReply, EffectSettled, Failure, FailureKind, Reply
from ..rules.rpc_errors import is_user_rejection

log = logging.getLogger(__name__)

INVALID_RESULT = "invalid result"

_ADAPTERS: dict[type[Reply], TypeAdapter[Reply]] = {}


def _adapter(cls: type[Reply]) -> TypeAdapter[Reply]:
    adapter = _ADAPTERS.get(cls)
    if adapter is None:
        adapter = _ADAPTERS[cls] = TypeAdapter(cls)
    return adapter


_EFFECT_ADAPTERS: dict[type[EffectReply], TypeAdapter[EffectReply]] = {}


def typed_effect(settled: EffectSettled) -> EffectReply:
    """The typed `EffectReply` for an effect's answer; a result that is not a JSON value
    becomes the failure (-32603, "invalid result"), logged once."""
    cls, key = settled.to.reply, settled.to.key
    fields = {"eid": settled.eid, "key": key, "ok": settled.ok, "result": settled.result if settled.ok else None,
              "error_code": settled.error_code, "error_message": settled.error_message,
              "failure": effect_failure(settled)}
    adapter = _EFFECT_ADAPTERS.get(cls)
    if adapter is None:
        adapter = _EFFECT_ADAPTERS[cls] = TypeAdapter(cls)
    try:
        return adapter.validate_python(fields)
    except ValidationError as error:
        log.warning("%s: answer did not validate (%d errors)", cls.__name__, error.error_count())
        return cls(eid=settled.eid, key=key, ok=False, error_code=-32603, error_message=INVALID_RESULT,
                   failure=Failure("invalid", INVALID_RESULT))


# PROTOCOL.md: the page's own wait for a wallet ran out (the wire keeps EIP-1193's shape)
PAGE_TIMEOUT = (-32603, "timeout")


def effect_failure(settled: EffectSettled) -> Failure | None:
    """What a failed effect was, decoded once here: the engine's own refusal (`not_sent`) or
    timer, the page's time-out, the visitor's no (EIP-1193 4001), else the wallet's error; the
    wallet's message is kept to show."""
    if settled.ok:
        return None
    return Failure(_effect_failure_kind(settled), settled.error_message)


def _effect_failure_kind(settled: EffectSettled) -> FailureKind:
    if settled.failure is not None:
        return settled.failure
    if settled.timed_out or (settled.error_code, settled.error_message) == PAGE_TIMEOUT:
        return "timeout"
    return "rejected" if is_user_rejection(settled.error_code) else "upstream"


def typed(settled: CallSettled) -> Reply:
    """The typed `Reply` for `settled`."""
    cls, key = settled.to.reply, settled.to.key
    context = {str(k): str(v) for k, v in settled.context.items()}
    if not settled.ok:  # a recording made before failures had kinds: unknown
        return cls(key=key, failure=Failure(settled.failure or "unknown", settled.error or "failed"), context=context)
    data = {"key": key, "result": settled.result, "context": context}
    try:
        reply = _adapter(cls).validate_python(data)
    except ValidationError as error:
        first = error.errors()[0]
        log.warning("%s: result did not validate (%d errors; first at %s: %s)", cls.__name__,
                    error.error_count(), ".".join(str(p) for p in first["loc"]), first["msg"])
        return cls(key=key, failure=Failure("invalid", INVALID_RESULT), context=context)
    if getattr(reply, "result", None) is None:
        log.warning("%s: result is empty", cls.__name__)
        return cls(key=key, failure=Failure("invalid", INVALID_RESULT), context=context)
    return reply
