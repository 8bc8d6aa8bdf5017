"""The local Solana dev chain (LiteSVM behind JSON-RPC), driven through the engine's own Solana
client: the request and response shapes of a real node, exact balance deltas, refusals."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from solders.hash import Hash
from solders.keypair import Keypair
from solders.signature import Signature
from solders.transaction import Transaction

from modalcore.chains.catalog import SOLANA_LOCAL, catalog
from modalcore.services.backend.jsonrpc import RpcCallError
from modalcore.services.backend.solana_rpc import SolanaRpc
from modalcore_dev.solana_devchain.accounts import DEV_LAMPORTS, DEV_TOKEN, dev_keypair
from modalcore_dev.solana_devchain.process import SolanaDevchain
from modalcore_dev.solana_devchain.rpc import MAX_SIGNATURES
from modalcore.solana.transfers import sol_transfer_instructions, unsigned_transaction

from .helpers import SOL, b64, fee_of, funded, signed_sol_transfer, signed_spl_transfer

RENT_EXEMPT_EMPTY = 890_880  # lamports for a 0-byte account


@pytest.fixture
async def rpc(solana_devchain: SolanaDevchain) -> AsyncIterator[SolanaRpc]:
    async with httpx.AsyncClient() as http:
        yield SolanaRpc(http, solana_devchain.rpc_url)


async def test_genesis_hash_names_the_chain(rpc: SolanaRpc, solana_devchain: SolanaDevchain) -> None:
    genesis = await rpc.genesis_hash()
    assert solana_devchain.caip2 == f"solana:{genesis[:32]}"
    assert len(genesis) >= 32


async def test_preloaded_dev_account_and_token(rpc: SolanaRpc) -> None:
    holder = str(dev_keypair(3).pubkey())  # no test spends from account 3
    assert await rpc.balance(holder) == DEV_LAMPORTS
    tokens = await rpc.token_balances(str(dev_keypair(0).pubkey()))
    assert str(DEV_TOKEN.mint) in tokens
    assert await rpc.account_exists(str(DEV_TOKEN.mint))
    assert not await rpc.account_exists(str(Keypair().pubkey()))


async def test_rent_exempt_minimum(rpc: SolanaRpc) -> None:
    assert await rpc.minimum_balance_for_rent_exemption(0) == RENT_EXEMPT_EMPTY


async def test_sol_transfer_exact_to_the_lamport(rpc: SolanaRpc) -> None:
    sender = await funded(rpc)
    receiver = Keypair().pubkey()
    before = await rpc.balance(str(sender.pubkey()))
    tx = await signed_sol_transfer(rpc, sender, receiver, SOL // 4)
    fee = await fee_of(rpc, tx)
    signature = await rpc.send_transaction(b64(tx))
    assert signature == str(tx.signatures[0])
    [status] = await rpc.signature_statuses([signature])
    assert status is not None and status.err is None and status.confirmation == "finalized"
    assert fee == 5000
    assert await rpc.balance(str(sender.pubkey())) == before - SOL // 4 - fee
    assert await rpc.balance(str(receiver)) == SOL // 4


async def test_the_same_transfer_twice_lands_twice(rpc: SolanaRpc) -> None:
    sender = await funded(rpc)
    receiver = Keypair().pubkey()
    for _ in range(2):
        tx = await signed_sol_transfer(rpc, sender, receiver, SOL)
        await rpc.send_transaction(b64(tx))
    assert await rpc.balance(str(receiver)) == 2 * SOL


async def test_spl_transfer_creates_the_receivers_token_account(rpc: SolanaRpc) -> None:
    sender = dev_keypair(1)
    holder = dev_keypair(0)
    # give dev account 1 some tokens first (account 0 holds the supply)
    await rpc.send_transaction(b64(await signed_spl_transfer(
        rpc, holder, sender.pubkey(), DEV_TOKEN.mint, 50 * 10**6, DEV_TOKEN.decimals)))
    receiver = Keypair().pubkey()
    sol_before = await rpc.balance(str(sender.pubkey()))
    tokens_before = (await rpc.token_balances(str(sender.pubkey())))[str(DEV_TOKEN.mint)]
    tx = await signed_spl_transfer(rpc, sender, receiver, DEV_TOKEN.mint, 1_234_567, DEV_TOKEN.decimals)
    fee = await fee_of(rpc, tx)
    await rpc.send_transaction(b64(tx))
    rent = await rpc.minimum_balance_for_rent_exemption(165)
    assert await rpc.balance(str(sender.pubkey())) == sol_before - fee - rent
    assert (await rpc.token_balances(str(sender.pubkey())))[str(DEV_TOKEN.mint)] == tokens_before - 1_234_567
    assert await rpc.token_balances(str(receiver)) == {str(DEV_TOKEN.mint): 1_234_567}


async def test_first_transfer_below_rent_minimum_is_refused_by_preflight(rpc: SolanaRpc) -> None:
    sender = await funded(rpc)
    before = await rpc.balance(str(sender.pubkey()))
    tx = await signed_sol_transfer(rpc, sender, Keypair().pubkey(), RENT_EXEMPT_EMPTY - 1)
    with pytest.raises(RpcCallError) as refused:
        await rpc.send_transaction(b64(tx))
    assert refused.value.code == -32002
    assert refused.value.message.startswith("Transaction simulation failed")
    assert await rpc.balance(str(sender.pubkey())) == before
    assert await rpc.signature_statuses([str(tx.signatures[0])]) == [None]


async def test_tampered_signature_is_refused(rpc: SolanaRpc) -> None:
    sender = await funded(rpc)
    tx = await signed_sol_transfer(rpc, sender, Keypair().pubkey(), SOL)
    forged = Transaction.populate(tx.message, [Signature(bytes(64))])
    with pytest.raises(RpcCallError) as refused:
        await rpc.send_transaction(b64(forged))
    assert refused.value.code == -32003


async def test_unknown_blockhash_is_refused(rpc: SolanaRpc) -> None:
    sender = await funded(rpc)
    stale = unsigned_transaction(sol_transfer_instructions(sender.pubkey(), Keypair().pubkey(), SOL),
                                 sender.pubkey(), Hash.new_unique())
    stale.sign([sender], stale.message.recent_blockhash)
    before = await rpc.balance(str(sender.pubkey()))
    with pytest.raises(RpcCallError) as refused:
        await rpc.send_transaction(b64(stale))
    assert refused.value.code == -32002 and "Blockhash not found" in refused.value.message
    assert await rpc.balance(str(sender.pubkey())) == before


async def test_bad_params_and_methods(rpc: SolanaRpc, solana_devchain: SolanaDevchain) -> None:
    with pytest.raises(RpcCallError) as bad:
        await rpc.balance("not-base58!")
    assert bad.value.code == -32602
    with pytest.raises(RpcCallError) as unknown:
        await rpc.request("eth_chainId", [])
    assert unknown.value.code == -32601
    with pytest.raises(RpcCallError):
        await rpc.signature_statuses(["1" * 88] * (MAX_SIGNATURES + 1))


async def test_batch_requests(solana_devchain: SolanaDevchain) -> None:
    body = [{"jsonrpc": "2.0", "id": i, "method": m, "params": []}
            for i, m in enumerate(["getHealth", "getSlot", "nope"])]
    async with httpx.AsyncClient() as http:
        answers = (await http.post(solana_devchain.rpc_url, json=body)).json()
    assert [a.get("result") for a in answers][0] == "ok"
    assert isinstance(answers[1]["result"], int)
    assert answers[2]["error"]["code"] == -32601


def test_the_catalogue_names_the_dev_chain_by_its_genesis_hash(solana_devchain: SolanaDevchain) -> None:
    assert solana_devchain.caip2 == SOLANA_LOCAL
    [token] = catalog()[SOLANA_LOCAL].tokens
    assert token.address == str(DEV_TOKEN.mint) and token.decimals == DEV_TOKEN.decimals
