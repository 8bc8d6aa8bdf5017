"""Solana JSON-RPC methods over the dev ledger, with the request and response shapes of a real
node (https://solana.com/docs/rpc): `{"context": {"apiVersion", "slot"}, "value": ...}` for the
methods that have a context, errors as JSON-RPC errors (-32602 invalid params, -32002 for a
transaction whose preflight simulation failed, -32003 signature verification failure)."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from typing import Any

import base58
from solders.account import Account
from solders.pubkey import Pubkey
from solders.signature import Signature
from solders.token.state import TokenAccount
from solders.transaction import VersionedTransaction
from solders.transaction_metadata import FailedTransactionMetadata

from modalcore.solana.programs import TOKEN_ACCOUNT_SIZE, TOKEN_PROGRAM
from modalcore_dev.solana_devchain.ledger import DevLedger, LedgerError
from modalcore_dev.solana_devchain.parsed import transaction_json

API_VERSION = "2.2.0"
INVALID_PARAMS = -32602
METHOD_NOT_FOUND = -32601
PREFLIGHT_FAILED = -32002
SIGNATURE_FAILED = -32003
MAX_SIGNATURES = 256  # getSignatureStatuses accepts up to 256 signatures
MAX_SIGNATURES_FOR_ADDRESS = 1000  # getSignaturesForAddress's largest (and default) limit
TRANSACTION_ENCODINGS = ("json", "jsonParsed", "base64", "base58")
MAX_AIRDROP = 1_000 * 1_000_000_000


class RpcError(Exception):
    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data


def _invalid(message: str) -> RpcError:
    return RpcError(INVALID_PARAMS, message)


def _param(params: list[Any], index: int, default: Any = None) -> Any:
    return params[index] if len(params) > index else default


def _pubkey(value: Any) -> Pubkey:
    if not isinstance(value, str):
        raise _invalid("Invalid param: expected a base58 public key string")
    try:
        return Pubkey.from_string(value)
    except ValueError:
        raise _invalid("Invalid param: Invalid") from None


def _config(params: list[Any], index: int) -> dict[str, Any]:
    value = _param(params, index, {})
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise _invalid("Invalid params: expected a config object")
    return value


class DevRpc:
    def __init__(self, ledger: DevLedger) -> None:
        self.ledger = ledger
        self.methods: dict[str, Callable[[list[Any]], Any]] = {
            "getHealth": lambda params: "ok",
            "getVersion": lambda params: {"solana-core": API_VERSION, "feature-set": 0},
            "getGenesisHash": lambda params: ledger.genesis_hash,
            "getSlot": lambda params: ledger.slot,
            "getBlockHeight": lambda params: ledger.slot,
            "getBalance": self.get_balance,
            "getAccountInfo": self.get_account_info,
            "getTokenAccountsByOwner": self.get_token_accounts_by_owner,
            "getLatestBlockhash": self.get_latest_blockhash,
            "isBlockhashValid": self.is_blockhash_valid,
            "getMinimumBalanceForRentExemption": self.get_minimum_balance,
            "getFeeForMessage": self.get_fee_for_message,
            "sendTransaction": self.send_transaction,
            "simulateTransaction": self.simulate_transaction,
            "getSignatureStatuses": self.get_signature_statuses,
            "getSignaturesForAddress": self.get_signatures_for_address,
            "getTransaction": self.get_transaction,
            "requestAirdrop": self.request_airdrop,
        }

    def call(self, method: str, params: list[Any]) -> Any:
        handler = self.methods.get(method)
        if handler is None:
            raise RpcError(METHOD_NOT_FOUND, "Method not found")
        try:
            return handler(params)
        except LedgerError as error:
            raise _invalid(str(error)) from None

    def _context(self, value: Any) -> dict[str, Any]:
        return {"context": {"apiVersion": API_VERSION, "slot": self.ledger.slot}, "value": value}

    # -- reads ---------------------------------------------------------------------------------
    def get_balance(self, params: list[Any]) -> Any:
        return self._context(self.ledger.balance(_pubkey(_param(params, 0))))

    def get_account_info(self, params: list[Any]) -> Any:
        address = _pubkey(_param(params, 0))
        encoding = _config(params, 1).get("encoding", "base64")
        account = self.ledger.account(address)
        if account is None:
            return self._context(None)
        return self._context(self._account_json(account, encoding))

    def _account_json(self, account: Account, encoding: str) -> dict[str, Any]:
        raw = bytes(account.data)
        data: Any
        if encoding == "jsonParsed" and account.owner == TOKEN_PROGRAM and len(raw) == TOKEN_ACCOUNT_SIZE:
            data = self._parsed_token_account(TokenAccount.from_bytes(raw), len(raw))
        elif encoding in ("base64", "jsonParsed"):
            data = [base64.b64encode(raw).decode("ascii"), "base64"]
        elif encoding == "base58":
            data = [base58.b58encode(raw).decode("ascii"), "base58"]
        else:
            raise _invalid(f"Invalid params: unknown encoding {encoding!r}")
        return {"data": data, "executable": bool(account.executable), "lamports": int(account.lamports),
                "owner": str(account.owner), "rentEpoch": 18446744073709551615, "space": len(raw)}

    def _parsed_token_account(self, state: TokenAccount, space: int) -> dict[str, Any]:
        decimals = self.ledger.mint_decimals(state.mint)
        amount = int(state.amount)
        ui = amount / 10**decimals
        return {
            "program": "spl-token",
            "parsed": {"type": "account", "info": {
                "isNative": False, "mint": str(state.mint), "owner": str(state.owner),
                "state": "initialized",
                "tokenAmount": {"amount": str(amount), "decimals": decimals, "uiAmount": ui,
                                "uiAmountString": _ui_string(amount, decimals)},
            }},
            "space": space,
        }

    def get_token_accounts_by_owner(self, params: list[Any]) -> Any:
        owner = _pubkey(_param(params, 0))
        selector = _param(params, 1)
        if not isinstance(selector, dict) or len(selector) != 1 or not ({"mint", "programId"} & set(selector)):
            raise _invalid("Invalid params: expected {\"mint\": ...} or {\"programId\": ...}")
        mint = _pubkey(selector["mint"]) if "mint" in selector else None
        if "programId" in selector and _pubkey(selector["programId"]) != TOKEN_PROGRAM:
            return self._context([])
        encoding = _config(params, 2).get("encoding", "base64")
        rows = [{"pubkey": str(address), "account": self._account_json(account, encoding)}
                for address, account, _ in self.ledger.token_accounts(owner, mint)]
        return self._context(rows)

    def get_latest_blockhash(self, params: list[Any]) -> Any:
        return self._context({"blockhash": self.ledger.blockhash,
                              "lastValidBlockHeight": self.ledger.last_valid_block_height})

    def is_blockhash_valid(self, params: list[Any]) -> Any:
        value = _param(params, 0)
        return self._context(isinstance(value, str) and self.ledger.is_recent(value))

    def get_minimum_balance(self, params: list[Any]) -> Any:
        size = _param(params, 0)
        if not isinstance(size, int) or isinstance(size, bool) or not 0 <= size <= 10 * 1024 * 1024:
            raise _invalid("Invalid params: expected a data length")
        return int(self.ledger.svm.minimum_balance_for_rent_exemption(size))

    def get_fee_for_message(self, params: list[Any]) -> Any:
        raw = _decode(_param(params, 0), "base64")
        try:
            tx = VersionedTransaction.from_bytes(bytes([0]) + raw)  # a message with no signatures
        except ValueError:
            raise _invalid("Invalid params: invalid message") from None
        if not self.ledger.is_recent(str(tx.message.recent_blockhash)):
            return self._context(None)
        return self._context(self.ledger.fee_for(tx))

    def get_signature_statuses(self, params: list[Any]) -> Any:
        signatures = _param(params, 0)
        if not isinstance(signatures, list) or len(signatures) > MAX_SIGNATURES:
            raise _invalid(f"Invalid params: expected up to {MAX_SIGNATURES} signatures")
        values: list[Any] = []
        for signature in signatures:
            _signature(signature)
            landed = self.ledger.statuses.get(signature)
            if landed is None:
                values.append(None)
                continue
            values.append({
                "slot": landed.slot, "confirmations": None, "err": landed.err,
                "status": {"Ok": None} if landed.err is None else {"Err": landed.err},
                "confirmationStatus": "finalized",
            })
        return self._context(values)

    def get_signatures_for_address(self, params: list[Any]) -> Any:
        """Newest first; `before` / `until` (signatures, exclusive) bound the page, `limit` 1-1000."""
        address = _pubkey(_param(params, 0))
        config = _config(params, 1)
        limit = config.get("limit", MAX_SIGNATURES_FOR_ADDRESS)
        if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= MAX_SIGNATURES_FOR_ADDRESS:
            raise _invalid(f"Invalid limit; max {MAX_SIGNATURES_FOR_ADDRESS}")
        before, until = config.get("before"), config.get("until")
        for bound in (before, until):
            if bound is not None:
                _signature(bound)
        rows = self.ledger.signatures_for(address)
        if before is not None:
            # a signature this ledger does not hold starts nowhere (a node answers [] for it too)
            at = next((i for i, landed in enumerate(rows) if landed.signature == before), len(rows))
            rows = rows[at + 1:]
        if until is not None:
            rows = rows[:next((i for i, landed in enumerate(rows) if landed.signature == until), len(rows))]
        return [{"signature": landed.signature, "slot": landed.slot, "err": landed.err, "memo": None,
                 "blockTime": landed.block_time, "confirmationStatus": "finalized"} for landed in rows[:limit]]

    def get_transaction(self, params: list[Any]) -> Any:
        signature = _param(params, 0)
        _signature(signature)
        config = _config(params, 1) if not isinstance(_param(params, 1), str) else {"encoding": params[1]}
        encoding = config.get("encoding", "json")
        if encoding not in TRANSACTION_ENCODINGS:
            raise _invalid(f"Invalid params: unknown encoding {encoding!r}")
        landed = self.ledger.transactions.get(signature)
        return None if landed is None else transaction_json(landed, encoding)

    # -- writes --------------------------------------------------------------------------------
    def _transaction(self, params: list[Any]) -> tuple[VersionedTransaction, dict[str, Any]]:
        config = _config(params, 1)
        raw = _decode(_param(params, 0), str(config.get("encoding", "base58")))
        try:
            tx = VersionedTransaction.from_bytes(raw)
        except ValueError:
            raise _invalid("failed to deserialize solana_transaction::versioned::VersionedTransaction") from None
        return tx, config

    def send_transaction(self, params: list[Any]) -> Any:
        tx, config = self._transaction(params)
        outcome = self.ledger.send(tx, preflight=not config.get("skipPreflight", False))
        if outcome.err == "SignatureFailure":
            raise RpcError(SIGNATURE_FAILED, "Transaction signature verification failure")
        if outcome.err is not None:
            raise RpcError(PREFLIGHT_FAILED, f"Transaction simulation failed: {_describe(outcome.err)}", {
                "accounts": None, "err": outcome.err, "logs": list(outcome.logs),
                "unitsConsumed": outcome.units, "returnData": None,
            })
        return outcome.signature

    def simulate_transaction(self, params: list[Any]) -> Any:
        tx, _ = self._transaction(params)
        simulated = self.ledger.svm.simulate_transaction(tx)
        meta = simulated.meta()
        err = json.loads(simulated.to_json())["err"] if isinstance(simulated, FailedTransactionMetadata) else None
        return self._context({"err": err, "logs": list(meta.logs()), "accounts": None,
                              "unitsConsumed": int(meta.compute_units_consumed()), "returnData": None})

    def request_airdrop(self, params: list[Any]) -> Any:
        address = _pubkey(_param(params, 0))
        lamports = _param(params, 1)
        if not isinstance(lamports, int) or isinstance(lamports, bool) or not 0 < lamports <= MAX_AIRDROP:
            raise _invalid(f"Invalid params: lamports must be 1 to {MAX_AIRDROP}")
        return self.ledger.airdrop(address, lamports)


def _decode(value: Any, encoding: str) -> bytes:
    if not isinstance(value, str):
        raise _invalid("Invalid params: expected an encoded string")
    try:
        if encoding == "base64":
            return base64.b64decode(value, validate=True)
        if encoding == "base58":
            return bytes(base58.b58decode(value))
    except ValueError:
        raise _invalid(f"Invalid params: invalid {encoding}") from None
    raise _invalid(f"Invalid params: unknown encoding {encoding!r}")


def _signature(value: Any) -> None:
    if not isinstance(value, str):
        raise _invalid("Invalid param: expected a signature string")
    try:
        Signature.from_string(value)
    except ValueError:
        raise _invalid("Invalid param: Invalid") from None


def _describe(err: Any) -> str:
    if isinstance(err, str):
        return {"BlockhashNotFound": "Blockhash not found",
                "AlreadyProcessed": "This transaction has already been processed"}.get(err, err)
    if isinstance(err, dict) and "InstructionError" in err:
        index, detail = err["InstructionError"]
        return f"Error processing Instruction {index}: {detail}"
    return str(err)


def _ui_string(amount: int, decimals: int) -> str:
    if decimals == 0:
        return str(amount)
    whole, frac = divmod(amount, 10**decimals)
    text = f"{whole}.{frac:0{decimals}d}".rstrip("0").rstrip(".")
    return text
