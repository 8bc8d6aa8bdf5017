"""What the approval frame shows, decoded (issue 15 §4): the chain, the EIP-712 domain and
message as fields (issue 28 item 9: read, not raw JSON), or the message as text when its bytes
are readable UTF-8 (its hex otherwise). A transaction (value in units and fiat, `native_value`,
and its call decoded) is `decode_calls.describe_transaction`, as EIP-5792's calls are. Pure: a
request in, rows of (label, text) out."""

from __future__ import annotations

import json
from decimal import Decimal

from ..chains.catalog import Network

TITLES = {"personal_sign": "Sign message", "eth_signTypedData_v4": "Sign typed data",
          "eth_sendTransaction": "Send transaction", "wallet_sendCalls": "Send calls"}
MAX_TEXT = 4000
MAX_FIELDS = 40  # typed-data message fields shown; the rest are counted
MAX_DEPTH = 6  # deeper structs are shown as compact JSON
# EIP-712 domain fields, in the order a wallet names them
DOMAIN_FIELDS = (("name", "Domain"), ("version", "Version"), ("chainId", "Chain ID"),
                 ("verifyingContract", "Contract"), ("salt", "Salt"))


def _int(value: object) -> int:
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value:
        return int(value, 16) if value.startswith("0x") else int(value)
    return 0


def units(value: int, decimals: int) -> str:
    text = format(Decimal(value).scaleb(-decimals).normalize(), "f")
    return text


def native_value(raw: object, network: Network | None) -> str:
    """A transaction's value in the native currency, with its USD value when priced."""
    try:
        value = _int(raw)
    except ValueError:
        return str(raw)[:MAX_TEXT]
    symbol = network.native.symbol if network else "ETH"
    decimals = network.native.decimals if network else 18
    amount = f"{units(value, decimals)} {symbol}"
    price = network.native_price if network else None
    if price:
        fiat = Decimal(value).scaleb(-decimals) * Decimal(str(price))
        amount += f" (${fiat:,.2f})"
    return amount


def readable(text: str) -> bool:
    """Text a person can read: printable characters, line breaks and tabs (no control bytes)."""
    return all(c.isprintable() or c in "\n\r\t" for c in text)


def message_text(hex_or_text: str) -> str:
    """A personal_sign message as its UTF-8 text when it is readable text, else its hex."""
    if hex_or_text.startswith("0x"):
        try:
            text = bytes.fromhex(hex_or_text[2:]).decode("utf-8")
        except (ValueError, UnicodeDecodeError):
            return hex_or_text
        return text if readable(text) else hex_or_text
    return hex_or_text


def _scalar(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def fields(value: object, path: str = "", depth: int = 0) -> list[tuple[str, str]]:
    """A typed-data message as (dotted field path, value) rows: `from.wallet`, `to[0].name`."""
    if isinstance(value, dict) and depth < MAX_DEPTH:
        rows: list[tuple[str, str]] = []
        for key, item in value.items():
            rows += fields(item, f"{path}.{key}" if path else str(key), depth + 1)
        return rows or ([(path, "(none)")] if path else [])
    if isinstance(value, list) and depth < MAX_DEPTH:
        rows = []
        for i, item in enumerate(value):
            rows += fields(item, f"{path}[{i}]", depth + 1)
        return rows or [(path, "(none)")]
    if isinstance(value, dict | list):
        return [(path, json.dumps(value, separators=(",", ":"))[:MAX_TEXT])]
    return [(path or "Message", _scalar(value)[:MAX_TEXT])]


def typed_data_rows(data: dict[str, object]) -> list[tuple[str, str]]:
    """The domain's named fields, the primary type, then every message field (at most
    MAX_FIELDS, the rest counted)."""
    domain = data.get("domain")
    domain = domain if isinstance(domain, dict) else {}
    rows = [(label, _scalar(domain[key])[:MAX_TEXT]) for key, label in DOMAIN_FIELDS if key in domain]
    rows.append(("Primary type", str(data.get("primaryType", ""))[:MAX_TEXT]))
    message = fields(data.get("message", {}))
    rows += message[:MAX_FIELDS]
    if len(message) > MAX_FIELDS:
        rows.append(("More fields", str(len(message) - MAX_FIELDS)))
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
        return [*rows, *typed_data_rows(data)]
    return [*rows, ("Request", method)]
