"""Two engine processes' worth of apps on one real Redis (issue 17): any worker resumes any
session, and a session has one owner: a rejoin on another worker takes it over, and the first
worker's stale copy is neither served nor saved over the new owner's state."""

from __future__ import annotations

import itertools

from modalcore_testing import Client, make_test_config, start_server

_prefixes = itertools.count()


async def test_rule_a_rejoin_elsewhere_takes_over_and_the_old_copy_is_never_served(
        redis_url: str) -> None:
    config = make_test_config(store={"kind": "redis", "url": redis_url,
                                     "prefix": f"two{next(_prefixes)}:"})
    with start_server(config) as a, start_server(config) as b:
        async with a.client() as first:
            await first.join()
            await first.intent("host", "open")
            await first.recv_until(lambda f: f["t"] == "host_event")
            await first.quiet(0.3)
        assert a.hub.is_live(first.session)  # detached, still in A's memory

        async with Client.open(b.ws_url(), seq=first.seq) as second:
            frames = await second.join(resume=first.resume, last=first.last)
            assert frames[0]["session"] == first.session and frames[0]["resumed"] is True
            await second.intent("host", "close", iid="on-b")
            await second.recv_until(lambda f: f["t"] == "host_event")
            await second.quiet(0.3)
            tree_on_b = b.hub.runners[first.session].session.tree.to_wire()
        assert tree_on_b["p"]["open"] is False

        # back on A: its live copy (open) is stale; the visitor gets what B saved (closed)
        async with Client.open(a.ws_url(), seq=second.seq) as third:
            frames = await third.join(resume=second.resume, last=0)
            assert frames[0]["session"] == first.session and frames[0]["resumed"] is True
            snapshot = next(f for f in frames if f["t"] == "snapshot")
            assert snapshot["tree"] == tree_on_b
            await third.intent("host", "open", iid="back-on-a")
            await third.recv_until(lambda f: f["t"] == "host_event")
            await third.quiet(0.3)
        tree_on_a = a.hub.runners[first.session].session.tree.to_wire()
        assert tree_on_a["p"]["open"] is True
        # and back on B, whose live copy is now the stale one
        async with Client.open(b.ws_url(), seq=third.seq) as fourth:
            frames = await fourth.join(resume=third.resume, last=0)
            assert frames[0]["session"] == first.session
            snapshot = next(f for f in frames if f["t"] == "snapshot")
            assert snapshot["tree"] == tree_on_a
