"""Approval-view time with and without simulation (issue 43 item 1): the host's
`eth_sendTransaction` (0.25 ETH to a dev account) until the approval frame is in the tree, its
page fetched and its challenge answered with the settled approval tree (what the frame draws:
`POST /embedded/approve/begin` waits for the outcome, flows/simulation.py).

- with simulation: the engine's network is an Anvil node, which answers `eth_simulateV1`
  (the outcome simulated by the network);
- without: the engine's network is a Hardhat node, which does not simulate (the outcome
  estimated from the call data after the node's refusal);
- a smart account's send (one UserOperation) on Hardhat with the bundler (alto): the outcome
  estimated from the call data, with the bundler's check (eth_estimateUserOperationGas through
  the EntryPoint) and its fee, sponsored.

Each round is a new websocket session signed in by email (local SMTP), as embedded_bench.py's.
"""

from __future__ import annotations

import asyncio
import base64
import tempfile
import time
from pathlib import Path

import httpx

from modalcore.embedded.approval_tree import read
from modalcore.simulation.userop import CHECKED
from modalcore_dev.bench.aa_approve_bench import FUNDS, smart_engine
from modalcore_dev.bench.embedded_bench import _engine, _ms
from modalcore_dev.bench.embedded_client import TIMEOUT_S, ask, begin, sign_in
from modalcore_testing.device import DeviceKey
from modalcore_dev.bench.parts import Parts
from modalcore_dev.bench.stats import Lines
from modalcore_dev.devchain.anvil import ANVIL_NAME, start_anvil
from modalcore_dev.devchain.deploy import deploy_chain
from modalcore_dev.devchain.pytest_plugin import ChainsInfo
from modalcore_dev.devmail import LocalSmtpServer
from modalcore_testing import TEST_ORIGIN, TEST_PROJECT, Client, RunningServer

ROUNDS = 40
TO = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"


async def _measure(engine: RunningServer, smtp: LocalSmtpServer, rounds: int, tag: str,
                   fund: str = "") -> tuple[list[float], str]:
    took: list[float] = []
    status = ""
    async with httpx.AsyncClient(base_url=engine.http_url, timeout=TIMEOUT_S) as http:
        for i in range(rounds):
            device = DeviceKey()
            async with engine.client() as client:
                address = await sign_in(client, http, smtp, device, f"sim-{tag}-{i}@example.com", ["eip155:31337"])
                if fund:  # a funded account: the node simulates (an empty one: "cannot pay")
                    await http.post(fund, json={"jsonrpc": "2.0", "id": 1, "method": "anvil_setBalance",
                                                "params": [address, hex(10**18)]})
                await client.quiet(0.05)
                start = time.perf_counter()
                eid = await ask(client, "t", "eth_sendTransaction",
                                [{"from": address, "to": TO, "value": hex(25 * 10**16)}])
                page = await http.get(f"/embedded/approve?session={client.session}&request={eid}")
                begun = await begin(client, http, eid, device)
                took.append(1000 * (time.perf_counter() - start))
                if page.status_code != 200 or "tree" not in begun:
                    raise RuntimeError(f"the approval frame answered {page.status_code} {begun}")
                status = _status(begun["tree"])
    return took, status


async def _measure_smart(url: str, smtp: LocalSmtpServer, chains: ChainsInfo, rounds: int) -> tuple[list[float], int]:
    """As `_measure`, from the smart account (funded, sponsored: each round's operation is
    checked by the bundler, never sent); how many rounds had the bundler's check within the 1.5 s."""
    took: list[float] = []
    checked = 0
    async with httpx.AsyncClient(base_url=url, timeout=TIMEOUT_S) as http:
        for i in range(rounds):
            device = DeviceKey()
            async with Client.open(url.replace("http", "ws") + f"/ws?project={TEST_PROJECT}", origin=TEST_ORIGIN,
                                   project=TEST_PROJECT) as client:
                smart = await sign_in(client, http, smtp, device, f"sim-smart-{i}@example.com", ["eip155:31337"])
                with chains.rpc(31337) as rpc:
                    rpc.call("hardhat_setBalance", [smart, hex(FUNDS)])
                await client.quiet(0.05)
                start = time.perf_counter()
                eid = await ask(client, "t", "eth_sendTransaction", [{"from": smart, "to": TO, "value": hex(10**16)}])
                page = await http.get(f"/embedded/approve?session={client.session}&request={eid}")
                begun = await begin(client, http, eid, device)
                took.append(1000 * (time.perf_counter() - start))
                if page.status_code != 200 or "tree" not in begun:
                    raise RuntimeError(f"the approval frame answered {page.status_code} {begun}")
                checked += _note(begun["tree"]).endswith(CHECKED)
    return took, checked


def _note(tree_b64: str) -> str:
    tree = read(base64.urlsafe_b64decode(tree_b64 + "=" * (-len(tree_b64) % 4)))
    return str((tree["outcome"] or {}).get("note", ""))


def _status(tree_b64: str) -> str:
    tree = read(base64.urlsafe_b64decode(tree_b64 + "=" * (-len(tree_b64) % 4)))
    return str((tree["outcome"] or {}).get("status", "none"))


def run(parts: Parts) -> Lines:
    rounds = parts.size(ROUNDS)
    smtp = LocalSmtpServer().start()
    anvil = start_anvil(31337)
    try:
        anvil_chain = ChainsInfo({31337: anvil.rpc_url}, {"31337": deploy_chain(anvil.rpc_url)})
        with tempfile.TemporaryDirectory() as folder, _engine(Path(folder), anvil_chain, smtp.port, {31337: ANVIL_NAME}) as engine:
            simulated, with_status = asyncio.run(_measure(engine, smtp, rounds, "anvil", anvil.rpc_url))
        with tempfile.TemporaryDirectory() as folder, parts.dev_chains() as chains, \
                _engine(Path(folder), ChainsInfo({31337: chains.rpc_urls[31337]}, chains.deployment), smtp.port) as engine:
            estimated, without_status = asyncio.run(_measure(engine, smtp, rounds, "hardhat"))
        with tempfile.TemporaryDirectory() as folder, parts.dev_chains() as chains, parts.bundler(chains) as bundler, \
                smart_engine(Path(folder), chains, bundler, smtp.port) as (url, _):
            smart, checked = asyncio.run(_measure_smart(url, smtp, chains, rounds))
    finally:
        anvil.stop()
        smtp.stop()
    return [
        "Approval view (eth_sendTransaction request → approval frame's page and its settled tree; "
        "engine app under uvicorn, local SMTP, SQLite)",
        _ms(f"with simulation (Anvil, eth_simulateV1; outcome {with_status})", simulated),
        _ms(f"without simulation (Hardhat, no eth_simulateV1; outcome {without_status})", estimated),
        _ms(f"smart account's send (Hardhat + alto's eth_estimateUserOperationGas, sponsored; the bundler's "
            f"check in time in {checked}/{rounds})", smart),
    ]


if __name__ == "__main__":
    print("\n".join(map(str, run(Parts()))))
