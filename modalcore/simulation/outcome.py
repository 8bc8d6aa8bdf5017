"""The outcome the approval shows before the visitor approves (issue 43 item 1): the balance
changes the visitor's address will see, the fee, and plain warnings. Pure: what the node's
simulation answered (`Simulation`, eth_simulateV1 with traced ETH transfers) or, without one,
the call data (`estimate`), in; an `Outcome` out.

Bounded (issue 43 item 4): at most `MAX_SHOWN` changes are listed, then "+N more"; at most
`MAX_TOKENS` assets are tallied (a simulation naming more is summed as "other assets"); every
text is cut to `MAX_TEXT`. What the node answers only changes what is drawn: the executed call is
the request the approval tree hashes (embedded/approval_tree.py), never anything from here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from eth_utils.crypto import keccak

Status = Literal["pending", "simulated", "estimated", "unavailable"]
MAX_SHOWN = 5  # changes listed; the rest is "+N more"
MAX_TOKENS = 64  # assets tallied from one simulation
MAX_TEXT = 120
UNLIMITED = 2**255  # an allowance at least this large is unlimited (max uint256 and its kin)
NATIVE = "0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee"  # where eth_simulateV1 logs traced ETH transfers
TRANSFER = "0x" + keccak(text="Transfer(address,address,uint256)").hex()
APPROVAL = "0x" + keccak(text="Approval(address,address,uint256)").hex()

NOTES: dict[Status, str] = {
    "pending": "Simulating…",
    "simulated": "Outcome simulated by the network",
    "estimated": "Outcome estimated from the call data",
    "unavailable": "Outcome unavailable",
}
NO_CHANGES = "No balance changes"
MORE = "+{n} more"
REVERTS = "This transaction will fail: the simulation reverted"
UNLIMITED_WARNING = "This approves an unlimited allowance of {symbol}"
INSUFFICIENT = "The network says this account cannot pay for this transaction"
UNDECLARED = "This sends to a contract this site did not declare"
FEE = "≈ {amount} {symbol}"
FEE_UNAVAILABLE = "Fee unavailable"  # the estimate's fee when the node would not price the call: never a zero fee
MINUS = "\u2212"
UNISWAP_V2_ROUTER = "Uniswap V2 Router"  # the router the engine built a swap for (embedded/decode_calls.py names it so)


@dataclass(frozen=True)
class Outcome:
    """What the approval draws beside the decoded call. `status` says where it comes from; an
    unavailable outcome lists nothing and says so (never "no changes")."""

    status: Status
    changes: tuple[str, ...] = ()
    more: int = 0
    fee: str = ""
    warnings: tuple[str, ...] = ()
    # where the fee and the revert check come from when not from the same source as the changes
    # (a smart account's UserOperation: the bundler, simulation/userop.py); said after the note
    source: str = ""

    def to_tree(self) -> dict[str, object]:
        """The approval tree's `outcome` (maps, lists, text, integers only)."""
        note = f"{NOTES[self.status]}; {self.source}" if self.source else NOTES[self.status]
        return {"status": self.status, "note": note, "changes": list(self.changes),
                "more": self.more, "fee": self.fee, "warnings": list(self.warnings)}


PENDING = Outcome("pending")
UNAVAILABLE = Outcome("unavailable")


@dataclass(frozen=True)
class Asset:
    symbol: str
    decimals: int


@dataclass(frozen=True)
class Known:
    """What the engine knows on this chain: the native currency, its tokens (lower-case address ->
    asset), the contracts it can name (lower-case address -> name), and those the host declared
    (lower-case addresses; empty: the host declared none, no warning)."""

    native: Asset
    tokens: Mapping[str, Asset]
    names: Mapping[str, str]
    declared: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Log:
    address: str
    topics: tuple[str, ...]
    data: str


@dataclass(frozen=True)
class CallResult:
    ok: bool
    gas_used: int
    logs: tuple[Log, ...]


@dataclass(frozen=True)
class Simulation:
    """The node's answer, as the simulation service bounded it (services/backend/simulate.py)."""

    calls: tuple[CallResult, ...]
    base_fee: int


@dataclass(frozen=True)
class TxCall:
    to: str
    value: int
    data: str


def amount(value: int, decimals: int) -> str:
    """An exact decimal amount, trailing zeros dropped ("0.25", "199")."""
    whole, frac = divmod(value, 10**decimals) if decimals > 0 else (value, 0)
    if not frac:
        return str(whole)
    return f"{whole}.{str(frac).rjust(decimals, '0').rstrip('0')}"


