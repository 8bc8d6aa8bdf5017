"""Sample inputs for hand-written sessions: a join, and results in the shapes the services return.

A `Call` command's result comes back to the engine as `CallSettled(to, ok, result, error)`
and is validated into the call's `Reply` message (`engine/replies.py`).
`Harness.settle_call(service, result)` (and `{"call": service, "result": ...}` in a sequence)
builds that message; these functions give the `result` of each service:

    balances   {"native": wei, "tokens": {token address: raw amount}}
    history    {"data": [transaction, ...], "next": cursor | None} (the hosted call's shape)
    nfts       {"items": [{"contract", "token_id", "name", "symbol"}, ...]}
    estimate_fee  {"fee": wei, "gas": int, "gas_price": wei, "transfer_ok": bool}
    siwx.nonce    {"nonce": str}
    siwx.sessions {"sessions": [session, ...]}
    siwx.verify   {"ok": True, "token": str, "session": session} or {"ok": False, ...}

A failed call is `ok=False` with an `error` text, e.g. "HTTP status code: 503", and its kind
(`failure`: timeout, rejected, upstream, invalid, unknown); the reply carries them as a `Failure`.
`SAMPLES[service]` is a plausible default answer for each.
"""

from __future__ import annotations

from typing import Any

DEV_ADDRESS = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"  # Hardhat's first account
SECOND_ADDRESS = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
HARDHAT_CHAIN = "0x7a69"  # 31337, what eth_chainId answers
DEV_WALLET = {"uuid": "4f2d8c3a-0b1e-4c55-9a77-2e6d1f0c9b31", "name": "Dev Wallet",
              "icon": "data:image/svg+xml,%3Csvg%2F%3E", "rdns": "dev.modal.wallet"}
ENV = {"mobile": False, "platform": "linux", "telegram": False, "safari": False,
       "timezone": "Europe/Paris", "origin": "http://localhost:8000", "width": 1280}
OPTS: dict[str, object] = {
    "networks": ["eip155:31337", "eip155:31338"],
    "metadata": {"name": "Demo dApp", "description": "Replay fixture", "url": "http://localhost:8000",
                 "icons": []},
}
ETHER = 10**18


def join(**opts: object) -> dict[str, Any]:
    """The fields of a `join` frame: the demo project on the two local chains, the Dev Wallet
    announced; `opts` override the host options."""
    return {"project": "demo", "env": dict(ENV), "opts": {**OPTS, **opts}, "wallets": [dict(DEV_WALLET)]}


def balances(native_wei: int = 10 * ETHER, tokens: dict[str, int] | None = None) -> dict[str, object]:
    return {"native": native_wei, "tokens": dict(tokens or {})}


def transaction(
    hash: str = "0x" + "ab" * 32,
    *,
    chain: str = "eip155:31337",
    sent_from: str = DEV_ADDRESS,
    sent_to: str = SECOND_ADDRESS,
    symbol: str = "ETH",
    name: str = "Ether",
    quantity: str = "1.5",
    direction: str = "out",
    operation: str = "send",
    mined_at: str = "2026-11-20T10:00:00Z",
    status: str = "confirmed",
) -> dict[str, Any]:
    """One transaction as the history service returns it."""
    return {
        "id": hash,
        "metadata": {"operationType": operation, "hash": hash, "minedAt": mined_at, "sentFrom": sent_from,
                     "sentTo": sent_to, "status": status, "nonce": 0, "chain": chain},
        "transfers": [{"fungible_info": {"name": name, "symbol": symbol, "icon": {"url": ""}},
                       "direction": direction, "quantity": {"numeric": quantity}}],
    }


def history(*transactions: dict[str, object], next: str | None = None) -> dict[str, object]:
    return {"data": list(transactions), "next": next}


def nft(contract: str, token_id: int | str, name: str = "", symbol: str = "") -> dict[str, object]:
    return {"contract": contract, "token_id": str(token_id), "name": name, "symbol": symbol}


def nfts(*items: dict[str, object]) -> dict[str, object]:
    return {"items": list(items)}


def fee(gas: int = 21_000, gas_price_wei: int = 1_000_000_000, transfer_ok: bool = True) -> dict[str, object]:
    return {"fee": gas * gas_price_wei, "gas": gas, "gas_price": gas_price_wei, "transfer_ok": transfer_ok}


def siwx_nonce(nonce: str = "Sample0Nonce1234") -> dict[str, Any]:
    return {"nonce": nonce}


def siwx_sessions(*sessions: dict[str, object]) -> dict[str, Any]:
    return {"sessions": list(sessions)}


def siwx_verified(token: str = "sample.session-token", session: dict[str, object] | None = None) -> dict[str, Any]:
    return {"ok": True, "token": token, "session": session or {}}


def siwx_refused(reason: str = "bad_signature", error: str = "signature does not match") -> dict[str, object]:
    return {"ok": False, "reason": reason, "error": error}


SAMPLES: dict[str, dict[str, object]] = {
    "balances": balances(),
    "history": history(transaction()),
    "nfts": nfts(),
    "estimate_fee": fee(),
    "siwx.nonce": siwx_nonce(),
    "siwx.sessions": siwx_sessions(),
    "siwx.verify": siwx_verified(),
}
