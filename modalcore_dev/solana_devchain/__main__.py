"""`python -m modalcore_dev.solana_devchain [--host 127.0.0.1] [--port N]`: serve the local Solana
dev chain until Ctrl-C. Prints one line when it listens:
`solana devchain: http://HOST:PORT genesis <hash> account <dev account 0> mint <DUSD mint>`."""

from __future__ import annotations

import argparse
import asyncio

import uvicorn

from modalcore_dev.solana_devchain.accounts import DEV_TOKEN, dev_keypair
from modalcore_dev.solana_devchain.ledger import DevLedger
from modalcore_dev.solana_devchain.server import create_app


async def _serve(host: str, port: int) -> None:
    ledger = DevLedger()
    config = uvicorn.Config(create_app(ledger), host=host, port=port, log_level="warning", lifespan="off")
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    while not server.started and not task.done():
        await asyncio.sleep(0.02)
    if server.started:
        print(f"solana devchain: http://{host}:{port} genesis {ledger.genesis_hash} "
              f"account {dev_keypair(0).pubkey()} mint {DEV_TOKEN.mint}", flush=True)
    await task


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m modalcore_dev.solana_devchain")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args(argv)
    try:
        asyncio.run(_serve(args.host, args.port))
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
