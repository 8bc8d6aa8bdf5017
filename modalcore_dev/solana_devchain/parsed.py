"""A landed transaction in the shapes `getTransaction` answers (https://solana.com/docs/rpc/http/
gettransaction): `json` (account keys as strings, instructions as indexes and base58 data),
`jsonParsed` (account keys with signer/writable, the System, SPL Token and associated token
account instructions decoded as a node's parsers decode them, others as program id, accounts and
data), `base64` / `base58` (the wire bytes)."""

from __future__ import annotations

import base64
import struct
from collections.abc import Sequence
from typing import Any

import base58
from solders.message import Message
from solders.pubkey import Pubkey

from modalcore.solana.programs import ASSOCIATED_TOKEN_PROGRAM, SYSTEM_PROGRAM, TOKEN_PROGRAM
from modalcore_dev.solana_devchain.ledger import Recorded, TokenBalance

SYSTEM_TRANSFER = 2
TOKEN_TRANSFER, TOKEN_TRANSFER_CHECKED = 3, 12
ATA_CREATE_TYPES = {b"": "create", b"\x00": "create", b"\x01": "createIdempotent"}


def _ui(amount: int, decimals: int) -> dict[str, Any]:
    whole, frac = divmod(amount, 10**decimals) if decimals else (amount, 0)
    text = f"{whole}.{frac:0{decimals}d}".rstrip("0").rstrip(".") if decimals else str(amount)
    return {"amount": str(amount), "decimals": decimals, "uiAmount": amount / 10**decimals,
            "uiAmountString": text}


def _decoded(program: Pubkey, data: bytes, accounts: list[str]) -> tuple[str, dict[str, Any]] | None:
    """(program name, {"type", "info"}) for the instructions the engine's sends use."""
    if program == SYSTEM_PROGRAM and len(data) == 12 and struct.unpack_from("<I", data)[0] == SYSTEM_TRANSFER \
            and len(accounts) >= 2:
        (lamports,) = struct.unpack_from("<Q", data, 4)
        return "system", {"type": "transfer", "info": {"source": accounts[0], "destination": accounts[1],
                                                       "lamports": lamports}}
    if program == TOKEN_PROGRAM and len(data) == 9 and data[0] == TOKEN_TRANSFER and len(accounts) >= 3:
        (amount,) = struct.unpack_from("<Q", data, 1)
        return "spl-token", {"type": "transfer", "info": {
            "source": accounts[0], "destination": accounts[1], "authority": accounts[2], "amount": str(amount)}}
    if program == TOKEN_PROGRAM and len(data) == 10 and data[0] == TOKEN_TRANSFER_CHECKED and len(accounts) >= 4:
        amount, decimals = struct.unpack_from("<QB", data, 1)
        return "spl-token", {"type": "transferChecked", "info": {
            "source": accounts[0], "mint": accounts[1], "destination": accounts[2], "authority": accounts[3],
            "tokenAmount": _ui(amount, decimals)}}
    if program == ASSOCIATED_TOKEN_PROGRAM and data in ATA_CREATE_TYPES and len(accounts) >= 6:
        return "spl-associated-token-account", {"type": ATA_CREATE_TYPES[data], "info": {
            "source": accounts[0], "account": accounts[1], "wallet": accounts[2], "mint": accounts[3],
            "systemProgram": accounts[4], "tokenProgram": accounts[5]}}
    return None


def _instructions(message: Any, keys: Sequence[Pubkey], parsed: bool) -> list[dict[str, Any]]:
    rows = []
    for ins in message.instructions:
        indexes = list(bytes(ins.accounts))
        data = bytes(ins.data)
        if not parsed:
            rows.append({"programIdIndex": int(ins.program_id_index), "accounts": indexes,
                         "data": base58.b58encode(data).decode("ascii"), "stackHeight": None})
            continue
        program = keys[ins.program_id_index]
        accounts = [str(keys[i]) for i in indexes]
        decoded = _decoded(program, data, accounts)
        if decoded is None:
            rows.append({"programId": str(program), "accounts": accounts,
                         "data": base58.b58encode(data).decode("ascii"), "stackHeight": None})
        else:
            rows.append({"program": decoded[0], "programId": str(program), "parsed": decoded[1],
                         "stackHeight": None})
    return rows


def _token_rows(rows: tuple[TokenBalance, ...]) -> list[dict[str, Any]]:
    return [{"accountIndex": row.index, "mint": row.mint, "owner": row.owner,
             "programId": str(TOKEN_PROGRAM), "uiTokenAmount": _ui(row.amount, row.decimals)} for row in rows]


def transaction_json(landed: Recorded, encoding: str) -> dict[str, Any]:
    tx = landed.tx
    message = tx.message
    keys = list(message.account_keys)
    legacy = isinstance(message, Message)
    transaction: Any
    if encoding in ("base64", "base58"):
        raw = bytes(tx)
        text = base64.b64encode(raw).decode("ascii") if encoding == "base64" else base58.b58encode(raw).decode("ascii")
        transaction = [text, encoding]
    else:
        parsed = encoding == "jsonParsed"
        header = message.header
        account_keys: list[Any] = [str(k) for k in keys]
        if parsed:
            signed = header.num_required_signatures
            account_keys = [{"pubkey": str(k), "signer": i < signed,
                             "writable": (i < signed - header.num_readonly_signed_accounts if i < signed
                                          else i < len(keys) - header.num_readonly_unsigned_accounts),
                             "source": "transaction"} for i, k in enumerate(keys)]
        body: dict[str, Any] = {"accountKeys": account_keys, "instructions": _instructions(message, keys, parsed),
                                "recentBlockhash": str(message.recent_blockhash)}
        if not parsed:
            body["header"] = {"numRequiredSignatures": header.num_required_signatures,
                              "numReadonlySignedAccounts": header.num_readonly_signed_accounts,
                              "numReadonlyUnsignedAccounts": header.num_readonly_unsigned_accounts}
        transaction = {"signatures": [str(sig) for sig in tx.signatures], "message": body}
    meta = {
        "err": landed.err, "status": {"Ok": None} if landed.err is None else {"Err": landed.err},
        "fee": landed.fee, "preBalances": list(landed.pre_balances), "postBalances": list(landed.post_balances),
        "innerInstructions": [], "logMessages": list(landed.logs),
        "preTokenBalances": _token_rows(landed.pre_tokens), "postTokenBalances": _token_rows(landed.post_tokens),
        "rewards": [], "loadedAddresses": {"writable": [], "readonly": []},
        "computeUnitsConsumed": landed.units,
    }
    return {"slot": landed.slot, "blockTime": landed.block_time, "meta": meta, "transaction": transaction,
            "version": "legacy" if legacy else 0}
