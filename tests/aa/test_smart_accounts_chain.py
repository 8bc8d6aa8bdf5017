"""ERC-4337 on the dev chains with a real bundler (alto): the engine's UserOperations deploy a
counterfactual account, are sponsored by the verifying paymaster when the policy allows, paid by
the account when it does not, and refused (nothing sent) when malformed, for a chain without
smart accounts, or past the day's budget."""

from __future__ import annotations

import subprocess
import time

import httpx
import pytest
from eth_abi.abi import encode
from eth_account import Account
from eth_account.signers.local import LocalAccount
from eth_typing import Hash32
from eth_utils.crypto import keccak

from modalcore.aa.bundler import BundlerClient, BundlerError
from modalcore.aa.config import SmartAccountsSection
from modalcore.aa.ledger import SponsorLedger, memory_ledger
from modalcore.aa.policy import SponsorPolicy
from modalcore.aa.send import AaChain, Sponsorship, UserOpRefused, chain_of, send_user_operation, wait_receipt
from modalcore.aa.userop import ENTRY_POINT_V07, Call, UserOperation, counterfactual_address, user_op_hash
from modalcore_dev.devchain.pytest_plugin import AaChains
from modalcore_dev.devchain.smart_accounts import paymaster_signer_key

pytestmark = pytest.mark.chain

ONE_ETH = 10**18
CENT = 10**16  # 0.01 ETH
USER_OPERATION_EVENT = "0x" + keccak(
    text="UserOperationEvent(bytes32,address,address,uint256,bool,uint256,uint256)").hex()
ERC1271_MAGIC = "0x1626ba7e"


def _chain(aa: AaChains, chain_id: int = 31337) -> AaChain:
    parts = aa.smart_accounts(chain_id)
    return AaChain(f"eip155:{chain_id}", aa.chains.rpc_urls[chain_id], aa.bundler_urls[chain_id],
                   parts["entryPoint"], parts["factory"], parts["paymaster"], Account.from_key(paymaster_signer_key()))


def _funded_owner(aa: AaChains, chain: AaChain, wei: int = ONE_ETH) -> tuple[LocalAccount, str]:
    owner: LocalAccount = Account.create()
    account = counterfactual_address(chain.factory, owner.address)
    with aa.chains.rpc(chain.chain_id) as rpc:
        rpc.transact({"from": rpc.accounts()[5], "to": account, "value": hex(wei)})
    return owner, account


def _sponsorship(policy: SponsorPolicy | None, ledger: SponsorLedger | None = None) -> Sponsorship:
    return Sponsorship(policy, ledger or memory_ledger(), "demo", "eth_sendTransaction", int(time.time() * 1000))


def _state(aa: AaChains, chain_id: int, *addresses: str) -> list[tuple[int, str]]:
    with aa.chains.rpc(chain_id) as rpc:
        return [(rpc.balance(a), rpc.code(a)) for a in addresses]


SPONSOR_DEMO = SponsorPolicy(projects=["demo"], chains=["eip155:31337"])


def test_the_counterfactual_address_is_the_factorys_get_address(aachains: AaChains) -> None:
    owner = Account.create().address
    for chain_id in aachains.chains.chain_ids:
        factory = aachains.smart_accounts(chain_id)["factory"]
        with aachains.chains.rpc(chain_id) as rpc:
            for salt in (0, 1, 2**200):
                (expected,) = rpc.eth_call(factory, "getAddress(address,uint256)", [owner, salt], returns=["address"])
                assert counterfactual_address(factory, owner, salt).lower() == expected.lower()


