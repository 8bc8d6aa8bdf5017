"""The session doctor's classifier (issue 44): why a connect, sign-in, send or swap failed or was
abandoned, a pure function of one step (the model before, the typed message `update` applied, the
model after). It routes on message types and typed failures (`core/cmds.Failure.kind`, a typed
result's status) and on the state a step enters, never on a wallet's or a service's text; a
recording replays into the same diagnoses (docs/features/session-doctor.md)."""

from __future__ import annotations

from ..core.cmds import EffectReply, Failure, Reply
from ..core.evolve import replace
from ..core.msg import Msg
from ..flows.connect import WalletAccountsAnswered, WalletChainAnswered
from ..flows.solana_connect import SolanaAccountsAnswered
from ..slices.doctor import MAX_WALLET, Cause, Diagnosis, Flow
from ..slices.embedded import EmailCodeRequested
from ..slices.model import Model
from ..slices.send_fee import FeeEstimated
from ..slices.send_tx import TransactionAnswered
from ..slices.siwx import SiwxMessageSigned, SiwxNonceFetched, SiwxVerified
from ..slices.swap_quote import SwapQuoted
from ..slices.swap_tx import SwapApproveAnswered, SwapTxAnswered
from ..slices.walletconnect import WcApprovalAnswered, WcPairingCreated

# the messages whose failure ends (or stops) a flow the doctor follows
FLOW_OF: dict[type[Msg], Flow] = {
    WalletAccountsAnswered: "connect", WalletChainAnswered: "connect",
    SolanaAccountsAnswered: "connect", WcPairingCreated: "connect", WcApprovalAnswered: "connect",
    SiwxNonceFetched: "sign_in", SiwxMessageSigned: "sign_in", SiwxVerified: "sign_in",
    EmailCodeRequested: "sign_in",
    FeeEstimated: "send", TransactionAnswered: "send",
    SwapQuoted: "swap", SwapApproveAnswered: "swap", SwapTxAnswered: "swap",
}
# a service call (not a wallet request) that failed upstream: the chain or the relay behind it
UPSTREAM_OF: dict[type[Msg], Cause] = {WcPairingCreated: Cause.RELAY_UNREACHABLE}
# EIP-1193's "Disconnected": what the page answers for a wallet it has no provider of (a wallet
# the visitor picked that is not, or no longer, in this browser: renderer/src/bridge.ts)
DISCONNECTED = 4900


def _wallet_cause(failure: Failure) -> Cause:
    return {"timeout": Cause.WALLET_TIMED_OUT, "rejected": Cause.REQUEST_REJECTED,
            "upstream": Cause.WALLET_ERROR, "invalid": Cause.INVALID_ANSWER,
            "not_sent": Cause.STORE_UNAVAILABLE}.get(failure.kind, Cause.UNKNOWN)


def _service_cause(msg: Msg, failure: Failure) -> Cause:
    if failure.kind in ("upstream", "timeout"):
        return UPSTREAM_OF.get(type(msg), Cause.CHAIN_UNREACHABLE)
    return {"rejected": Cause.SERVICE_REFUSED, "invalid": Cause.INVALID_ANSWER,
            "not_sent": Cause.STORE_UNAVAILABLE}.get(failure.kind, Cause.UNKNOWN)


def _failure(msg: Msg) -> Failure | None:
    if isinstance(msg, EffectReply):
        return msg.failure if not msg.ok else None
    if isinstance(msg, Reply):
        return msg.failure
    return None


def _wallet(before: Model, after: Model) -> str:
    connecting = before.connection.connecting or after.connection.connecting
    if connecting:
        return connecting[:MAX_WALLET]
    if before.walletconnect.route:  # "<view>|<param>": the WalletConnect wallet's page
        return (before.walletconnect.route.partition("|")[2] or "walletConnect")[:MAX_WALLET]
    account = before.accounts.get(before.networks.active_namespace)
    return (account.connector_id or "")[:MAX_WALLET]


def _cause(before: Model, msg: Msg, after: Model) -> tuple[Flow, Cause] | None:
    flow = FLOW_OF.get(type(msg))
    if flow is not None:
        failure = _failure(msg)
        if failure is not None:
            if isinstance(msg, EffectReply) and flow == "connect" and msg.error_code == DISCONNECTED \
                    and type(msg) not in UPSTREAM_OF and failure.kind == "upstream":
                return flow, Cause.WALLET_NOT_INSTALLED  # the page has no provider for it
            if isinstance(msg, EffectReply) and type(msg) not in UPSTREAM_OF:
                return flow, _wallet_cause(failure)
            return flow, _service_cause(msg, failure)
        if isinstance(msg, EmailCodeRequested) and msg.result is not None \
                and msg.result.status == "over_budget":
            return flow, Cause.BUDGET_SPENT
        if flow == "connect" and after.connection.error is not None and before.connection.error is None:
            return flow, Cause.INVALID_ANSWER  # answered, but not with an account or a chain id
    if after.router.view == "UnsupportedChain" and before.router.view != "UnsupportedChain":
        return "connect", Cause.WRONG_NETWORK
    asked = before.connection.connecting or before.walletconnect.route
    if before.modal.open and not after.modal.open and asked \
            and after.accounts.get(after.networks.active_namespace).status != "connected":
        # closed while a wallet was still asked: a phone that opened the wallet's app never
        # came back with an answer, or the visitor gave up waiting
        if before.walletconnect.deep_linked:
            return "connect", Cause.DEEP_LINK_NOT_FOLLOWED
        return "connect", Cause.ABANDONED
    return None


def diagnose(before: Model, msg: Msg, after: Model, now: int) -> Diagnosis | None:
    """The diagnosis of one step, or None when nothing failed. A message the session ignored
    (an answer to a request it no longer waits for: the model did not change) is no failure."""
    if after is before:
        return None
    found = _cause(before, msg, after)
    if found is None:
        return None
    flow, cause = found
    return Diagnosis(flow, cause, _wallet(before, after), now)


def with_diagnosis(before: Model, msg: Msg, after: Model, now: int) -> Model:
    """`after` with this step's diagnosis kept (the last one; `count` counts them)."""
    found = diagnose(before, msg, after, now)
    if found is None:
        return after
    return replace(after, doctor=replace(after.doctor, last=found, count=after.doctor.count + 1))
