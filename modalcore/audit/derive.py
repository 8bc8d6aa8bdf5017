"""Which audit records one processed input yields: pure, from the model before and after, the
input and the frames that went out (a `Step`)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..core.cmds import Call, CallSettled, EffectSettled
from ..embedded.approval_tree import call_digest
from ..services.domain.handles import EMBEDDED_SIGN, SignArgs
from ..slices.embedded import ApprovalDecided, EmbeddedSigned
from ..slices.model import Model
from ..ports.observe import Step
from ..slices.accounts import AccountState, holds_connection
from ..slices.connectors import ConnectorsState
from ..wire.frames import EffectResult
from ..wire.serverframes import EffectCancel, EffectRequest, ServerFrame
from ..ledger.chain import canonical, digest

SIGN_METHODS = frozenset({
    "personal_sign", "eth_sign", "eth_signTypedData", "eth_signTypedData_v3",
    "eth_signTypedData_v4", "solana_signMessage", "solana_signTransaction",
})
TX_METHODS = frozenset({"eth_sendTransaction", "wallet_sendCalls", "solana_signAndSendTransaction"})
# behaviour.md §8: 4001 is the user's rejection, and 5000 and 5700 to 5760 are treated as one
REJECTED_CODES = frozenset({4001, 5000, *range(5700, 5761)})


@dataclass(frozen=True)
class Record:
    kind: str
    data: dict[str, object]


@dataclass(frozen=True)
class Pending:
    """A signature or transaction request awaiting its outcome."""

    kind: str  # "signature" or "transaction"
    method: str
    connector: str


def _chain(account: AccountState) -> str:
    caip = account.caip_address or ""
    return caip.rsplit(":", 1)[0] if caip.count(":") >= 2 else ""


def _accounts(model: Model) -> dict[str, AccountState]:
    return dict(model.accounts.by_namespace)


def connection_records(before: Model, after: Model) -> list[Record]:
    records: list[Record] = []
    if before.accounts is after.accounts and before.siwx is after.siwx:
        return records  # the same (immutable) slices: nothing connected, left or signed in
    old, new = _accounts(before), _accounts(after)
    for namespace in sorted(set(old) | set(new)):
        was, now = old.get(namespace, AccountState()), new.get(namespace, AccountState())
        # a reload's re-sync holds the connection: connected -> connecting -> connected (the
        # same account, or the wallet's answer changed it) records nothing but that change
        was_on, now_on = holds_connection(was), holds_connection(now)
        if now.status == "connecting":
            continue  # the wallet has not answered yet: nothing happened the visitor did
        if now_on and (not was_on or was.address != now.address
                       or was.connector_id != now.connector_id):
            if was_on:
                records.append(Record("disconnect", _who(was)))
            records.append(Record("connect", {**_who(now), "origin": after.origin}))
        elif was_on and not now_on:
            records.append(Record("disconnect", _who(was)))
        elif was_on and now_on and _chain(was) != _chain(now):
            records.append(Record("chain_switch", {**_who(now), "from": _chain(was)}))
    if after.siwx.has_session and not before.siwx.has_session:
        records.append(Record("sign_in", {"address": after.siwx.session_address or ""}))
    elif before.siwx.has_session and not after.siwx.has_session:
        records.append(Record("sign_out", {"address": before.siwx.session_address or ""}))
    return records


def _who(account: AccountState) -> dict[str, object]:
    return {"connector": account.connector_id or "", "address": account.address or "",
            "chain": _chain(account)}


def connector_name(connectors: ConnectorsState, ref: str) -> str:
    """The connector's stable id (the wallet's rdns when it has one), as `connect` entries name
    it, for the page's per-load EIP-6963 uuid a browser request is addressed to."""
    return next((c.id for c in connectors.items if c.ref == ref), ref)


def request_records(frames: Sequence[ServerFrame],
                    connectors: ConnectorsState) -> tuple[list[Record], dict[str, Pending]]:
    """Signature and transaction requests the session asked the browser to make."""
    records: list[Record] = []
    pending: dict[str, Pending] = {}
    for frame in frames:
        if not isinstance(frame, EffectRequest) or frame.kind != "eip1193":
            continue
        req = frame.req
        method = str(req.get("method", ""))
        kind = ("signature" if method in SIGN_METHODS
                else "transaction" if method in TX_METHODS else "")
        if not kind:
            continue
        eid = frame.eid
        connector = connector_name(connectors, str(req.get("connector", "")))
        records.append(Record(f"{kind}_request", {
            "eid": eid, "method": method, "connector": connector,
            "request_hash": digest(canonical(req.get("params"))),
        }))
        pending[eid] = Pending(kind, method, connector)
    return records, pending


