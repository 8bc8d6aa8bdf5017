"""Harness for the WalletConnect tests: the local relay, the dApp sign client on it, and the
real wallet peer (walletpeer/wallet.mjs: the official sign-client 2.25.0 under Node, signing
with ethers over a Hardhat dev account)."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from modalcore_dev.walletconnect_relay import RelayServer, running_relay
from modalcore.walletconnect.backend.relay_client import RelayClient
from modalcore.walletconnect.domain.sign_rpc import Metadata
from modalcore.walletconnect.backend.signclient import SignClient

REPO = Path(__file__).resolve().parents[2]
WALLET_SCRIPT = REPO / "walletpeer" / "wallet.mjs"
DEV_KEY = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"  # Hardhat account #0
DEV_ADDRESS = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
DAPP = Metadata(name="Modalcore Test dApp", description="tests", url="http://127.0.0.1", icons=[])
WAIT = 60.0  # generous: a missing event fails the test instead of hanging it


class WalletPeer:
    """The Node wallet process: commands as JSON lines in, events as JSON lines out."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.events: list[dict[str, Any]] = []
        self._queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self._reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        assert self.process.stdout is not None
        while line := await self.process.stdout.readline():
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if isinstance(event, dict) and "event" in event:
                self.events.append(event)
                await self._queue.put(event)

    async def send(self, **command: Any) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write((json.dumps(command) + "\n").encode())
        await self.process.stdin.drain()

    async def expect(self, name: str, timeout: float = WAIT) -> dict[str, Any]:
        """The next event called `name` (earlier other events are skipped; errors fail)."""
        async def wait() -> dict[str, Any]:
            while True:
                event = await self._queue.get()
                if event["event"] == name:
                    return event
                if event["event"] == "error":
                    raise AssertionError(f"wallet peer error while waiting for {name}: {event}")
        return await asyncio.wait_for(wait(), timeout)

    async def stop(self) -> None:
        if self.process.returncode is None:
            self.process.terminate()
            await self.process.wait()
        self._reader.cancel()


@asynccontextmanager
async def wallet_peer(relay_url: str, rpc_urls: dict[int, str], *, policy: str = "approve",
                      key: str = DEV_KEY, delete_after: int = 0, auth: bool = True,
                      auth_tamper: str = "none") -> AsyncIterator[WalletPeer]:
    node = shutil.which("node")
    assert node is not None, "Node is required for the wallet peer (make deps)"
    assert (REPO / "walletpeer" / "node_modules").is_dir(), "run `make deps` (npm ci in walletpeer/)"
    args = [str(WALLET_SCRIPT), "--relay", relay_url, "--key", key, "--policy", policy]
    for chain_id, url in sorted(rpc_urls.items()):
        args += ["--chain", f"{chain_id}={url}"]
    if delete_after:
        args += ["--delete-after", str(delete_after)]
    if not auth:
        args.append("--no-auth")  # the wallet does not listen for session_authenticate
    if auth_tamper != "none":
        args += ["--auth-tamper", auth_tamper]
    process = await asyncio.create_subprocess_exec(
        node, *args, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL, cwd=REPO / "walletpeer", env={**os.environ, "NODE_NO_WARNINGS": "1"})
    peer = WalletPeer(process)
    try:
        await peer.expect("ready")
        yield peer
    finally:
        await peer.stop()


@asynccontextmanager
async def dapp_on_relay() -> AsyncIterator[tuple[RelayServer, RelayClient, SignClient]]:
    """A local relay, the process's one relay connection, and a dApp sign client on it."""
    async with running_relay() as relay:
        client = RelayClient(relay.url, backoff=(0.05, 0.5))
        await client.start()
        try:
            yield relay, client, SignClient(client, DAPP)
        finally:
            await client.close()
