"""Issue 17: the reverse-proxy config of docs/operators/nginx.md (config/nginx.example.conf), run by Debian's nginx
(`make nginx`) in front of two engines on one Redis: the websocket upgrade goes through, a
visitor joins and is answered, and its rejoin through the proxy resumes the same session.
Issue 46: the operator signs in through it on a port that is not 80."""

from __future__ import annotations

import itertools
import logging
import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from modalcore_testing import Client, RunningServer, make_test_config, start_server
from modalcore_testing.nginx import CONFIG, nginx_in_front

_prefixes = itertools.count()


@pytest.fixture()
def proxied(tmp_path: Path, redis_url: str) -> Iterator[tuple[int, RunningServer, RunningServer]]:
    config = make_test_config(store={"kind": "redis", "url": redis_url,
                                     "prefix": f"nginx{next(_prefixes)}:"})
    with start_server(config) as a, start_server(config) as b, nginx_in_front(tmp_path, [a.port, b.port]) as port:
        yield port, a, b


async def test_the_documented_nginx_config_carries_the_websocket_and_the_rejoin(
        proxied: tuple[int, RunningServer, RunningServer]) -> None:
    port, a, b = proxied
    url = f"ws://127.0.0.1:{port}/ws?project=test"
    async with Client.open(url) as visitor:
        frames = await visitor.join()
        assert frames[0]["t"] == "joined" and frames[0]["resumed"] is False
        await visitor.intent("host", "open")
        got = await visitor.recv_until(lambda f: f["t"] == "patch")
        assert got[-1]["ops"]
        await visitor.quiet(0.3)
    owners = [server for server in (a, b) if visitor.session in server.hub.runners]
    assert len(owners) == 1  # one engine served it
    async with Client.open(url, seq=visitor.seq) as again:
        frames = await again.join(resume=visitor.resume, last=visitor.last)
        assert frames[0]["session"] == visitor.session and frames[0]["resumed"] is True


OPERATOR = "operator-token-for-the-nginx-test-0123456789abcdef"


def _sign_in(base: str) -> httpx.Response:
    """What a browser does on the sign-in page at `base`: load the form, post it with the page's
    origin, follow the redirect with the cookie it set."""
    with httpx.Client(base_url=base, timeout=10) as browser:
        form = browser.get("/operator/login")
        assert form.status_code == 200
        csrf = re.search(r"name='csrf' value='([^']+)'", form.text)
        assert csrf is not None
        posted = browser.post("/operator/login", headers={"Origin": base, "Sec-Fetch-Site": "same-origin"},
                              data={"token": OPERATOR, "csrf": csrf.group(1), "next": "/operator/analytics"})
        if posted.status_code != 303:
            return posted
        return browser.get(posted.headers["location"])


def test_rule_the_operator_signs_in_through_the_documented_nginx_config_on_another_port(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """`proxy_set_header Host $http_host` keeps the port the browser used, so the sign-in's
    same-origin check holds; nginx's `$host` (the config before issue 46) drops it, and the
    sign-in is refused with the reason in the engine's log."""
    config = make_test_config(operator_token=OPERATOR)
    with start_server(config) as a, start_server(config) as b:
        with nginx_in_front(tmp_path / "documented", [a.port, b.port]) as port:
            assert port != 80
            page = _sign_in(f"http://127.0.0.1:{port}")
            assert page.status_code == 200 and page.url.path == "/operator/analytics"
        old = CONFIG.read_text().replace("Host $http_host", "Host $host")
        assert old != CONFIG.read_text()
        with caplog.at_level(logging.WARNING, logger="modalcore.server.operator_login"), \
                nginx_in_front(tmp_path / "old", [a.port, b.port], old) as port:
            refused = _sign_in(f"http://127.0.0.1:{port}")
            assert refused.status_code == 403 and refused.json() == {"error": "forbidden"}
    assert any("proxy_set_header Host $http_host" in r.getMessage() for r in caplog.records)