def outcome_record(step: Step, pending: Mapping[str, Pending]) -> tuple[str, Record] | None:
    """The outcome of a request this step settled (a wallet's answer or a time-out)."""
    cause = step.cause
    if isinstance(cause, EffectResult):
        eid, ok, result = cause.eid, cause.ok, cause.result
        code = cause.error.code if cause.error and not ok else 0
        message = cause.error.message if cause.error and not ok else ""
        if eid not in step.effects_before:
            return None  # cancelled, timed out or unknown: the session ignored it
    elif isinstance(cause, EffectSettled):
        eid, ok, result, code, message = (cause.eid, cause.ok, cause.result, cause.error_code,
                                          cause.error_message)
        if eid not in step.effects_before:
            return None
    else:
        return None
    request = pending.get(eid)
    if request is None:
        return None
    if ok:
        outcome = "approved"
    elif isinstance(cause, EffectSettled) and cause.timed_out:
        outcome = "timeout"
    elif code in REJECTED_CODES:
        outcome = "rejected"
    else:
        outcome = "failed"
    data: dict[str, object] = {"eid": eid, "method": request.method, "outcome": outcome}
    if ok:
        if request.kind == "transaction" and isinstance(result, str):
            data["tx_hash"] = result
        else:
            data["result_hash"] = digest(canonical(result))
    else:
        data["error_code"] = code
    return eid, Record(f"{request.kind}_result", data)


def cancelled(frames: Sequence[ServerFrame], pending: Mapping[str, Pending]) -> list[tuple[str, Record]]:
    out = []
    for frame in frames:
        if not isinstance(frame, EffectCancel):
            continue
        eid = frame.eid
        if eid in pending:
            request = pending[eid]
            out.append((eid, Record(f"{request.kind}_result",
                                    {"eid": eid, "method": request.method, "outcome": "cancelled"})))
    return out


EVIDENCE_KEYS = ("tree", "tree_hash", "digest", "nonce", "seen", "public_key", "signature")


def _executed(cmds: Sequence[object]) -> SignArgs | None:
    """The call the engine's signer was given in this step (`embedded.sign`)."""
    for cmd in cmds:
        if isinstance(cmd, Call) and cmd.service == EMBEDDED_SIGN and isinstance(cmd.args, SignArgs):
            return cmd.args
    return None


def approval_records(step: Step) -> list[Record]:
    """An Approve of the embedded wallet's frame that the session took (docs/features/
    approval-record.md): the tree the frame drew, its hash, the signature and key over it, and
    the digest of the call the engine then handed its signer; and that call's outcome."""
    cause = step.cause
    if isinstance(cause, ApprovalDecided) and cause.approve and cause.evidence:
        args = _executed(step.cmds)
        if args is None or args.request != cause.eid:
            return []  # not taken (already signing, another request): nothing was executed
        try:
            evidence = json.loads(cause.evidence)
        except ValueError:
            return []
        data = {key: str(evidence.get(key, "")) for key in EVIDENCE_KEYS}
        return [Record("approval", {"eid": cause.eid, "method": args.method, **data,
                                    "executed_digest": call_digest(args.method, args.params, args.chain)})]
    if (isinstance(cause, CallSettled) and cause.to.reply is EmbeddedSigned
            and step.before.embedded.request is not None and step.before.embedded.request.eid == cause.to.key
            and step.before.embedded.request.signing):
        out: dict[str, object] = {"eid": cause.to.key, "method": step.before.embedded.request.method,
                               "outcome": "executed" if cause.ok else "failed"}
        result = cause.result.get("result") if isinstance(cause.result, dict) else None
        if cause.ok and isinstance(result, str):
            out["result"] = result[:200]  # a transaction or UserOperation hash, or a signature
        return [Record("approval_result", out)]
    return []


def derive(step: Step, pending: Mapping[str, Pending]) -> tuple[list[Record], dict[str, Pending]]:
    """The records of one step, and the requests still pending after it."""
    still = dict(pending)
    records: list[Record] = []
    settled = outcome_record(step, still)
    if settled is not None:
        records.append(settled[1])
        still.pop(settled[0], None)
    for eid, record in cancelled(step.frames, still):
        records.append(record)
        still.pop(eid, None)
    records.extend(approval_records(step))
    records.extend(connection_records(step.before, step.after))
    asked, new = request_records(step.frames, step.after.connectors)
    records.extend(asked)
    still.update(new)
    return records, still
