"""Command line: `python -m modalcore serve ...` and `python -m modalcore replay FILE`."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any


def _serve(args: argparse.Namespace) -> int:
    import logging

    import uvicorn

    from .server.app import create_app, uvicorn_options
    from .server.config import ConfigError, default_config, load_config

    try:
        config = load_config(args.config) if args.config else default_config()
    except ConfigError as error:
        print(f"config: {error}", file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    app = create_app(config, record_dir=args.record_dir)
    uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level, **uvicorn_options())
    return 0


def _demo(args: argparse.Namespace) -> int:
    from .demo import run

    return run(args.host, args.port, args.record_dir)


def _short(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def _replay(args: argparse.Namespace) -> int:
    from .engine.record import read_events, replay

    path = Path(args.file)
    if not path.is_file():
        print(f"replay: no such file {path}", file=sys.stderr)
        return 2
    try:
        divergence = replay(path)
    except (ValueError, KeyError) as error:
        print(f"replay: bad recording: {error}", file=sys.stderr)
        return 2
    if divergence is not None:
        print(f"diverged at frame {divergence.index}")
        print(f"expected: {_short(divergence.expected)}")
        print(f"actual:   {_short(divergence.actual)}")
        return 1
    frames = sum(1 for event in read_events(path) if event.get("k") == "out")
    print(f"ok: {frames} frames")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m modalcore")
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="run the session engine")
    serve.add_argument("--config", help="operator config (.toml or .json)")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8700)
    serve.add_argument("--record-dir", help="record every new session to DIR/<session>.jsonl")
    serve.add_argument("--log-level", default="info")
    serve.set_defaults(run=_serve)
    demo = commands.add_parser("demo", help="local chains + engine + demo page (make run)")
    demo.add_argument("--host", default="127.0.0.1")
    demo.add_argument("--port", type=int, default=8700)
    demo.add_argument("--record-dir", help="record every new session to DIR/<session>.jsonl")
    demo.set_defaults(run=_demo)

    replay = commands.add_parser("replay", help="re-run a recorded session and compare frames")
    replay.add_argument("file")
    replay.set_defaults(run=_replay)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    result: int = args.run(args)
    return result


if __name__ == "__main__":
    sys.exit(main())