def _short(address: str) -> str:
    return f"{address[:6]}…{address[-4:]}" if len(address) == 42 else address[:MAX_TEXT]


def _asset(known: Known, token: str) -> Asset:
    if token == NATIVE:
        return known.native
    return known.tokens.get(token) or Asset(_short(token), 0)


def _who(known: Known, address: str) -> str:
    return known.names.get(address) or _short(address)


def _signed(value: int, asset: Asset) -> str:
    sign = "+" if value > 0 else MINUS
    return f"{sign}{amount(abs(value), asset.decimals)} {asset.symbol}"[:MAX_TEXT]


def _approval(known: Known, token: str, spender: str, value: int) -> tuple[str, str | None]:
    asset = _asset(known, token)
    if value >= UNLIMITED:
        text = f"approves {_who(known, spender)} to spend unlimited {asset.symbol}"
        return text[:MAX_TEXT], UNLIMITED_WARNING.format(symbol=asset.symbol)[:MAX_TEXT]
    return f"approves {_who(known, spender)} to spend {amount(value, asset.decimals)} {asset.symbol}"[:MAX_TEXT], None


def _word_address(topic: str) -> str:
    return "0x" + topic[-40:].lower()


def _fee(gas: int, base_fee: int, known: Known) -> str:
    if gas <= 0 or base_fee <= 0:
        return ""
    return fee_text(gas * base_fee, known)


def fee_text(wei: int, known: Known) -> str:
    """A fee in the native currency, four significant digits ("≈ 0.000021 ETH"); a fee of
    nothing is unknown, never shown as zero ("Fee unavailable")."""
    if wei <= 0:
        return FEE_UNAVAILABLE
    text = amount(wei, known.native.decimals)
    whole, _, frac = text.partition(".")
    digits = len(frac) - len(frac.lstrip("0")) + 4  # four significant digits after the zeros
    shown = f"{whole}.{frac[:digits]}".rstrip("0").rstrip(".") if frac else whole
    return FEE.format(amount=shown, symbol=known.native.symbol)


def _finish(status: Status, deltas: Mapping[str, int], known: Known, approvals: Sequence[str],
            warnings: Sequence[str], fee: str) -> Outcome:
    listed = [_signed(v, _asset(known, t)) for t, v in deltas.items() if v] + list(approvals)
    if not listed and not warnings:
        listed = [NO_CHANGES]
    unique_warnings = tuple(dict.fromkeys(warnings))
    return Outcome(status, tuple(listed[:MAX_SHOWN]), max(0, len(listed) - MAX_SHOWN), fee, unique_warnings)


def _undeclared(known: Known, calls: Sequence[TxCall]) -> list[str]:
    """A call with data to an address the host did not declare (and the engine does not know as
    a token or one of its own contracts), when the host declared any."""
    if not known.declared:
        return []
    for call in calls:
        to = call.to.lower()
        if len(call.data) > 2 and to not in known.declared and to not in known.tokens and to not in known.names:
            return [UNDECLARED]
    return []


def simulated(sim: Simulation, visitor: str, calls: Sequence[TxCall], known: Known) -> Outcome:
    """The outcome the node simulated: the visitor's net change per asset (ERC-20 Transfer logs
    and the ETH transfers the node traced), the allowances the visitor grants (Approval logs),
    the fee (gas used × base fee), and a warning when a call reverts (then nothing changes)."""
    me = visitor.lower()
    gas = sum(c.gas_used for c in sim.calls)
    fee = _fee(gas, sim.base_fee, known)
    warnings = _undeclared(known, calls)
    if not sim.calls or any(not c.ok for c in sim.calls):
        return _finish("simulated", {}, known, [], [REVERTS, *warnings], fee)
    deltas: dict[str, int] = {}
    approvals: list[str] = []
    for call in sim.calls:
        for log in call.logs:
            if len(log.topics) != 3 or log.topics[0] not in (TRANSFER, APPROVAL):
                continue
            try:
                value = int(log.data[2:66] or "0", 16)
            except ValueError:
                continue
            token = log.address.lower()
            source, target = _word_address(log.topics[1]), _word_address(log.topics[2])
            if log.topics[0] == APPROVAL:
                if source == me:
                    text, warning = _approval(known, token, target, value)
                    approvals.append(text)
                    warnings += [warning] if warning else []
                continue
            if me not in (source, target) or source == target:
                continue
            if token not in deltas and len(deltas) >= MAX_TOKENS:
                continue
            deltas[token] = deltas.get(token, 0) + (value if target == me else -value)
    ordered = dict(sorted(deltas.items(), key=lambda kv: kv[0] != NATIVE))
    return _finish("simulated", ordered, known, approvals, warnings, fee)


