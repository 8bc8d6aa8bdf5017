"""The `chain_read` service behind the embedded wallet's safe reads (behaviour.md §6) on a real node: it
answers exactly what the node answers, and takes only the read methods."""

from __future__ import annotations

import httpx
import pytest
from pydantic import ValidationError

from modalcore_dev.devchain.pytest_plugin import ChainsInfo
from modalcore.services.backend.table import default_services
from modalcore.services.domain.handles import CHAIN_READ


async def test_chain_read_answers_what_the_node_answers(devchain: ChainsInfo) -> None:
    address = devchain.chain(31337)["accounts"][0]
    async with httpx.AsyncClient() as http:
        read = default_services(http)[CHAIN_READ]
        got = await read(None, rpc_url=devchain.rpc_urls[31337], method="eth_getBalance", params=[address, "latest"])
    with devchain.rpc(31337) as rpc:
        assert got == {"result": rpc.call("eth_getBalance", [address, "latest"])}


async def test_chain_read_refuses_a_method_that_is_not_a_read(devchain: ChainsInfo) -> None:
    async with httpx.AsyncClient() as http:
        read = default_services(http)[CHAIN_READ]
        with pytest.raises(ValidationError):
            await read(None, rpc_url=devchain.rpc_urls[31337], method="eth_sendTransaction", params=[{}])
