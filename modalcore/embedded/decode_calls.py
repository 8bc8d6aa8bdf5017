"""What the approval frame shows for `wallet_sendCalls` (issue 32 item 4): the account, then each
call numbered: its target (named when it is a token of the network), the value sent, and the
function with its arguments when the engine knows the ABI (ERC-20 approve / transfer /
transferFrom, the Uniswap V2 router's swaps; token amounts also in the token's units), else the
4-byte selector and the raw data. Pure: a request in, rows of (label, text) out.

One `eth_sendTransaction` is decoded the same way (`describe_transaction`): a swap's approve
reads "Approve DEMO" with the spender named, the swap "Swap" with its path and amounts, a token
transfer "Send TUSD"; `names` names the contracts the engine itself built the transaction for
(the swap's router), everything else is its checksummed address."""

from __future__ import annotations

import json
import re
from typing import Any

from eth_abi.abi import decode as abi_decode
from eth_utils.address import to_checksum_address
from eth_utils.crypto import keccak

from ..chains.catalog import Network, Token
from ..rules.calls import Call, CallsRefusal, parse_send_calls
from .decode import MAX_TEXT, native_value, units

# name, (argument name, ABI type) per argument; the selector is computed from them
_ABIS: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (
    ("approve", (("spender", "address"), ("amount", "uint256"))),
    ("transfer", (("to", "address"), ("amount", "uint256"))),
    ("transferFrom", (("from", "address"), ("to", "address"), ("amount", "uint256"))),
    ("swapExactETHForTokens", (("amountOutMin", "uint256"), ("path", "address[]"), ("to", "address"),
                               ("deadline", "uint256"))),
    ("swapETHForExactTokens", (("amountOut", "uint256"), ("path", "address[]"), ("to", "address"),
                               ("deadline", "uint256"))),
    ("swapExactTokensForETH", (("amountIn", "uint256"), ("amountOutMin", "uint256"), ("path", "address[]"),
                               ("to", "address"), ("deadline", "uint256"))),
    ("swapExactTokensForTokens", (("amountIn", "uint256"), ("amountOutMin", "uint256"), ("path", "address[]"),
                                  ("to", "address"), ("deadline", "uint256"))),
    ("swapTokensForExactETH", (("amountOut", "uint256"), ("amountInMax", "uint256"), ("path", "address[]"),
                               ("to", "address"), ("deadline", "uint256"))),
    ("swapTokensForExactTokens", (("amountOut", "uint256"), ("amountInMax", "uint256"), ("path", "address[]"),
                                  ("to", "address"), ("deadline", "uint256"))),
)
KNOWN_ABIS = {
    keccak(text=f"{name}({','.join(t for _, t in args)})")[:4].hex(): (name, args) for name, args in _ABIS
}
TOKEN_FUNCTIONS = frozenset({"approve", "transfer", "transferFrom"})  # amounts in the target's units
SWAP_FUNCTIONS = frozenset(name for name, _ in _ABIS if name.startswith("swap"))
UNISWAP_V2_ROUTER = "Uniswap V2 Router"
Names = dict[str, str]  # lower-case address -> what the engine knows the contract as


def _token(network: Network | None, address: str) -> Token | None:
    if network is None:
        return None
    return next((t for t in network.tokens if t.address.lower() == address.lower()), None)


def _name(network: Network | None, address: str, names: Names | None = None) -> str:
    token = _token(network, address)
    checksummed = to_checksum_address(address)
    known = token.symbol if token else (names or {}).get(address.lower())
    return f"{known} ({checksummed})" if known else checksummed


def _symbol(network: Network | None, address: str) -> str:
    token = _token(network, address)
    return token.symbol if token else to_checksum_address(address)


Unit = tuple[int, str]  # decimals, symbol


def _argument(network: Network | None, kind: str, value: Any, unit: Unit | None, names: Names | None = None) -> str:
    if kind == "address":
        return _name(network, str(value), names)
    if kind == "address[]":
        return " → ".join(_symbol(network, str(a)) for a in value)
    if unit is not None and isinstance(value, int):
        return f"{value} ({units(value, unit[0])} {unit[1]})"
    return str(value)


def _amount_unit(network: Network | None, function: str, arg: str, target: str,
                 path: tuple[object, ...] | None) -> Unit | None:
    """The unit of an amount argument: a token call's `amount` in the token's; a router swap's
    amountIn* in its path's first token's (or the native currency's, ETH in), amountOut* in the
    last one's (ETH out)."""
    if function in TOKEN_FUNCTIONS:
        token = _token(network, target) if arg == "amount" else None
        return (token.decimals, token.symbol) if token else None
    if function not in SWAP_FUNCTIONS or not path or not arg.startswith("amount"):
        return None
    side_in = arg.startswith("amountIn")
    token = _token(network, str(path[0] if side_in else path[-1]))
    if token is not None:
        return token.decimals, token.symbol
    native = "ETHFor" in function if side_in else function.endswith("ETH")
    return (network.native.decimals, network.native.symbol) if native and network else None


