"""Sessions on a fake clock whose `directory` calls are answered by the engine's own service."""

from __future__ import annotations

import asyncio
from typing import Any

from modalcore.directory.backend.source import run_query
from modalcore.core.cmds import Call, CallSettled
from modalcore.enginetest import Harness
from modalcore.wire.nodes import Node

DEV = {"uuid": "dev-uuid", "name": "Dev Wallet", "icon": "data:image/svg+xml,dev", "rdns": "dev.modalcore.devwallet"}
METAMASK = {"uuid": "mm-uuid", "name": "MetaMask", "icon": "data:image/svg+xml,mm", "rdns": "io.metamask"}


class DirHarness(Harness):
    """A Harness that can answer the session's directory calls from the curated directory."""

    def directory_calls(self) -> list[Call[Any]]:
        return [c for c in self.cmds if isinstance(c, Call) and c.service.name == "directory"]

    def settle_directory(self, *, ok: bool = True, keep: int = 0) -> list[Call[Any]]:
        """Answer every pending directory call (oldest first); returns the calls answered."""
        answered: list[Call[Any]] = []
        while True:
            calls = self.directory_calls()[keep:]
            if not calls:
                return answered
            call = calls[0]
            self.cmds.remove(call)
            answered.append(call)
            if ok:
                result = asyncio.run(run_query(None, None, "", dict(call.args_data)))
                self.deliver(CallSettled(call.to, True, result, context=dict(call.context)))
            else:
                self.deliver(CallSettled(call.to, False, None, "boom", dict(call.context)))

    def type(self, text: str, *, every_ms: int = 0) -> None:
        """Type `text` one character at a time into the search input."""
        for i in range(1, len(text) + 1):
            assert self.intent("all/search", "change", {"value": text[:i]}) == "ok"
            if every_ms:
                self.advance(every_ms)

    def searched(self, wallet_id: str) -> str:
        """All Wallets' first list answered, then `wallet_id` typed in its search and answered once
        the search has waited out its typing pause: the node of that wallet's row."""
        self.settle_directory()
        self.type(wallet_id)
        self.advance(300)
        self.settle_directory()
        return f"all/w/{wallet_id}"

    def items(self, parent: str = "all/list") -> list[Node]:
        return [n for n in self.node(parent).c if n.t == "wallet-item"]

    def names(self, parent: str = "all/list") -> list[str]:
        return [str(n.p["name"]) for n in self.items(parent)]


def harness(options: dict[str, Any] | None = None, **kwargs: Any) -> DirHarness:
    opts = {"networks": ["eip155:1"], **(options or {})}
    return DirHarness(options=opts, **kwargs)


def all_wallets(options: dict[str, Any] | None = None, **kwargs: Any) -> DirHarness:
    """A session showing All Wallets with its first page loaded."""
    h = harness(options, **kwargs)
    assert h.host("open", view="AllWallets") == "ok"
    h.settle_directory()
    return h
