"""Directory figures: search over the directory (in process) and the All Wallets tree's size."""

from __future__ import annotations

import asyncio
import random
import time

from modalcore.directory.domain.query import Directory, WalletQuery, load_directory
from modalcore.directory.backend.source import run_query
from modalcore.directory.domain.wallets import Wallet
from modalcore.core.cmds import Call, CallSettled
from modalcore.engine.interpret import RuntimeCmd
from modalcore.slices.model import initial_model
from modalcore.engine.session import Session
from modalcore.slices.options import parse_options
from modalcore.wire.frames import AnnouncedWallet, Env, Intent
from modalcore.wire.serverframes import Patch, ServerFrame, Snapshot, encoded
from modalcore_dev.bench.parts import Parts
from modalcore_dev.bench.stats import Lines, line, summary

OPTIONS = {"networks": ["eip155:31337", "eip155:31338"], "metadata": {"name": "Bench dApp"}}
WALLETS = [AnnouncedWallet(uuid="uuid-0", name="Dev Wallet", icon="data:image/svg+xml;base64,PHN2Zy8+",
                           rdns="dev.modalcore.devwallet")]
QUERIES = ("rain", "meta", "wallet", "trust", "ledger", "a", "coin", "phantom", "zzz", "safe", "ok", "bit")


def _queries(directory: Directory, rounds: int) -> list[float]:
    """ms per `/getWallets` search as the `directory` service answers it (query + JSON data)."""
    rng = random.Random(7)
    timings = []
    for index in range(rounds):
        text = QUERIES[index % len(QUERIES)] if index % 3 else rng.choice(QUERIES)[: rng.randint(1, 4)]
        query = WalletQuery(search=text, entries=100, chains=("eip155:31337", "eip155:31338"))
        start = time.perf_counter_ns()
        page = directory.query(query)
        _ = [wallet.to_json() for wallet in page.data]
        timings.append((time.perf_counter_ns() - start) / 1e6)
    return timings


def synthetic(size: int) -> Directory:
    rng = random.Random(1)
    syllables = ("ra", "in", "bo", "me", "ta", "ka", "zo", "lu", "vex", "qui", "nor", "pal")
    wallets = []
    for index in range(size):
        name = "".join(rng.choice(syllables) for _ in range(rng.randint(2, 4))).title()
        wallets.append(Wallet(id=f"w{index}", name=f"{name} Wallet", chains=("eip155:1",),
                              mobile_link="x://" if index % 2 else None))
    return Directory(tuple(wallets))


class _Client:
    def __init__(self, session: Session) -> None:
        self.session = session
        self.seq = 0
        self.now = 0

    def intent(self, node: str, act: str = "press", args: dict[str, object] | None = None) -> list[RuntimeCmd]:
        self.seq += 1
        self.now += 100
        frame = Intent(t="intent", s=self.seq, a=self.session.out_seq, iid=f"i{self.seq}", node=node,
                       act=act, args=args or {})
        out = self.session.receive(frame, self.now)
        return out.cmds

    def settle(self, cmds: list[RuntimeCmd]) -> list[ServerFrame]:
        frames: list[ServerFrame] = []
        for cmd in cmds:
            if isinstance(cmd, Call) and cmd.service.name == "directory":
                result = asyncio.run(run_query(None, None, "", dict(cmd.args_data)))
                out = self.session.deliver(CallSettled(cmd.to, True, result), self.now)
                frames += out.frames
        return frames


def all_wallets_sizes() -> tuple[int, tuple[str, int], int]:
    """Bytes: the All Wallets snapshot with page 1, the frame appending page 2 (a patch, or a
    snapshot when the patch would be larger than half of one), the snapshot with every page."""
    model = initial_model("demo", "http://localhost:3000", parse_options(OPTIONS), Env(), WALLETS)
    session = Session("s", model, 0)
    session.welcome("token", resumed=False, last=None)
    client = _Client(session)
    client.settle(client.intent("host", "open", {"view": "AllWallets"}))
    first = len(encoded(session.snapshot()))
    frames = client.settle(client.intent("all/list", "more"))
    drawn = [f for f in frames if isinstance(f, (Patch, Snapshot))]
    patch = (drawn[-1].t, len(encoded(drawn[-1]))) if drawn else ("none", 0)
    while session.model.directory.has_more:
        client.settle(client.intent("all/list", "more"))
    return first, patch, len(encoded(session.snapshot()))


def run(parts: Parts) -> Lines:
    curated = load_directory()
    _queries(curated, parts.size(200, 2))  # warm the filter cache, as a running engine has it
    s = summary(_queries(curated, parts.size(3000, 3)))
    big = synthetic(parts.size(20_000, 200))
    _queries(big, parts.size(20, 1))
    b = summary(_queries(big, parts.size(300, 3)))
    first, patch, full = all_wallets_sizes()
    out: Lines = [f"Wallet directory, in process ({len(curated)} curated wallets):"]
    out.append(line("search over the directory p50", f"{s['p50']:.3f} ms", "≤ 2 ms", [s["p50"]]))
    out.append(line("search over the directory p99", f"{s['p99']:.3f} ms", measured=[s["p99"]]))
    out.append(line(f"search, synthetic {len(big.wallets):,} wallets p50", f"{b['p50']:.3f} ms", measured=[b["p50"]]))
    out.append(line(f"search, synthetic {len(big.wallets):,} wallets p99", f"{b['p99']:.3f} ms", measured=[b["p99"]]))
    out.append(line("snapshot bytes, All Wallets (page 1 of 40)", f"{first} B", measured=[first]))
    out.append(line("All Wallets page 2 appended", f"{patch[1]} B ({patch[0]})", measured=[patch[1]]))
    out.append(line("snapshot bytes, All Wallets (every page)", f"{full} B", measured=[full]))
    return out


if __name__ == "__main__":
    print("\n".join(map(str, run(Parts()))))
