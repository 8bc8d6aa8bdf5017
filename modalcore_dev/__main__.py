"""`python -m modalcore_dev demo` (what `make run` starts): the local chains, the dev relays and
providers, and the engine with the demo dApp page. The engine's own commands are `modalcore`'s."""

from __future__ import annotations

import argparse
from urllib.parse import urlsplit
import sys
from collections.abc import Sequence

from modalcore.__main__ import RECORD_DIR_HELP, RECORD_NAME_HELP

from .demo import run as run_demo


def origin_arg(value: str) -> str:
    """A page origin as browsers send it: scheme, host and port only, no path."""
    parsed = urlsplit(value)
    if parsed.scheme not in ("http", "https") or not parsed.netloc or parsed.path not in ("", "/") \
            or parsed.query or parsed.fragment:
        raise argparse.ArgumentTypeError(f"not an origin (scheme://host[:port]): {value!r}")
    return f"{parsed.scheme}://{parsed.netloc}"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m modalcore_dev")
    commands = parser.add_subparsers(dest="command", required=True)
    demo = commands.add_parser("demo", help="local chains + engine + demo page (make run)")
    demo.add_argument("--host", default="127.0.0.1")
    demo.add_argument("--port", type=int, default=8700)
    demo.add_argument("--record-dir", metavar="DIR", help=RECORD_DIR_HELP)
    demo.add_argument("--record-name", metavar="NAME", help=RECORD_NAME_HELP)
    demo.add_argument("--allow-origin", metavar="ORIGIN", action="append", default=[], type=origin_arg,
                      help="also let this page origin (e.g. http://localhost:5173, your own app) open "
                           "sessions with the demo project; repeatable")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return run_demo(args.host, args.port, args.record_dir, args.record_name, args.allow_origin)


if __name__ == "__main__":
    sys.exit(main())