# name -> the argument kinds the estimate reads ("u" a uint256, "a" an address, "p" an address[]);
# decoded by hand, word by word: the pure core loads no ABI library (tests/test_pure_core_bounds.py)
_SELECTORS = {keccak(text=sig)[:4].hex(): (sig.partition("(")[0], kinds) for sig, kinds in (
    ("transfer(address,uint256)", "au"),
    ("approve(address,uint256)", "au"),
    ("swapExactETHForTokens(uint256,address[],address,uint256)", "upau"),
    ("swapExactTokensForTokens(uint256,uint256,address[],address,uint256)", "uupau"),
    ("swapExactTokensForETH(uint256,uint256,address[],address,uint256)", "uupau"),
)}
MAX_PATH = 8  # a swap's path the estimate reads


def _word(body: bytes, index: int) -> int:
    word = body[32 * index:32 * index + 32]
    if len(word) != 32:
        raise ValueError("short call data")
    return int.from_bytes(word, "big")


def _address(value: int) -> str:
    if value >> 160:
        raise ValueError("not an address")
    return "0x" + format(value, "040x")


def _decoded(data: str) -> tuple[str, tuple[object, ...]] | None:
    text = data[2:] if data.startswith("0x") else data
    found = _SELECTORS.get(text[:8].lower())
    if found is None:
        return None
    name, kinds = found
    try:
        body = bytes.fromhex(text[8:])
        values: list[object] = []
        for index, kind in enumerate(kinds):
            word = _word(body, index)
            if kind == "u":
                values.append(word)
            elif kind == "a":
                values.append(_address(word))
            else:  # a dynamic address[]: its offset, then its length and items
                if word % 32 or word > len(body):
                    return None
                at = word // 32
                length = _word(body, at)
                if length > MAX_PATH:
                    return None
                values.append([_address(_word(body, at + 1 + item)) for item in range(length)])
    except ValueError:
        return None
    return name, tuple(values)


def is_swap(data: str) -> bool:
    """Whether `data` calls one of the router swaps the estimate reads."""
    found = _decoded(data)
    return found is not None and found[0].startswith("swap")


def estimate(calls: Sequence[TxCall], visitor: str, known: Known, fee: str = FEE_UNAVAILABLE) -> Outcome:
    """What the call data says, without a node's simulation ("Outcome estimated from the call
    data"): the value sent, ERC-20 transfers and approvals, the router swaps' amounts in and their
    minimum out. A call the engine cannot read makes the outcome unavailable, never "no changes".
    `fee` is the node's estimate (eth_estimateGas × eth_gasPrice, `fee_text`) or FEE_UNAVAILABLE."""
    me = visitor.lower()
    deltas: dict[str, int] = {}
    approvals: list[str] = []
    warnings = _undeclared(known, calls)
    for call in calls:
        to = call.to.lower()
        if call.value:
            deltas[NATIVE] = deltas.get(NATIVE, 0) - call.value
        if len(call.data) <= 2:
            continue
        found = _decoded(call.data)
        if found is None:
            return Outcome("unavailable", fee=fee, warnings=tuple(warnings))
        name, values = found
        if name == "approve":
            text, warning = _approval(known, to, str(values[0]).lower(), int(str(values[1])))
            approvals.append(text)
            warnings += [warning] if warning else []
        elif name == "transfer":
            if str(values[0]).lower() != me:
                deltas[to] = deltas.get(to, 0) - int(str(values[1]))
        else:  # a swap: what goes in, and at least what comes out (to the visitor)
            found_path = values[1 if name == "swapExactETHForTokens" else 2]
            path = [str(a).lower() for a in found_path] if isinstance(found_path, list) else []
            recipient = str(values[2 if name == "swapExactETHForTokens" else 3]).lower()
            if name != "swapExactETHForTokens" and path:
                deltas[path[0]] = deltas.get(path[0], 0) - int(str(values[0]))
            out_min = int(str(values[0 if name == "swapExactETHForTokens" else 1]))
            out = NATIVE if name == "swapExactTokensForETH" else (path[-1] if path else NATIVE)
            if recipient == me:
                deltas[out] = deltas.get(out, 0) + out_min
    return _finish("estimated", deltas, known, approvals, warnings, fee)