def test_the_hash_is_the_entry_points_get_user_op_hash(aachains: AaChains) -> None:
    op = UserOperation(sender=Account.create().address, nonce=3, call_data=b"\x01", factory=aachains.smart_accounts(31337)["factory"],
                       factory_data=b"\x02" * 5, call_gas_limit=7, verification_gas_limit=8, pre_verification_gas=9,
                       max_fee_per_gas=10, max_priority_fee_per_gas=11, paymaster=aachains.smart_accounts(31337)["paymaster"],
                       paymaster_verification_gas_limit=12, paymaster_post_op_gas_limit=13, paymaster_data=b"\x03")
    packed = (op.sender, op.nonce, op.init_code, op.call_data, op.account_gas_limits, op.pre_verification_gas,
              op.gas_fees, op.paymaster_and_data, op.signature)
    data = keccak(text="getUserOpHash((address,uint256,bytes,bytes,bytes32,uint256,bytes32,bytes,bytes))")[:4] + encode(
        ["(address,uint256,bytes,bytes,bytes32,uint256,bytes32,bytes,bytes)"], [packed])
    for chain_id in aachains.chains.chain_ids:
        with aachains.chains.rpc(chain_id) as rpc:
            result = rpc.call("eth_call", [{"to": ENTRY_POINT_V07, "data": "0x" + data.hex()}, "latest"])
        assert result == "0x" + user_op_hash(op, ENTRY_POINT_V07, chain_id).hex()


def test_the_bundlers_listen_on_loopback_only(aachains: AaChains) -> None:
    for url in aachains.bundler_urls.values():
        port = url.rsplit(":", 1)[1]
        listening = subprocess.run(["ss", "-ltnH", f"sport = :{port}"], capture_output=True, text=True,
                                   check=True).stdout.split()
        assert f"127.0.0.1:{port}" in listening and f"0.0.0.0:{port}" not in listening and f"*:{port}" not in listening


async def test_the_bundler_supports_entry_point_v07(aachains: AaChains) -> None:
    async with httpx.AsyncClient() as http:
        for url in aachains.bundler_urls.values():
            assert await BundlerClient(http, url).supported_entry_points() == [ENTRY_POINT_V07]


async def test_a_sponsored_operation_deploys_the_account_and_sends_a_hundredth_of_an_eth(aachains: AaChains) -> None:
    chain = _chain(aachains)
    owner, account = _funded_owner(aachains, chain)
    recipient = Account.create().address
    async with httpx.AsyncClient() as http:
        sent = await send_user_operation(http, chain, owner, [Call(recipient, CENT)], sponsorship=_sponsorship(SPONSOR_DEMO))
        receipt = await wait_receipt(http, chain, sent.user_op_hash)
        lookup = await BundlerClient(http, chain.bundler_url).get_user_operation_by_hash(sent.user_op_hash)
    assert (sent.sponsored, sent.sender, receipt.success, receipt.paymaster) == (True, account, True, chain.paymaster)
    assert lookup is not None
    assert (lookup.user_operation, lookup.transaction_hash) == (sent.user_operation, receipt.transaction_hash)
    [(account_balance, code), (recipient_balance, _)] = _state(aachains, 31337, account, recipient)
    assert (account_balance, recipient_balance) == (ONE_ETH - CENT, CENT)  # no gas paid by the account
    assert code not in ("0x", "")
    with aachains.chains.rpc(31337) as rpc:
        tx = rpc.call("eth_getTransactionReceipt", [receipt.transaction_hash])
        digest = Hash32(keccak(b"any message"))
        (valid,) = rpc.eth_call(account, "isValidSignature(bytes32,bytes)",
                                [digest, bytes(owner.unsafe_sign_hash(digest).signature)], returns=["bytes4"])
        (invalid,) = rpc.eth_call(account, "isValidSignature(bytes32,bytes)",
                                  [digest, bytes(Account.create().unsafe_sign_hash(digest).signature)], returns=["bytes4"])
    assert [log["topics"][1] for log in tx["logs"] if log["topics"][0] == USER_OPERATION_EVENT] == [sent.user_op_hash]
    assert ("0x" + bytes(valid).hex(), "0x" + bytes(invalid).hex()) == (ERC1271_MAGIC, "0xffffffff")


