"""The runner's inbox keeps asyncio.Queue's contract for what the runner uses: first in,
first out; `get` waits for a put; `join` returns once every item put was marked done."""

from __future__ import annotations

import asyncio

import pytest

from modalcore.runtime.inbox import Inbox


async def test_fifo_wait_and_join() -> None:
    inbox: Inbox[int] = Inbox()
    getter = asyncio.create_task(inbox.get())
    await asyncio.sleep(0)
    assert not getter.done()
    inbox.put_nowait(1)
    inbox.put_nowait(2)
    assert await getter == 1
    assert inbox.get_nowait() == 2 and inbox.empty()
    with pytest.raises(asyncio.QueueEmpty):
        inbox.get_nowait()
    joined = asyncio.create_task(inbox.join())
    await asyncio.sleep(0)
    inbox.task_done()
    await asyncio.sleep(0)
    assert not joined.done()  # one item is still not done
    inbox.task_done()
    await asyncio.wait_for(joined, 1)
    with pytest.raises(ValueError):
        inbox.task_done()
    await inbox.join()  # nothing pending: at once
