"""A proposal or request that fails after the visitor moved on (nobody awaits its answer any
more) is not reported by asyncio as "Future exception was never retrieved ... The proposal
expired" in the operator's terminal; whoever still awaits it gets the typed exception."""

from __future__ import annotations

import asyncio
import gc
from typing import Any, cast

import pytest

from modalcore.walletconnect.backend.events import ProposalExpired
from modalcore.walletconnect.backend.relay_client import RelayClient
from modalcore.walletconnect.domain.sign_rpc import Metadata
from modalcore.walletconnect.domain.errors import RequestExpired
from modalcore.walletconnect.backend.signclient import SignClient

METADATA = Metadata(name="t", description="t", url="https://t.example", icons=[])


def _client() -> SignClient:
    return SignClient(cast(RelayClient, object()), METADATA)


@pytest.mark.asyncio
async def test_an_expired_proposal_nobody_awaits_logs_nothing() -> None:
    reported: list[dict[str, Any]] = []
    loop = asyncio.get_running_loop()
    loop.set_exception_handler(lambda _loop, context: reported.append(context))
    client = _client()
    client._approvals[7] = loop.create_future()  # a pairing the visitor walked away from
    client._settle(ProposalExpired(7))
    gc.collect()
    await asyncio.sleep(0)
    assert reported == []


@pytest.mark.asyncio
async def test_an_awaited_expired_proposal_still_raises() -> None:
    client = _client()
    waiter = asyncio.get_running_loop().create_future()
    client._approvals[7] = waiter
    client._settle(ProposalExpired(7))
    with pytest.raises(RequestExpired):
        await waiter
