"""The dev chain's state: one LiteSVM plus what an RPC node knows that LiteSVM does not keep
(slots, recent blockhashes, signature statuses).

LiteSVM accepts only its latest blockhash. A node accepts any of the last 150, so the ledger
checks the blockhash itself (LiteSVM's check is off) against the blockhashes it has handed
out, and moves to a new blockhash and slot after every landed transaction, so two identical
transfers sent one after the other are two transactions, as on a real cluster.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from solders.account import Account
from solders.keypair import Keypair
from solders.litesvm import LiteSVM
from solders.message import Message
from solders.pubkey import Pubkey
from solders.signature import Signature
from solders.token.state import Mint, TokenAccount, TokenAccountState
from solders.system_program import TransferParams, transfer
from solders.transaction import Transaction, VersionedTransaction
from solders.transaction_metadata import FailedTransactionMetadata, TransactionMetadata

from modalcore.solana.programs import MINT_SIZE, TOKEN_ACCOUNT_SIZE, TOKEN_PROGRAM
from modalcore.solana.transfers import associated_token_address
from modalcore_dev.solana_devchain.accounts import DEV_ACCOUNTS, DEV_LAMPORTS, DEV_TOKEN, DevToken, dev_keypair

MAX_RECENT_BLOCKHASHES = 150  # a blockhash stays usable for 150 blocks on a cluster
MAX_STATUSES = 100_000  # signature statuses kept (oldest dropped first)
FIRST_SLOT = 1


@dataclass(frozen=True)
class Landed:
    slot: int
    err: Any  # None, or the TransactionError as JSON ({"InstructionError": [0, {...}]}, "...")


@dataclass(frozen=True)
class TokenBalance:
    """A token account's holding around a transaction (`preTokenBalances` / `postTokenBalances`)."""

    index: int  # in the message's account keys
    mint: str
    owner: str
    amount: int
    decimals: int


@dataclass(frozen=True)
class Recorded:
    """A landed transaction as `getTransaction` tells it: what a node keeps in its ledger."""

    signature: str
    slot: int
    block_time: int  # unix seconds
    tx: VersionedTransaction | Transaction
    err: Any
    fee: int
    logs: tuple[str, ...]
    units: int
    pre_balances: tuple[int, ...]
    post_balances: tuple[int, ...]
    pre_tokens: tuple[TokenBalance, ...]
    post_tokens: tuple[TokenBalance, ...]

    @property
    def keys(self) -> Sequence[Pubkey]:
        return self.tx.message.account_keys


@dataclass(frozen=True)
class SendOutcome:
    signature: str
    err: Any = None  # the error when the transaction did not land (simulation failed)
    logs: tuple[str, ...] = ()
    units: int = 0


class LedgerError(ValueError):
    """A request the ledger cannot serve (the RPC layer maps it to a JSON-RPC error)."""