async def test_a_policy_that_refuses_sponsorship_makes_the_account_pay_its_gas(aachains: AaChains) -> None:
    chain = _chain(aachains)
    owner, account = _funded_owner(aachains, chain)
    recipient = Account.create().address
    other_project = SponsorPolicy(projects=["another"], chains=["eip155:31337"])
    async with httpx.AsyncClient() as http:
        sent = await send_user_operation(http, chain, owner, [Call(recipient, CENT)], sponsorship=_sponsorship(other_project))
        receipt = await wait_receipt(http, chain, sent.user_op_hash)
    assert (sent.sponsored, sent.not_sponsored, receipt.success, receipt.paymaster) == (False, "project", True, None)
    [(account_balance, _), (recipient_balance, _)] = _state(aachains, 31337, account, recipient)
    with aachains.chains.rpc(31337) as rpc:  # the prefund's unused part is refunded to the account's deposit
        (deposit,) = rpc.eth_call(ENTRY_POINT_V07, "balanceOf(address)", [account], returns=["uint256"])
    assert receipt.actual_gas_cost > 0
    assert (account_balance + deposit, recipient_balance) == (ONE_ETH - CENT - receipt.actual_gas_cost, CENT)


async def test_a_spent_budget_refuses_the_operation_and_sends_nothing(aachains: AaChains) -> None:
    chain = _chain(aachains)
    owner, account = _funded_owner(aachains, chain)
    recipient = Account.create().address
    tiny = SponsorPolicy(projects=["demo"], chains=["eip155:31337"], budget_wei_per_day=1)
    ledger = memory_ledger()
    async with httpx.AsyncClient() as http:
        with pytest.raises(UserOpRefused) as caught:
            await send_user_operation(http, chain, owner, [Call(recipient, CENT)], sponsorship=_sponsorship(tiny, ledger))
    assert (caught.value.reason, caught.value.kind) == ("budget_spent", "rejected")
    assert _state(aachains, 31337, account, recipient) == [(ONE_ETH, "0x"), (0, "0x")]
    assert ledger.spent("eip155:31337", account, int(time.time() * 1000)) == 0


async def test_the_budget_is_charged_per_account_and_day(aachains: AaChains) -> None:
    chain = _chain(aachains)
    owner, account = _funded_owner(aachains, chain)
    ledger = memory_ledger()
    async with httpx.AsyncClient() as http:
        sent = await send_user_operation(http, chain, owner, [Call(Account.create().address, 1)],
                                         sponsorship=_sponsorship(SPONSOR_DEMO, ledger))
        await wait_receipt(http, chain, sent.user_op_hash)
    charged = ledger.spent("eip155:31337", account, int(time.time() * 1000))
    assert sent.sponsored and charged is not None and charged > 0
    budget = SponsorPolicy(projects=["demo"], chains=["eip155:31337"], budget_wei_per_day=charged + 1)
    async with httpx.AsyncClient() as http:
        with pytest.raises(UserOpRefused):
            await send_user_operation(http, chain, owner, [Call(Account.create().address, 1)],
                                      sponsorship=_sponsorship(budget, ledger))


async def test_a_badly_signed_operation_is_refused_by_the_bundler_and_not_mined(aachains: AaChains) -> None:
    chain = _chain(aachains)
    owner, account = _funded_owner(aachains, chain)
    async with httpx.AsyncClient() as http:
        sent = await send_user_operation(http, chain, owner, [Call(Account.create().address, 1)])
        await wait_receipt(http, chain, sent.user_op_hash)
        forged = sent.user_operation.with_(nonce=1)
        forged = forged.with_(signature=bytes(Account.create().unsafe_sign_hash(
            Hash32(keccak(b"\x19Ethereum Signed Message:\n32" + user_op_hash(forged, ENTRY_POINT_V07, 31337)))).signature))
        with pytest.raises(BundlerError) as caught:
            await BundlerClient(http, chain.bundler_url).send_user_operation(forged, ENTRY_POINT_V07)
    assert (caught.value.reason, caught.value.kind) == ("rpc_error", "rejected")
    assert caught.value.code is not None
    with aachains.chains.rpc(31337) as rpc:
        (nonce,) = rpc.eth_call(ENTRY_POINT_V07, "getNonce(address,uint192)", [account, 0], returns=["uint256"])
    assert nonce == 1