def _label(prefix: str, name: str) -> str:
    """A call's row label ("Call 2 amountIn"), or alone as words ("Amount in")."""
    if prefix:
        return f"{prefix} {name}"
    words = re.sub(r"(?<=[a-z])([A-Z])", r" \1", name).lower()
    return words[:1].upper() + words[1:]


def decoded(data: str) -> tuple[str, tuple[tuple[str, str], ...], tuple[Any, ...]] | None:
    """(function name, its (argument, ABI type) pairs, the values) of a call the engine knows."""
    body = data[2:] if data.startswith("0x") else data
    abi = KNOWN_ABIS.get(body[:8].lower())
    if abi is None:
        return None
    name, args = abi
    try:
        values = abi_decode([t for _, t in args], bytes.fromhex(body[8:]))
    except Exception:  # eth_abi raises several types for data that does not fit the ABI
        return None
    return name, args, tuple(values)


def function_rows(network: Network | None, target: str, data: str, prefix: str,
                  names: Names | None = None) -> list[tuple[str, str]]:
    body = data[2:]
    if not body:
        return []
    found = decoded(data)
    if found is not None:
        name, args, values = found
        path = next((v for (arg, _), v in zip(args, values) if arg == "path"), None)
        rows = [(_label(prefix, "function"), f"{name}({', '.join(n for n, _ in args)})")]
        for (arg, kind), value in zip(args, values):
            unit = _amount_unit(network, name, arg, target, path)
            rows.append((_label(prefix, arg), _argument(network, kind, value, unit, names)[:MAX_TEXT]))
        return rows
    return [(_label(prefix, "function selector"), "0x" + body[:8]), (_label(prefix, "data"), data[:MAX_TEXT])]


def call_rows(network: Network | None, index: int, call: Call) -> list[tuple[str, str]]:
    prefix = f"Call {index + 1}"
    symbol = network.native.symbol if network else "ETH"
    decimals = network.native.decimals if network else 18
    rows = [(f"{prefix} to", _name(network, call.to))]
    if call.value:
        rows.append((f"{prefix} value", f"{units(call.value, decimals)} {symbol}"))
    return rows + function_rows(network, call.to, call.data, prefix)


def transaction_title(network: Network | None, tx: dict[str, object]) -> str:
    """What one transaction does, as the frame's heading: "Approve DEMO", "Swap", "Send TUSD",
    else "Send transaction"."""
    found = decoded(str(tx.get("data") or ""))
    target = str(tx.get("to") or "")
    if found is None:
        return "Send transaction"
    name = found[0]
    token = _token(network, target)
    if name == "approve":
        return f"Approve {token.symbol}" if token else "Approve token"
    if name in SWAP_FUNCTIONS:
        return "Swap"
    if name in ("transfer", "transferFrom"):
        return f"Send {token.symbol}" if token else "Send token"
    return "Send transaction"


def describe_transaction(params_json: str, network: Network | None,
                         names: Names | None = None) -> tuple[str, list[tuple[str, str]]]:
    """(heading, rows) for an eth_sendTransaction: the network, the contract called (named), the
    value, then the function and its arguments decoded (the raw data only when unknown)."""
    try:
        params = json.loads(params_json)
    except ValueError:
        return "Send transaction", [("Request", "malformed")]
    if not isinstance(params, list) or not params or not isinstance(params[0], dict):
        return "Send transaction", [("Request", "malformed")]
    tx: dict[str, object] = params[0]
    to = str(tx.get("to") or "")
    rows = [("Network", network.name if network else "unknown")]
    try:
        rows.append(("To", _name(network, to, names)))
    except ValueError:
        rows.append(("To", to[:MAX_TEXT]))
    rows.append(("Value", native_value(tx.get("value"), network)))
    data = str(tx.get("data") or "")
    try:
        rows += function_rows(network, to, data if data.startswith("0x") else "0x" + data, "", names)
    except ValueError:
        rows.append(("Data", data[:MAX_TEXT]))
    return transaction_title(network, tx), rows


def describe_calls(params_json: str, network: Network | None, account: str) -> list[tuple[str, str]]:
    """Rows for a wallet_sendCalls request (one operation: all calls or none)."""
    try:
        batch = parse_send_calls(json.loads(params_json), account)
    except ValueError:
        return [("Request", "malformed")]
    if isinstance(batch, CallsRefusal):
        return [("Request", batch.message)]
    rows = [("Network", network.name if network else "unknown"), ("Account", account),
            ("Calls", f"{len(batch.calls)}, in one operation: all or none")]
    for index, call in enumerate(batch.calls):
        rows += call_rows(network, index, call)
    return rows
