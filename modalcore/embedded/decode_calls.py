"""What the approval frame shows for `wallet_sendCalls` (issue 32 item 4): the account, then each
call numbered: its target (named when it is a token of the network), the value sent, and the
function with its arguments when the engine knows the ABI (ERC-20 approve / transfer /
transferFrom, the Uniswap V2 router's swaps; token amounts also in the token's units), else the
4-byte selector and the raw data. Pure: a request in, rows of (label, text) out."""

from __future__ import annotations

import json
from typing import Any

from eth_abi.abi import decode as abi_decode
from eth_utils.address import to_checksum_address
from eth_utils.crypto import keccak

from ..chains.catalog import Network, Token
from ..rules.calls import Call, CallsRefusal, parse_send_calls
from .decode import MAX_TEXT, units

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


def _token(network: Network | None, address: str) -> Token | None:
    if network is None:
        return None
    return next((t for t in network.tokens if t.address.lower() == address.lower()), None)


def _name(network: Network | None, address: str) -> str:
    token = _token(network, address)
    checksummed = to_checksum_address(address)
    return f"{token.symbol} ({checksummed})" if token else checksummed


def _symbol(network: Network | None, address: str) -> str:
    token = _token(network, address)
    return token.symbol if token else to_checksum_address(address)


def _argument(network: Network | None, kind: str, value: Any, unit: Token | None) -> str:
    if kind == "address":
        return _name(network, str(value))
    if kind == "address[]":
        return " → ".join(_symbol(network, str(a)) for a in value)
    if unit is not None and isinstance(value, int):
        return f"{value} ({units(value, unit.decimals)} {unit.symbol})"
    return str(value)


def function_rows(network: Network | None, target: str, data: str, prefix: str) -> list[tuple[str, str]]:
    body = data[2:]
    if not body:
        return []
    abi = KNOWN_ABIS.get(body[:8])
    if abi is not None:
        name, args = abi
        try:
            values = abi_decode([t for _, t in args], bytes.fromhex(body[8:]))
        except Exception:  # eth_abi raises several types for data that does not fit the ABI
            abi = None
        else:
            unit = _token(network, target) if name in TOKEN_FUNCTIONS else None
            rows = [(f"{prefix} function", f"{name}({', '.join(n for n, _ in args)})")]
            for (arg, kind), value in zip(args, values):
                amount_unit = unit if arg == "amount" else None
                rows.append((f"{prefix} {arg}", _argument(network, kind, value, amount_unit)[:MAX_TEXT]))
            return rows
    return [(f"{prefix} function selector", "0x" + body[:8]), (f"{prefix} data", data[:MAX_TEXT])]


def call_rows(network: Network | None, index: int, call: Call) -> list[tuple[str, str]]:
    prefix = f"Call {index + 1}"
    symbol = network.native.symbol if network else "ETH"
    decimals = network.native.decimals if network else 18
    rows = [(f"{prefix} to", _name(network, call.to))]
    if call.value:
        rows.append((f"{prefix} value", f"{units(call.value, decimals)} {symbol}"))
    return rows + function_rows(network, call.to, call.data, prefix)


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
