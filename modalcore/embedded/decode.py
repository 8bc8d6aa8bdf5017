"""What the approval frame shows, decoded (issue 15 §4): chain, recipient, value in units and
fiat, the contract call (known function names, else the 4-byte selector and the raw data), the
EIP-712 domain and message, or the message text. Pure: a request in, rows of (label, text) out."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from ..chains.catalog import Network

# 4-byte selectors of calls the frame names (ERC-20, ERC-721)
KNOWN_FUNCTIONS = {
    "a9059cbb": "transfer(address,uint256)",
    "095ea7b3": "approve(address,uint256)",
    "23b872dd": "transferFrom(address,address,uint256)",
    "42842e0e": "safeTransferFrom(address,address,uint256)",
    "a22cb465": "setApprovalForAll(address,bool)",
}
TITLES = {"personal_sign": "Sign message", "eth_signTypedData_v4": "Sign typed data",
          "eth_sendTransaction": "Send transaction"}
MAX_TEXT = 4000


def _int(value: Any) -> int:
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value:
        return int(value, 16) if value.startswith("0x") else int(value)
    return 0


def units(value: int, decimals: int) -> str:
    text = format(Decimal(value).scaleb(-decimals).normalize(), "f")
    return text


def message_text(hex_or_text: str) -> str:
    if hex_or_text.startswith("0x"):
        try:
            return bytes.fromhex(hex_or_text[2:]).decode("utf-8")
        except (ValueError, UnicodeDecodeError):
            return hex_or_text
    return hex_or_text


def call_rows(data: str) -> list[tuple[str, str]]:
    body = data[2:] if data.startswith("0x") else data
    if not body:
        return []
    selector = body[:8].lower()
    name = KNOWN_FUNCTIONS.get(selector)
    rows = [("Function", name) if name else ("Function selector", "0x" + selector)]
    if name and name.startswith("transfer(") and len(body) >= 8 + 128:
        rows.append(("Token recipient", "0x" + body[8 + 24:8 + 64]))
        rows.append(("Token amount (raw)", str(int(body[8 + 64:8 + 128], 16))))
    rows.append(("Data", "0x" + body))
    return rows


def describe(method: str, params_json: str, network: Network | None) -> list[tuple[str, str]]:
    """Rows for the frame; a malformed request is described as such (the signer refuses it)."""
    try:
        params = json.loads(params_json)
    except ValueError:
        return [("Request", "malformed")]
    if not isinstance(params, list):
        return [("Request", "malformed")]
    rows: list[tuple[str, str]] = [("Network", network.name if network else "unknown")]
    if method == "personal_sign" and params and isinstance(params[0], str):
        return [*rows, ("Message", message_text(params[0])[:MAX_TEXT])]
    if method == "eth_signTypedData_v4" and len(params) > 1:
        data = params[1]
        if isinstance(data, str):
            try:
                data = json.loads(data)
            except ValueError:
                return [*rows, ("Typed data", "malformed")]
        if not isinstance(data, dict):
            return [*rows, ("Typed data", "malformed")]
        domain = json.dumps(data.get("domain", {}), indent=1, sort_keys=True)
        message = json.dumps(data.get("message", {}), indent=1, sort_keys=True)
        return [*rows, ("Primary type", str(data.get("primaryType", ""))), ("Domain", domain[:MAX_TEXT]),
                ("Message", message[:MAX_TEXT])]
    if method == "eth_sendTransaction" and params and isinstance(params[0], dict):
        tx = params[0]
        value = _int(tx.get("value"))
        symbol = network.native.symbol if network else "ETH"
        decimals = network.native.decimals if network else 18
        amount = f"{units(value, decimals)} {symbol}"
        price = network.native_price if network else None
        if price:
            fiat = Decimal(value).scaleb(-decimals) * Decimal(str(price))
            amount += f" (${fiat:,.2f})"
        rows += [("Recipient", str(tx.get("to", ""))), ("Value", amount)]
        return rows + call_rows(str(tx.get("data") or ""))
    return [*rows, ("Request", method)]
