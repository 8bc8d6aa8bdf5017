"""`python -m modalcore inspect DIR`: serve the inspector on loopback and print its address."""

from __future__ import annotations

import argparse
import socket
import sys
from pathlib import Path

import uvicorn

from .server import create_inspector


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("folder", metavar="DIR", help="a folder of recordings (*.jsonl)")
    parser.add_argument("--host", default="127.0.0.1", help="loopback by default")
    parser.add_argument("--port", type=int, default=0, help="0 (the default): any free port")
    parser.add_argument("--export-dir", metavar="DIR",
                        help='where "Export as test" writes pytest files (default: DIR)')


def run(args: argparse.Namespace) -> int:
    folder = Path(args.folder)
    if not folder.is_dir():
        print(f"inspect: {folder} is not a folder", file=sys.stderr)
        return 2
    app = create_inspector(folder, Path(args.export_dir) if args.export_dir else None)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind((args.host, args.port))
    host, port = sock.getsockname()[:2]
    print(f"Modalcore inspector: http://{host}:{port}/", flush=True)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    server.run(sockets=[sock])
    return 0
