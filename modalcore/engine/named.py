"""Messages by name: how a recording, a saved session (its timers and pending effects) and a
message routed to another worker write a message and read it back.

Inside a process a settled call or effect is addressed by a typed reference (`ReplyTo`,
`EffectTo`: the reply's class and key). Written down, the reference is the name string
`"<reply class name>|<key>"` (the "purpose"), as recordings have always stored it, so old
recordings and saved sessions read back unchanged; recordings made before results were typed
name the purpose instead of the reply (`LEGACY_PURPOSES`). A name that names no reply of the
session's table reads as `UnknownReply`/`UnknownEffectReply`, which no slice handles (`update`
logs it and changes nothing). This is the only module that turns a reference into a name and back.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..core.cmds import CallSettled, EffectReply, EffectSettled, EffectTo, Reply, ReplyTo
from ..core.msg import MessageTypes, Msg, msg_from_data, msg_to_data

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


@dataclass(frozen=True)
class UnknownReply(Reply):
    """A call result whose name names no reply this engine knows (no slice handles it)."""


@dataclass(frozen=True)
class UnknownEffectReply(EffectReply):
    """An effect answer whose name names no reply this engine knows (no slice handles it)."""


def purpose(to: ReplyTo | EffectTo) -> str:
    """The name a reference is written as."""
    return f"{to.reply.__name__}|{to.key}"


def _named(name: str, types: MessageTypes) -> tuple[type[Msg] | None, str]:
    reply, _, key = name.partition("|")
    return types.get(LEGACY_PURPOSES.get(reply, reply)), key


def reply_to(name: str, types: MessageTypes) -> ReplyTo:
    cls, key = _named(name, types)
    return ReplyTo(cls if isinstance(cls, type) and issubclass(cls, Reply) else UnknownReply, key)


def effect_to(name: str, types: MessageTypes) -> EffectTo:
    cls, key = _named(name, types)
    return EffectTo(cls if isinstance(cls, type) and issubclass(cls, EffectReply) else UnknownEffectReply, key)


def to_data(msg: Msg) -> dict[str, Any]:
    """`{"type": class name, "data": fields}`, a settled call's or effect's reference as its name."""
    if isinstance(msg, CallSettled):
        return {"type": "CallSettled", "data": {
            "purpose": purpose(msg.to), "ok": msg.ok, "result": msg.result, "error": msg.error,
            "context": dict(msg.context), "failure": msg.failure}}
    if isinstance(msg, EffectSettled):
        return {"type": "EffectSettled", "data": {
            "eid": msg.eid, "purpose": purpose(msg.to), "ok": msg.ok, "result": msg.result,
            "error_code": msg.error_code, "error_message": msg.error_message, "timed_out": msg.timed_out}}
    return msg_to_data(msg)


def from_data(data: dict[str, Any], types: MessageTypes) -> Msg:
    """The message `to_data` wrote (or an older engine did); ValueError for an unknown type."""
    kind, fields = data["type"], data["data"]
    if kind == "CallSettled":
        return CallSettled(reply_to(str(fields["purpose"]), types), bool(fields["ok"]), fields.get("result"),
                           str(fields.get("error", "")), dict(fields.get("context") or {}), fields.get("failure"))
    if kind == "EffectSettled":
        return EffectSettled(str(fields["eid"]), effect_to(str(fields["purpose"]), types), bool(fields["ok"]),
                             fields.get("result"), int(fields.get("error_code", 0)),
                             str(fields.get("error_message", "")), bool(fields.get("timed_out", False)))
    return msg_from_data(data, types)
