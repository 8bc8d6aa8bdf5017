"""`python -m modalcore_dev.walletconnect_relay --port N`: the local relay on 127.0.0.1."""

from __future__ import annotations

import argparse
import asyncio
import logging

from modalcore_dev.walletconnect_relay.mailbox import Limits
from modalcore_dev.walletconnect_relay.server import RelayServer


async def _serve(port: int, limits: Limits) -> None:
    server = RelayServer("127.0.0.1", port, limits)
    bound = await server.start()
    print(f"walletconnect relay listening on ws://127.0.0.1:{bound}", flush=True)
    try:
        await asyncio.Future()
    finally:
        await server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m modalcore_dev.walletconnect_relay")
    parser.add_argument("--port", type=int, default=8790, help="port on 127.0.0.1 (0: a free one)")
    parser.add_argument("--max-message", type=int, default=Limits.max_message)
    parser.add_argument("--max-per-topic", type=int, default=Limits.max_per_topic)
    parser.add_argument("--max-topics", type=int, default=Limits.max_topics_per_client)
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    limits = Limits(max_message=args.max_message, max_per_topic=args.max_per_topic,
                    max_topics_per_client=args.max_topics)
    try:
        asyncio.run(_serve(args.port, limits))
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
