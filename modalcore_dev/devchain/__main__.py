"""`python -m modalcore_dev.devchain up | deploy | install | compile`.

  up       start both Hardhat nodes (31337 on 8545, 31338 on 8546), deploy the contracts,
           write the deployment JSON, start a bundler (alto) per chain on a free port and stay in
           the foreground until Ctrl-C
  deploy   deploy on already running node(s): --rpc URL [--rpc URL ...]
  install  `npm ci` in chain/ if node_modules is missing or older than the lock file
  compile  rebuild fixtures/chain/contracts with solc-js (node chain/compile.mjs)
"""

from __future__ import annotations

import argparse
import json
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import FrameType
from typing import Any

from modalcore_dev.devchain.bundler import DevBundler, start_bundlers, stop_bundlers
from modalcore_dev.devchain.deploy import DEPLOYMENT_PATH, FIXTURE_DIR, deploy_all, write_deployment
from modalcore_dev.devchain.nodes import (
    CHAIN_DIR,
    DEFAULT_PORTS,
    NodeStartError,
    ensure_node_modules,
    start_nodes,
    stop_nodes,
)

LOCAL_DEPLOYMENT_PATH = FIXTURE_DIR / "deployment.local.json"


def _summary(deployment: dict[str, Any]) -> str:
    lines: list[str] = []
    for chain_id, entry in deployment.items():
        lines.append(f"chain {chain_id}  {entry['rpc']}")
        for token in entry["tokens"]:
            lines.append(f"  {token['symbol']:<5} {token['decimals']:>2} dec  {token['address']}")
        wallet = entry["eip1271Wallet"]
        lines.append(f"  EIP-1271 wallet     {wallet['address']} (owner {wallet['owner']})")
        for nft in entry.get("nfts", []):
            lines.append(f"  {nft['symbol']:<5} ERC-721     {nft['address']} ({len(nft['owners'])} minted)")
        market = entry.get("uniswapV2")
        if market:
            lines.append(f"  Uniswap V2 router   {market['router']} (WETH {market['weth']})")
            for pair in market["pairs"]:
                lines.append(f"  pool {'/'.join(pair['symbols']):<10}     {pair['address']}")
        ens = entry.get("ens")
        if ens:
            lines.append(f"  ENS registry        {ens['registry']}: " + ", ".join(ens["names"]))
    return "\n".join(lines)


def cmd_up(args: argparse.Namespace) -> int:
    ports = {31337: args.port_31337, 31338: args.port_31338}
    out: Path = args.out or (DEPLOYMENT_PATH if ports == DEFAULT_PORTS else LOCAL_DEPLOYMENT_PATH)
    if ensure_node_modules():
        print("installed chain/node_modules (npm ci)", flush=True)
    t0 = time.monotonic()
    try:
        nodes = start_nodes(ports)
    except NodeStartError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    for node in nodes:
        node.keep_log = True
    stop = threading.Event()
    bundlers: list[DevBundler] = []

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    try:
        print(f"nodes up in {time.monotonic() - t0:.2f} s: "
              + ", ".join(f"{n.chain_id} → {n.rpc_url} (pid {n.pid})" for n in nodes), flush=True)
        for node in nodes:
            print(f"  log of {node.chain_id}: {node.log_path}", flush=True)
        if not args.no_deploy:
            deployment = deploy_all({n.chain_id: n.rpc_url for n in nodes})
            write_deployment(deployment, out)
            print(_summary(deployment), flush=True)
            print(f"deployment written to {out}", flush=True)
            bundlers = start_bundlers({n.chain_id: n.rpc_url for n in nodes})
            for bundler in bundlers:
                print(f"  bundler of {bundler.chain_id} (alto, EntryPoint v0.7): {bundler.url}", flush=True)
        print("dev chains running; Ctrl-C to stop", flush=True)
        while not stop.is_set():
            for node in nodes:
                if node.process.poll() is not None:
                    print(f"node {node.chain_id} exited:\n{node.log_tail()}", file=sys.stderr)
                    return 1
            stop.wait(0.5)
        return 0
    finally:
        stop_bundlers(bundlers)
        stop_nodes(nodes)
        print("dev chains stopped", flush=True)


def cmd_deploy(args: argparse.Namespace) -> int:
    deployment = deploy_all(args.rpc, expected_path=None if args.no_check else DEPLOYMENT_PATH)
    if args.out is not None:
        write_deployment(deployment, args.out)
    print(json.dumps(deployment, indent=2))
    return 0


def cmd_install(args: argparse.Namespace) -> int:
    print("installed" if ensure_node_modules() else "chain/node_modules already current")
    return 0


def cmd_compile(args: argparse.Namespace) -> int:
    ensure_node_modules()
    node = shutil.which("node") or "node"
    extra = ["--check"] if args.check else []
    return subprocess.run([node, str(CHAIN_DIR / "compile.mjs"), *extra], check=False).returncode


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m modalcore_dev.devchain", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)

    up = sub.add_parser("up", help="start both nodes, deploy, stay in the foreground")
    up.add_argument("--port-31337", type=int, default=DEFAULT_PORTS[31337])
    up.add_argument("--port-31338", type=int, default=DEFAULT_PORTS[31338])
    up.add_argument("--out", type=Path, default=None,
                    help="deployment JSON to write (default: fixtures/chain/deployment.json with "
                         "the default ports, else fixtures/chain/deployment.local.json)")
    up.add_argument("--no-deploy", action="store_true")
    up.set_defaults(func=cmd_up)

    deploy = sub.add_parser("deploy", help="deploy on running node(s)")
    deploy.add_argument("--rpc", action="append", required=True, help="node URL (repeatable)")
    deploy.add_argument("--out", type=Path, default=None, help="also write the JSON here")
    deploy.add_argument("--no-check", action="store_true",
                        help="do not compare addresses with fixtures/chain/deployment.json")
    deploy.set_defaults(func=cmd_deploy)

    install = sub.add_parser("install", help="npm ci in chain/ when needed")
    install.set_defaults(func=cmd_install)

    compile_ = sub.add_parser("compile", help="rebuild fixtures/chain/contracts (solc-js)")
    compile_.add_argument("--check", action="store_true", help="only check they are current")
    compile_.set_defaults(func=cmd_compile)

    args = parser.parse_args(argv)
    code: int = args.func(args)
    return code


if __name__ == "__main__":
    sys.exit(main())