def _recording_client(seen: list[httpx.Request]) -> httpx.AsyncClient:
    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(500)
    return httpx.AsyncClient(transport=httpx.MockTransport(handle))


async def test_malformed_calls_are_refused_before_anything_is_sent(aachains: AaChains) -> None:
    seen: list[httpx.Request] = []
    chain = _chain(aachains)
    async with _recording_client(seen) as http:
        for calls in ([Call("bob.eth", 1)], [], [Call(chain.factory, -1)], [Call(chain.factory, 0, b"\x00" * 70_000)]):
            with pytest.raises(UserOpRefused) as caught:
                await send_user_operation(http, chain, Account.create(), calls, sponsorship=_sponsorship(SPONSOR_DEMO))
            assert (caught.value.reason, caught.value.kind) == ("malformed_call", "invalid")
    assert seen == []


def test_a_chain_without_smart_accounts_is_refused(aachains: AaChains) -> None:
    parts = aachains.smart_accounts(31337)
    section = SmartAccountsSection.model_validate({"chains": {"eip155:31337": {
        "bundler_url": aachains.bundler_urls[31337], "factory": parts["factory"]}}})
    with pytest.raises(UserOpRefused) as caught:
        chain_of(section, "eip155:1", "http://127.0.0.1:1")
    assert caught.value.reason == "unsupported_chain"
    configured = chain_of(section, "eip155:31337", aachains.chains.rpc_urls[31337])
    assert (configured.chain_id, configured.paymaster, configured.entry_point) == (31337, None, ENTRY_POINT_V07)




def test_the_paymaster_hash_is_the_verifying_paymasters_get_hash(aachains: AaChains) -> None:
    from modalcore.aa.paymaster import verifying_paymaster_hash
    paymaster = aachains.smart_accounts(31337)["paymaster"]
    op = UserOperation(sender=Account.create().address, nonce=4, call_data=b"\x05", factory=aachains.smart_accounts(31337)["factory"],
                       factory_data=b"\x06", call_gas_limit=1, verification_gas_limit=2, pre_verification_gas=3,
                       max_fee_per_gas=4, max_priority_fee_per_gas=5, paymaster=paymaster,
                       paymaster_verification_gas_limit=6, paymaster_post_op_gas_limit=7, paymaster_data=b"\x00" * 64)
    packed = (op.sender, op.nonce, op.init_code, op.call_data, op.account_gas_limits, op.pre_verification_gas,
              op.gas_fees, op.paymaster_and_data, op.signature)
    data = keccak(text="getHash((address,uint256,bytes,bytes,bytes32,uint256,bytes32,bytes,bytes),uint48,uint48)")[:4] + encode(
        ["(address,uint256,bytes,bytes,bytes32,uint256,bytes32,bytes,bytes)", "uint48", "uint48"], [packed, 1000, 10])
    with aachains.chains.rpc(31337) as rpc:
        result = rpc.call("eth_call", [{"to": paymaster, "data": "0x" + data.hex()}, "latest"])
    assert result == "0x" + verifying_paymaster_hash(op, paymaster, 31337, 1000, 10).hex()


async def test_a_chain_without_a_paymaster_has_the_account_pay(aachains: AaChains) -> None:
    chain = _chain(aachains)
    chain = AaChain(chain.caip2, chain.rpc_url, chain.bundler_url, chain.entry_point, chain.factory)
    owner, account = _funded_owner(aachains, chain)
    async with httpx.AsyncClient() as http:
        sent = await send_user_operation(http, chain, owner, [Call(Account.create().address, CENT)],
                                         sponsorship=_sponsorship(SPONSOR_DEMO))
        receipt = await wait_receipt(http, chain, sent.user_op_hash)
    assert (sent.sponsored, sent.not_sponsored, receipt.success, receipt.paymaster) == (False, "no_paymaster", True, None)
