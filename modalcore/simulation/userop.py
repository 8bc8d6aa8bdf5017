"""The outcome of a smart account's UserOperation (issue 43 item 1), pure: the balance changes
come from where they come for an EOA (the node's `eth_simulateV1` of the calls from the
account, or the call data), the fee and the revert check from the bundler's simulation of the
operation (`embedded.userop_check`: eth_estimateUserOperationGas through the EntryPoint), and
the note says so ("…; fee and revert check from the bundler", or that the bundler's check is
unavailable).

A sponsored operation costs the visitor nothing: its fee says so ("Network fee: Sponsored (you
pay 0 ETH)"), as the send view says "Sponsored". A revert or a refusal the bundler reports is
warned with its reason, and nothing is listed as changing (nothing would).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from .outcome import FEE_UNAVAILABLE, MAX_TEXT, REVERTS, Known, Outcome, fee_text

BundlerStatus = Literal["asked", "ok", "reverted", "refused", "failed"]
CHECKED = "fee and revert check from the bundler"
UNCHECKED = "the bundler's check is unavailable"
BUNDLER_REVERTS = "This transaction will fail: the bundler's simulation reverted ({reason})"
BUNDLER_REFUSES = "The bundler refuses this transaction ({reason})"
FEE_SPONSORED = "Network fee: Sponsored (you pay 0 {symbol})"
_PRINTABLE = frozenset(chr(c) for c in range(0x20, 0x7f))


@dataclass(frozen=True)
class BundlerCheck:
    """What the bundler said of the operation (`asked`: nothing yet)."""

    status: BundlerStatus = "asked"
    fee: str = ""  # the fee text ("≈ … ETH", sponsored, or FEE_UNAVAILABLE)
    reason: str = ""


def checked(status: Literal["ok", "reverted", "refused"], fee_wei: int, sponsored: bool, reason: str,
            known: Known) -> BundlerCheck:
    """The bundler's answer as the approval shows it."""
    if status != "ok":
        shown = "".join(c for c in reason if c in _PRINTABLE)[:MAX_TEXT] or "no reason given"
        return BundlerCheck(status, FEE_UNAVAILABLE, shown)
    fee = FEE_SPONSORED.format(symbol=known.native.symbol) if sponsored else fee_text(fee_wei, known)
    return BundlerCheck("ok", fee)


UNAVAILABLE_CHECK = BundlerCheck("failed", FEE_UNAVAILABLE)


def with_bundler(outcome: Outcome, check: BundlerCheck) -> Outcome:
    """`outcome` (the changes from the node or the call data) with the bundler's fee, its revert
    or refusal warned, and the note naming the bundler as the fee's source. A check still asked
    when the time is up is unavailable."""
    if check.status in ("asked", "failed"):
        return replace(outcome, fee=FEE_UNAVAILABLE, source=UNCHECKED)
    if check.status == "ok":
        return replace(outcome, fee=check.fee, source=CHECKED)
    text = BUNDLER_REVERTS if check.status == "reverted" else BUNDLER_REFUSES
    room = MAX_TEXT - len(text.format(reason=""))  # the reason is cut, the sentence kept whole
    warnings = (text.format(reason=check.reason[:room]), *(w for w in outcome.warnings if w != REVERTS))
    return replace(outcome, changes=(), more=0, fee=check.fee, warnings=warnings, source=CHECKED)
