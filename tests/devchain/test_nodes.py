"""Hardhat nodes: start, answer with their own chain ids, stop cleanly."""

from __future__ import annotations

import pytest

from modalcore_dev.devchain.nodes import (
    NodeStartError,
    free_port,
    listener_pid,
    port_in_use,
    rpc_chain_id,
    start_node,
)
from modalcore_dev.devchain.pytest_plugin import ChainsInfo

pytestmark = pytest.mark.chain

HARDHAT_ACCOUNT_0 = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"


def test_both_nodes_answer_with_distinct_chain_ids(devchains: ChainsInfo) -> None:
    assert devchains.chain_ids == [31337, 31338]
    answered = {rpc_chain_id(url) for url in devchains.rpc_urls.values()}
    assert answered == {31337, 31338}
    assert len(set(devchains.rpc_urls.values())) == 2
    for url in devchains.rpc_urls.values():
        assert url.startswith("http://127.0.0.1:")


def test_nodes_have_funded_unlocked_dev_accounts(devchains: ChainsInfo) -> None:
    for chain_id in devchains.chain_ids:
        with devchains.rpc(chain_id) as rpc:
            accounts = rpc.accounts()
            assert len(accounts) == 20
            assert accounts[0].lower() == HARDHAT_ACCOUNT_0.lower()
            assert rpc.balance(accounts[5]) == 10_000 * 10**18


def test_start_and_stop_a_node_on_a_given_port() -> None:
    port = free_port()
    node = start_node(31338, port)
    try:
        assert node.process.poll() is None
        assert rpc_chain_id(node.rpc_url) == 31338
        assert node.started_in < 30
        found = listener_pid(port)
        assert found is None or found == node.pid  # we hold the listener itself, no shim
    finally:
        node.stop()
    assert node.process.poll() is not None
    assert not port_in_use(port)
    assert not node.log_path.exists()  # a clean stop removes the node's log
    node.stop()  # idempotent


def test_a_taken_port_is_refused(devchains: ChainsInfo) -> None:
    taken = int(devchains.rpc_urls[31337].rsplit(":", 1)[1])
    with pytest.raises(NodeStartError, match="already in use"):
        start_node(31337, taken)


def test_unknown_chain_id_has_no_config() -> None:
    with pytest.raises(NodeStartError, match="no Hardhat config"):
        start_node(99999, free_port())