class DevLedger:
    def __init__(self) -> None:
        self.svm = LiteSVM().with_blockhash_check(False)
        self.genesis_hash = str(self.svm.latest_blockhash())
        self.slot = FIRST_SLOT
        self.svm.warp_to_slot(self.slot)
        self._recent: list[tuple[str, int]] = [(self.genesis_hash, self.slot)]  # (hash, slot)
        self.statuses: dict[str, Landed] = {}
        self.transactions: dict[str, Recorded] = {}  # by signature, as many as statuses
        self._by_address: dict[str, list[str]] = {}  # address -> its signatures, oldest first
        self.preload()

    # -- set-up --------------------------------------------------------------------------------
    def preload(self) -> None:
        for index in range(DEV_ACCOUNTS):
            self.svm.airdrop(dev_keypair(index).pubkey(), DEV_LAMPORTS)
        self.add_token(DEV_TOKEN, dev_keypair(0))

    def add_token(self, token: DevToken, holder: Keypair) -> None:
        mint = Mint(mint_authority=holder.pubkey(), supply=token.supply, decimals=token.decimals,
                    is_initialized=True, freeze_authority=None)
        self._set(token.mint, bytes(mint), TOKEN_PROGRAM, MINT_SIZE)
        holding = TokenAccount(
            mint=token.mint, owner=holder.pubkey(), amount=token.supply, delegate=None,
            state=TokenAccountState.Initialized, is_native=None, delegated_amount=0, close_authority=None)
        self._set(associated_token_address(holder.pubkey(), token.mint), bytes(holding), TOKEN_PROGRAM,
                  TOKEN_ACCOUNT_SIZE)

    def _set(self, address: Pubkey, data: bytes, owner: Pubkey, size: int) -> None:
        lamports = self.svm.minimum_balance_for_rent_exemption(size)
        self.svm.set_account(address, Account(lamports=lamports, data=data, owner=owner,
                                              executable=False, rent_epoch=0))

    # -- chain progress ------------------------------------------------------------------------
    @property
    def blockhash(self) -> str:
        return self._recent[-1][0]

    @property
    def last_valid_block_height(self) -> int:
        return self._recent[-1][1] + MAX_RECENT_BLOCKHASHES

    def is_recent(self, blockhash: str) -> bool:
        return any(known == blockhash for known, _ in self._recent)

    def _advance(self) -> None:
        self.slot += 1
        self.svm.warp_to_slot(self.slot)
        self.svm.expire_blockhash()
        self._recent.append((str(self.svm.latest_blockhash()), self.slot))
        del self._recent[:-MAX_RECENT_BLOCKHASHES]

    def _record(self, signature: str, err: Any, landed: Recorded | None = None) -> None:
        self.statuses[signature] = Landed(self.slot, err)
        if landed is not None:
            self.transactions[signature] = landed
            for key in {str(k) for k in landed.keys}:
                self._by_address.setdefault(key, []).append(signature)
        while len(self.statuses) > MAX_STATUSES:
            oldest = next(iter(self.statuses))
            del self.statuses[oldest]
            dropped = self.transactions.pop(oldest, None)
            for key in {str(k) for k in dropped.keys} if dropped else ():
                self._by_address[key] = [sig for sig in self._by_address[key] if sig != oldest]

    def signatures_for(self, address: Pubkey) -> list[Recorded]:
        """The landed transactions naming `address` among their accounts, newest first."""
        return [self.transactions[sig] for sig in reversed(self._by_address.get(str(address), ()))
                if sig in self.transactions]

    def _token_balances(self, keys: Sequence[Pubkey]) -> tuple[TokenBalance, ...]:
        found = []
        for index, key in enumerate(keys):
            account = self.svm.get_account(key)
            if account is None or account.owner != TOKEN_PROGRAM or len(account.data) != TOKEN_ACCOUNT_SIZE:
                continue
            state = TokenAccount.from_bytes(bytes(account.data))
            found.append(TokenBalance(index, str(state.mint), str(state.owner), int(state.amount),
                                      self.mint_decimals(state.mint)))
        return tuple(found)

    def _before(self, keys: Sequence[Pubkey]) -> tuple[tuple[int, ...], tuple[TokenBalance, ...]]:
        return tuple(self.balance(k) for k in keys), self._token_balances(keys)

    def _landed(self, signature: str, tx: VersionedTransaction | Transaction, err: Any, fee: int,
                before: tuple[tuple[int, ...], tuple[TokenBalance, ...]], logs: tuple[str, ...] = (),
                units: int = 0) -> Recorded:
        keys = tx.message.account_keys
        return Recorded(signature, self.slot, int(time.time()), tx, err, fee, logs, units, before[0],
                        tuple(self.balance(k) for k in keys), before[1], self._token_balances(keys))

    # -- what the RPC methods use --------------------------------------------------------------
    def balance(self, address: Pubkey) -> int:
        return int(self.svm.get_balance(address) or 0)

    def account(self, address: Pubkey) -> Account | None:
        account = self.svm.get_account(address)
        if account is None or (account.lamports == 0 and not account.data):
            return None
        return account

    def token_accounts(self, owner: Pubkey, mint: Pubkey | None) -> list[tuple[Pubkey, Account, TokenAccount]]:
        found = []
        for address, account in self.svm.get_program_accounts(TOKEN_PROGRAM):
            if len(account.data) != TOKEN_ACCOUNT_SIZE:
                continue
            state = TokenAccount.from_bytes(bytes(account.data))
            if state.owner == owner and (mint is None or state.mint == mint):
                found.append((address, account, state))
        return sorted(found, key=lambda row: str(row[0]))

    def mint_decimals(self, mint: Pubkey) -> int:
        account = self.svm.get_account(mint)
        if account is None or len(account.data) != MINT_SIZE:
            raise LedgerError(f"not a mint: {mint}")
        return int(Mint.from_bytes(bytes(account.data)).decimals)

    def fee_for(self, tx: VersionedTransaction) -> int:
        return 5000 * int(tx.message.header.num_required_signatures)

    def send(self, tx: VersionedTransaction, *, preflight: bool) -> SendOutcome:
        signature = str(tx.signatures[0]) if tx.signatures else str(Signature.default())
        if not self.is_recent(str(tx.message.recent_blockhash)):
            return SendOutcome(signature, "BlockhashNotFound")
        if signature in self.statuses:
            return SendOutcome(signature, "AlreadyProcessed")
        if preflight:
            simulated = self.svm.simulate_transaction(tx)
            if isinstance(simulated, FailedTransactionMetadata):
                meta = simulated.meta()
                return SendOutcome(signature, _err_json(simulated), tuple(meta.logs()),
                                   int(meta.compute_units_consumed()))
        before = self._before(tx.message.account_keys)
        result = self.svm.send_transaction(tx)
        if isinstance(result, TransactionMetadata):
            logs, units = tuple(result.logs()), int(result.compute_units_consumed())
            self._record(signature, None, self._landed(signature, tx, None, self.fee_for(tx), before, logs, units))
            self._advance()
            return SendOutcome(signature, None, logs, units)
        err = _err_json(result)
        if err in ("AlreadyProcessed", "BlockhashNotFound", "SignatureFailure", "SanitizeFailure"):
            return SendOutcome(signature, err)  # rejected before execution: nothing landed
        # landed and failed: the fee is charged, the status says why
        meta = result.meta()
        self._record(signature, err, self._landed(signature, tx, err, self.fee_for(tx), before,
                                                  tuple(meta.logs()), int(meta.compute_units_consumed())))
        self._advance()
        return SendOutcome(signature, None)

    def airdrop(self, address: Pubkey, lamports: int) -> str:
        faucet = self.svm.airdrop_pubkey()
        # the faucet's transfer as the ledger tells it (LiteSVM keeps no transaction of it)
        told = Transaction.new_unsigned(Message.new_with_blockhash(
            [transfer(TransferParams(from_pubkey=faucet, to_pubkey=address, lamports=lamports))], faucet,
            self.svm.latest_blockhash()))
        before = self._before(told.message.account_keys)
        result = self.svm.airdrop(address, lamports)
        if not isinstance(result, TransactionMetadata):
            raise LedgerError(f"airdrop failed: {_err_json(result)}")
        signature = str(result.signature())
        told = Transaction.populate(told.message, [result.signature()])
        self._record(signature, None, self._landed(signature, told, None, 5000, before, tuple(result.logs())))
        self._advance()
        return signature


def _err_json(failed: FailedTransactionMetadata) -> Any:
    """A TransactionError in the RPC's JSON form ("AlreadyProcessed", {"InstructionError": ...})."""
    return json.loads(failed.to_json())["err"]
