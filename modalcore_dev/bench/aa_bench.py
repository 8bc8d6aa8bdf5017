"""Smart-account figures (issue 32), against real Hardhat nodes and alto started for the run:

- the gas of sending 0.01 ETH as a sponsored UserOperation (the bundle transaction's gasUsed and
  the EntryPoint's actualGasUsed, from the receipts), the first one deploying the account, next
  to a plain EOA transfer's;
- build → sign → send → receipt of one sponsored operation from a deployed account (no Approve:
  the engine's part and the bundler's), p50 over SENDS.
"""

from __future__ import annotations

import asyncio
import time

import httpx
from eth_account import Account
from eth_account.signers.local import LocalAccount

from modalcore.aa.bundler import UserOpReceipt
from modalcore.aa.ledger import SponsorLedger, memory_ledger
from modalcore.aa.policy import SponsorPolicy
from modalcore.aa.send import AaChain, Sponsorship, send_user_operation, wait_receipt
from modalcore.aa.userop import Call, counterfactual_address
from modalcore_dev.bench.parts import Parts
from modalcore_dev.bench.stats import Lines, line, summary
from modalcore_dev.devchain.smart_accounts import paymaster_signer_key

SENDS = 10
CENT = 10**16
POLICY = SponsorPolicy(projects=["bench"], chains=["eip155:31337"])


async def _send(http: httpx.AsyncClient, chain: AaChain, owner: LocalAccount, ledger: SponsorLedger) -> tuple[UserOpReceipt, float]:
    start = time.perf_counter()
    sent = await send_user_operation(http, chain, owner, [Call(Account.create().address, CENT)],
                                     sponsorship=Sponsorship(POLICY, ledger, "bench", "eth_sendTransaction",
                                                             int(time.time() * 1000)))
    receipt = await wait_receipt(http, chain, sent.user_op_hash, poll_s=0.02)
    if not (receipt.success and sent.sponsored):
        raise RuntimeError("the bench's operation failed or was not sponsored")
    return receipt, time.perf_counter() - start


def run(parts: Parts) -> Lines:
    sends = parts.size(SENDS)
    with parts.dev_chains() as chains, parts.bundler(chains) as bundler:
        contracts = chains.chain(31337)["smartAccounts"]
        chain = AaChain("eip155:31337", chains.rpc_urls[31337], bundler, contracts["entryPoint"], contracts["factory"],
                        contracts["paymaster"], Account.from_key(paymaster_signer_key()))
        owner: LocalAccount = Account.create()
        with chains.rpc(31337) as rpc:
            sender = rpc.accounts()[5]
            rpc.transact({"from": sender, "to": counterfactual_address(chain.factory, owner.address), "value": hex(10**18)})
            plain = rpc.transact({"from": sender, "to": Account.create().address, "value": hex(CENT)})

        async def measure() -> tuple[UserOpReceipt, list[UserOpReceipt], list[float]]:
            ledger = memory_ledger()
            async with httpx.AsyncClient() as http:
                first, _ = await _send(http, chain, owner, ledger)
                later, times = [], []
                for _ in range(sends):
                    receipt, took = await _send(http, chain, owner, ledger)
                    later.append(receipt)
                    times.append(took)
                return first, later, times

        first, later, times = asyncio.run(measure())
    eoa = int(plain["gasUsed"], 16)
    stats = summary([t * 1000 for t in times])
    return [
        "smart accounts (the engine's ERC-4337 client alone: ERC-4337 v0.7, alto 0.0.20, Hardhat; gas from receipts)",
        line("plain EOA transfer of 0.01 ETH, gasUsed", f"{eoa:,}", measured=[eoa]),
        line("UserOperation deploying the account + 0.01 ETH, tx gasUsed", f"{first.transaction_gas_used:,} "
             f"(actualGasUsed {first.actual_gas_used:,}; {first.transaction_gas_used / eoa:.1f}× the EOA)",
             measured=[first.transaction_gas_used, first.actual_gas_used]),
        line("UserOperation 0.01 ETH from a deployed account, tx gasUsed", f"{later[0].transaction_gas_used:,} "
             f"(actualGasUsed {later[0].actual_gas_used:,}; {later[0].transaction_gas_used / eoa:.1f}× the EOA)",
             measured=[later[0].transaction_gas_used, later[0].actual_gas_used]),
        line(f"sponsored send → receipt (no Approve), n={sends}",
             f"p50 {stats['p50']:.0f} ms, p90 {stats['p90']:.0f} ms", measured=[stats["p50"], stats["p90"]]),
    ]


if __name__ == "__main__":
    for text in run(Parts()):
        print(text)
