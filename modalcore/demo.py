"""`python -m modalcore demo` (what `make run` starts): the two local chains with their
contracts, the engine, and the demo page, on 127.0.0.1."""

from __future__ import annotations

import logging
import sys

from .devchain.deploy import deploy_all
from .devchain.nodes import NodeStartError, ensure_node_modules, free_port, start_nodes, stop_nodes
from .server.config import dev_networks, parse_config

CHAIN_PORTS = {31337: 8545, 31338: 8546}


def _ports() -> dict[int, int]:
    """The usual ports, or free ones when something else already listens there."""
    import socket

    ports = {}
    for chain_id, port in CHAIN_PORTS.items():
        with socket.socket() as probe:
            busy = probe.connect_ex(("127.0.0.1", port)) == 0
        ports[chain_id] = free_port() if busy else port
    return ports


def run(host: str, port: int, record_dir: str | None = None, record_name: str | None = None) -> int:
    import uvicorn

    from .server.app import create_app, uvicorn_options

    ensure_node_modules()
    try:
        nodes = start_nodes(_ports())
    except NodeStartError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    try:
        rpc_urls = {node.chain_id: node.rpc_url for node in nodes}
        deployment = deploy_all(rpc_urls, expected_path=None)
        config = parse_config({
            "projects": {"demo": {"name": "Modalcore demo dApp", "origins": []}},
            "networks": dev_networks(rpc_urls, deployment),
            "store": {"kind": "sqlite", "path": ".modalcore/sessions.db"},
            "devchain_proxy": True,  # the Dev Wallet reaches the chains through /devchain
        })
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
        for chain_id, url in sorted(rpc_urls.items()):
            print(f"chain {chain_id}: {url}", flush=True)
        print(f"\n  Modalcore demo: http://{host}:{port}/\n", flush=True)
        app = create_app(config, record_dir=record_dir, record_name=record_name)
        uvicorn.run(app, host=host, port=port, log_level="warning", **uvicorn_options())
    finally:
        stop_nodes(nodes)
    return 0
