"""Local EVM dev chains: Hardhat 2 nodes (31337, 31338), contract deployment, test helpers.

CLI: `python -m modalcore_dev.devchain up` (start both nodes, deploy, stay in the foreground) and
`python -m modalcore_dev.devchain deploy --rpc URL`. Tests: `modalcore_dev.devchain.pytest_plugin`.
"""

from __future__ import annotations

from modalcore_dev.devchain.deploy import (
    DEPLOYMENT_PATH,
    EIP1271_MAGIC_VALUE,
    DeploymentError,
    DeploymentMismatch,
    deploy_all,
    deploy_chain,
    load_artifact,
    load_deployment,
    write_deployment,
)
from modalcore_dev.devchain.nodes import (
    DEFAULT_PORTS,
    DevNode,
    NodeStartError,
    ensure_node_modules,
    free_port,
    start_node,
    start_nodes,
    stop_nodes,
)
from modalcore_dev.devchain.rpc import Rpc, RpcError, TransactionFailed, encode_call

__all__ = [
    "DEFAULT_PORTS",
    "DEPLOYMENT_PATH",
    "EIP1271_MAGIC_VALUE",
    "DeploymentError",
    "DeploymentMismatch",
    "DevNode",
    "NodeStartError",
    "Rpc",
    "RpcError",
    "TransactionFailed",
    "deploy_all",
    "deploy_chain",
    "encode_call",
    "ensure_node_modules",
    "free_port",
    "load_artifact",
    "load_deployment",
    "start_node",
    "start_nodes",
    "stop_nodes",
    "write_deployment",
]
