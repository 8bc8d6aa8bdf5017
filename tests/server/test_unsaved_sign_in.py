"""Issue 27: no wallet request while its save has not landed, through a whole session on a real
server (the engine's SIWX services): a visitor connects an injected wallet and presses Sign
while the session store is down. The wallet is never asked to `personal_sign`; the visitor sees
'Request not sent: ...' in the snackbar. Once the store is back, Sign asks the wallet."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from modalcore.rules.texts import TOKEN_BALANCE_UNAVAILABLE
from modalcore.rules.wallet_requests import NOT_SAVED
from modalcore_testing import Client, DownStore, find_node, make_test_config, start_server
from modalcore.wire.diff import apply

ADDRESS = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8"
WALLET = {"uuid": "uuid-1", "name": "Dev Wallet", "icon": "data:x", "rdns": "dev.modalcore.devwallet"}
OPTS = {"networks": ["eip155:1"], "metadata": {"name": "Sign-in dApp"},
        "siwx": {"required": True, "statement": "Sign in to the dApp"}}
STEP_S = 30.0
# Ethereum's balance read refused at once (a closed port), so its one failure ("Token Balance
# Unavailable", then no retry for 30 s) is seen before Sign is pressed: the snackbar shows one
# message at a time, and a balance read failing late (the default public RPC, unreachable here,
# answered only on a loaded machine's timing) replaced 'Request not sent' before it was drawn.
NETWORKS = {"eip155:1": {"name": "Ethereum", "rpc": ["http://127.0.0.1:9/"],
                         "native": {"name": "Ether", "symbol": "ETH", "decimals": 18}}}


class Page:
    """The renderer's part: the tree, and an injected wallet that answers connecting and keeps
    every signing request it is asked."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.tree: dict[str, Any] | None = None
        self.signing: list[dict[str, Any]] = []
        self.snacks: list[str] = []  # every message the snackbar opened with

    async def take(self, frame: dict[str, Any]) -> None:
        if frame["t"] == "snapshot":
            self.tree = frame["tree"]
        elif frame["t"] == "patch" and self.tree is not None:
            self.tree = apply(self.tree, frame["ops"])
        if frame["t"] in ("snapshot", "patch") and self.snack():
            self.snacks.append(self.snack())
        elif frame["t"] == "effect":
            method = frame["req"].get("method")
            result: Any = None
            if method in ("eth_requestAccounts", "eth_accounts"):
                result = [ADDRESS]
            elif method == "eth_chainId":
                result = "0x1"
            elif method == "personal_sign":
                self.signing.append(frame)
                return
            ok = result is not None
            answer: dict[str, Any] = {"t": "effect_result", "eid": frame["eid"], "ok": ok}
            if ok:
                answer["result"] = result
            else:
                answer["error"] = {"code": 4200, "message": f"unsupported {method}"}
            await self.client.send(answer)

    async def until(self, done: Callable[[Page], bool]) -> None:
        deadline = time.monotonic() + STEP_S
        while not done(self):
            await self.take(await self.client.recv(max(0.1, deadline - time.monotonic())))

    def node(self, node_id: str) -> dict[str, Any] | None:
        return find_node(self.tree, node_id)

    def snack(self) -> str:
        bar = self.node("snackbar")
        return str(bar["p"]["message"]) if bar and bar["p"].get("open") else ""


async def test_rule_sign_is_not_asked_of_the_wallet_while_the_store_is_down() -> None:
    store = DownStore()
    with start_server(make_test_config(networks=NETWORKS), store=store) as server:
        async with server.client() as client:
            page = Page(client)
            for frame in await client.join(wallets=[WALLET], opts=OPTS):
                await page.take(frame)
            await client.intent("host", "open")
            await page.until(lambda p: p.node("connect/wallet/dev.modalcore.devwallet") is not None)
            await client.intent("connect/wallet/dev.modalcore.devwallet", "press")
            await page.until(lambda p: p.node("siwx/sign") is not None and TOKEN_BALANCE_UNAVAILABLE in p.snacks)
            store.down = True
            await client.intent("siwx/sign", "press")
            await page.until(lambda p: p.snack() == NOT_SAVED)
            for frame in await client.quiet(0.3):
                await page.take(frame)
            assert page.signing == []  # the wallet was never asked
            assert server.app.state.metrics.unsaved()[0] == 1
            store.down = False
            await client.intent("siwx/sign", "press")
            await page.until(lambda p: bool(p.signing))
            assert page.signing[0]["req"]["params"][1].lower() == ADDRESS
