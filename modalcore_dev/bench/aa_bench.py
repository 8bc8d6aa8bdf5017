"""Smart-account figures (issue 32) on the production path (issue 45 item 4): the engine app with
the embedded wallet and smart accounts (sponsored) on a Hardhat chain with a real bundler (alto),
under uvicorn (the same engine as aa-approve), one websocket session signed in by email; every
send is the host's `eth_sendTransaction` from the smart account, approved by the frame's signed
POSTs, built, sponsored and followed to its receipt by the engine.

- the gas of sending 0.01 ETH that way (the bundle transaction's gasUsed and the EntryPoint's
  actualGasUsed, from the receipt of the transaction the engine answered with), the first one
  deploying the account, next to a plain EOA transfer's;
- host request → receipt: the host's request until the approval frame is drawn, the frame's
  Approve, until the host's answer (the whole visitor-facing path less the person), p50 over SENDS.
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from eth_account import Account
from eth_utils.crypto import keccak

from modalcore_dev.bench.aa_approve_bench import FUNDS, smart_engine
from modalcore_dev.bench.embedded_client import TIMEOUT_S, approve, ask, sign_in
from modalcore_dev.bench.parts import Parts
from modalcore_dev.bench.stats import Lines, line, summary
from modalcore_dev.devchain.pytest_plugin import ChainsInfo
from modalcore_dev.devmail import LocalSmtpServer
from modalcore_testing import TEST_ORIGIN, TEST_PROJECT, Client
from modalcore_testing.device import DeviceKey

SENDS = 10
CENT = 10**16
USER_OPERATION_EVENT = "0x" + keccak(text="UserOperationEvent(bytes32,address,address,uint256,bool,uint256,uint256)").hex()


def _gas(chains: ChainsInfo, tx_hash: str) -> tuple[int, int]:
    """(the bundle transaction's gasUsed, the UserOperationEvent's actualGasUsed) from its receipt."""
    with chains.rpc(31337) as rpc:
        receipt: dict[str, Any] = rpc.call("eth_getTransactionReceipt", [tx_hash])
    if receipt is None:
        raise RuntimeError(f"no receipt for the transaction the engine answered with ({tx_hash})")
    events = [log for log in receipt["logs"] if log["topics"] and log["topics"][0] == USER_OPERATION_EVENT]
    if len(events) != 1:
        raise RuntimeError(f"{len(events)} UserOperationEvents in {tx_hash}")
    data = bytes.fromhex(events[0]["data"][2:])  # nonce, success, actualGasCost, actualGasUsed
    if int.from_bytes(data[32:64], "big") != 1:
        raise RuntimeError("the UserOperation failed")
    return int(receipt["gasUsed"], 16), int.from_bytes(data[96:128], "big")


async def _sends(url: str, smtp: LocalSmtpServer, chains: ChainsInfo, count: int) -> tuple[list[str], list[float]]:
    """count + 1 sponsored sends through the engine (the first deploys the account): their
    transaction hashes, and host request → answer for all but the first."""
    hashes: list[str] = []
    times: list[float] = []
    device = DeviceKey()
    async with Client.open(url.replace("http", "ws") + f"/ws?project={TEST_PROJECT}", origin=TEST_ORIGIN,
                           project=TEST_PROJECT) as client, httpx.AsyncClient(base_url=url, timeout=TIMEOUT_S) as http:
        smart = await sign_in(client, http, smtp, device, "bench-aa-gas@example.com", ["eip155:31337"])
        with chains.rpc(31337) as rpc:
            rpc.call("hardhat_setBalance", [smart, hex(FUNDS)])
        for n in range(count + 1):
            await client.quiet(0.02)
            start = time.perf_counter()
            eid = await ask(client, f"t{n}", "eth_sendTransaction",
                            [{"from": smart, "to": Account.create().address, "value": hex(CENT)}])
            answer = await approve(client, http, eid, device)
            if n:
                times.append(1000 * (time.perf_counter() - start))
            hashes.append(str(answer["result"]))
    return hashes, times


def run(parts: Parts) -> Lines:
    sends = parts.size(SENDS)
    smtp = LocalSmtpServer().start()
    try:
        with tempfile.TemporaryDirectory() as folder, parts.dev_chains() as chains, \
                parts.bundler(chains) as bundler, smart_engine(Path(folder), chains, bundler, smtp.port) as (url, _):
            with chains.rpc(31337) as rpc:
                sender = rpc.accounts()[5]
                plain = rpc.transact({"from": sender, "to": Account.create().address, "value": hex(CENT)})
            hashes, times = asyncio.run(_sends(url, smtp, chains, sends))
            first, later = _gas(chains, hashes[0]), _gas(chains, hashes[1])
    finally:
        smtp.stop()
    eoa = int(plain["gasUsed"], 16)
    stats = summary(times)
    return [
        "smart accounts through the engine (engine app under uvicorn, websocket session, signed Approve POST; "
        "ERC-4337 v0.7, alto, Hardhat; gas from receipts)",
        line("plain EOA transfer of 0.01 ETH, gasUsed", f"{eoa:,}", measured=[eoa]),
        line("UserOperation deploying the account + 0.01 ETH, tx gasUsed", f"{first[0]:,} "
             f"(actualGasUsed {first[1]:,}; {first[0] / eoa:.1f}× the EOA)", measured=[first[0], first[1]]),
        line("UserOperation 0.01 ETH from a deployed account, tx gasUsed", f"{later[0]:,} "
             f"(actualGasUsed {later[1]:,}; {later[0] / eoa:.1f}× the EOA)", measured=[later[0], later[1]]),
        line(f"sponsored send: host request → approval frame → Approve → receipt answered, n={sends}",
             f"p50 {stats['p50']:.0f} ms, p90 {stats['p90']:.0f} ms", measured=[stats["p50"], stats["p90"]]),
    ]


if __name__ == "__main__":
    for text in run(Parts()):
        print(text)
