"""`python -m modalcore_dev.farcaster --port N [--demo-client]`: the local Farcaster auth relay on
127.0.0.1, with the demo Farcaster client page at /client (democlient.py)."""

from __future__ import annotations

import argparse
import logging

import uvicorn

from modalcore_dev.farcaster.relay import Limits, create_relay_app


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m modalcore_dev.farcaster")
    parser.add_argument("--port", type=int, default=8791, help="port on 127.0.0.1 (0: a free one)")
    parser.add_argument("--ttl-ms", type=int, default=Limits.ttl_ms)
    parser.add_argument("--max-channels", type=int, default=Limits.max_channels)
    parser.add_argument("--demo-client", action="store_true", help="serve the demo Farcaster client at /client")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    app = create_relay_app(Limits(max_channels=args.max_channels, ttl_ms=args.ttl_ms),
                           demo_client=args.demo_client)
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
