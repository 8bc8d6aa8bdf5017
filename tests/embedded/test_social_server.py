"""Social sign-in through the running engine (issue 15 §2): a socket session presses "Continue
with Google", gets the authorization URL as an `open_url` effect, the popup signs in at a real
local OpenID provider (panva's oidc-provider), the provider sends it to the engine's callback,
and the session is connected with the auth connector; the same subject gets the same address;
a forged state or a callback replay connects nothing."""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

import httpx
import pytest

from modalcore_dev.devoidc import DevOidcProvider
from modalcore.embedded.keys import Identity, KeyVault
from modalcore.embedded.masterkey import MasterKey
from modalcore.netports import free_port
from modalcore.server.app import create_app
from modalcore.embedded.approval_tree import shown_hash
from modalcore.server.approval import approval_text
from modalcore.server.social import social_text
from modalcore.server.social_window import MAX_SEEN, SEEN_FOR_MS, OpenedWindows
from modalcore.store.memory import MemoryStore
from modalcore.store.notes import MemoryNotes
from modalcore.store.redis import RedisStore
from modalcore_testing import TEST_ORIGIN, TEST_PROJECT, TEST_SECRET, Client, RunningServer, serve_app
from modalcore.server.config import parse_config

from .device import SEEN, DeviceKey
from .device import flow_value, frame_headers
from .social_frame import authorization_url, confirm, device_flow, grant_of


@pytest.fixture(scope="module")
def port() -> int:
    return free_port()


@pytest.fixture(scope="module")
def provider(port: int) -> Iterator[DevOidcProvider]:
    running = DevOidcProvider(f"http://127.0.0.1:{port}/embedded/oidc/callback/google").start()
    yield running
    running.stop()


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("social")


@pytest.fixture(scope="module")
def engine(port: int, provider: DevOidcProvider, folder: Path) -> Iterator[RunningServer]:
    key = folder / "master.key"
    key.write_text(MasterKey.generate().hex())
    config = parse_config({
        "secret": TEST_SECRET,
        "projects": {TEST_PROJECT: {"name": "Test dApp", "origins": [TEST_ORIGIN]}},
        "siwx": {"db": str(folder / "siwx.db"), "key_file": str(folder / "engine.key")},
        "embedded": {"db": str(folder / "embedded.db"), "master_key_file": str(key),
                     "public_url": f"http://127.0.0.1:{port}",
                     "socials": {"google": {"issuer": provider.issuer, "client_id": provider.client_id}}},
    })
    with serve_app(create_app(config), port) as running:
        yield running


async def popup(url: str, login: str, callback_base: str = "") -> httpx.Response:
    """What the visitor does in the popup: the provider's login and consent pages, then the
    redirect to the engine's callback, followed (at `callback_base`, when given: the host a load
    balancer picked for it, issue 42)."""
    async with httpx.AsyncClient(timeout=30, follow_redirects=False) as browser:
        response = await browser.get(url)
        for _ in range(12):
            if response.status_code in (302, 303):
                location = urljoin(str(response.url), response.headers["location"])
                if callback_base and "/embedded/oidc/callback/" in location:
                    location = callback_base + location[location.index("/embedded/oidc/callback/"):]
                response = await browser.get(location)
                if "/embedded/oidc/callback/" in location:
                    return response
                continue
            action = re.search(r'<form[^>]*action="([^"]+)"', response.text)
            prompt = re.search(r'name="prompt" value="(\w+)"', response.text)
            assert action and prompt, response.text[:300]
            form = {"prompt": prompt.group(1)}
            if prompt.group(1) == "login":
                form.update(login=login, password="any")
            response = await browser.post(urljoin(str(response.url), action.group(1)), data=form)
    raise AssertionError("the provider never redirected to the callback")


def _account(frames: list[dict[str, Any]]) -> dict[str, Any]:
    found = [f["data"] for f in frames if f["t"] == "host_event" and f.get("kind") == "account"]
    return found[-1] if found else {}


async def _start(client: Client, base: str, device: DeviceKey | None = None) -> str:
    frames = await client.join(opts={"networks": ["eip155:1"], "features": {"socials": ["google", "farcaster"]}})
    tree = next(f for f in frames if f["t"] == "snapshot")["tree"]
    assert "connect/social/google" in str(tree) and "farcaster" not in str(tree)
    await client.intent("host", "open", {})
    await client.quiet(0.2)
    await client.intent("connect/social/google", "press")
    url = await authorization_url(client, base, device or DeviceKey())
    assert "code_challenge_method=S256" in url and "nonce=" in url and "state=" in url
    return url


async def test_google_sign_in_connects_the_embedded_wallet_and_the_same_subject_gets_the_same_address(
        engine: RunningServer) -> None:
    addresses = []
    for _ in range(2):
        async with engine.client() as client:
            device = DeviceKey()
            answer = await popup(await _start(client, engine.http_url, device), "zoe")
            assert answer.status_code == 200
            assert (await confirm(engine.http_url, answer, device)).status_code == 200
            frames = await client.recv_until(lambda f: _account([f]).get("isConnected") is True, timeout=10)
            account = _account(frames)
            assert account["connector"] == "ID_AUTH"
            addresses.append(account["address"])
    assert addresses[0] == addresses[1]
    async with engine.client() as client:
        device = DeviceKey()
        answer = await popup(await _start(client, engine.http_url, device), "yan")
        await confirm(engine.http_url, answer, device)
        frames = await client.recv_until(lambda f: _account([f]).get("isConnected") is True, timeout=10)
        assert _account(frames)["address"] != addresses[0]


async def test_a_forged_state_or_a_replayed_callback_connects_nothing(engine: RunningServer) -> None:
    async with httpx.AsyncClient(timeout=10) as http:
        forged = await http.get(f"{engine.http_url}/embedded/oidc/callback/google",
                                params={"code": "abc", "state": "forged"})
        assert forged.status_code == 400
        unknown = await http.get(f"{engine.http_url}/embedded/oidc/callback/farcaster", params={"state": "x"})
        assert unknown.status_code == 404
    async with engine.client() as client:
        device = DeviceKey()
        answer = await popup(await _start(client, engine.http_url, device), "wes")
        assert answer.status_code == 200
        await confirm(engine.http_url, answer, device)
        await client.recv_until(lambda f: _account([f]).get("isConnected") is True, timeout=10)
        async with httpx.AsyncClient(timeout=10) as http:
            replay = await http.get(str(answer.url))
        assert replay.status_code == 400  # the state was used once


async def test_only_the_frame_that_opened_the_popup_signs_in_and_its_key_approves(
        engine: RunningServer, caplog: pytest.LogCaptureFixture) -> None:
    """Issue 27, issue 38: the social sign-in registers the key of the engine-origin frame that
    began it, finished by the popup holding the callback's one-time grant (in its script, no
    cookie: SameSite does not separate origins of one site, cookies do not know ports) with that
    frame's signature and flow value, from a page of the engine's origin. A finish from a page
    of another origin of the same site, without the grant, with another flow value or another
    key's signature registers nothing and spends nothing. The frame's key approves (CSP
    frame-ancestors on the approval page); another browser's key verifies in a popup of its
    approval frame first."""
    async with engine.client() as client:
        await client.join(opts={"networks": ["eip155:1"], "siwx": {"required": True},
                                "features": {"socials": ["google"]}})
        await client.intent("host", "open", {})
        await client.quiet(0.2)
        await client.intent("connect/social/google", "press")
        frame, host = DeviceKey(), DeviceKey()
        hosts_url = await authorization_url(client, engine.http_url, host)  # the host server's own key
        callback = await popup(hosts_url, "uma")  # the visitor signs in at the provider
        assert callback.status_code == 200 and "set-cookie" not in callback.headers
        state, grant = grant_of(callback)
        signature = host.sign(social_text(state))
        body = {"grant": grant, "bind": device_flow(host), "signature": signature}
        own = frame_headers(engine.http_url)
        same_site = {"Origin": "http://127.0.0.1:1", "Sec-Fetch-Site": "same-site"}  # the host page's fetch
        async with httpx.AsyncClient(timeout=10, base_url=engine.http_url) as http:
            refused = [
                await http.post("/embedded/social/finish", json=body, headers=same_site),
                await http.post("/embedded/social/finish", json=body),  # no Sec-Fetch-Site: not a frame's fetch
                await http.post("/embedded/social/finish", json={**body, "grant": "x" * 43}, headers=own),
                await http.post("/embedded/social/finish", json={**body, "bind": flow_value()}, headers=own),
                await http.post("/embedded/social/finish", json={**body, "signature": frame.sign(social_text(state))},
                                headers=own),  # not the key that began
                await http.post("/embedded/social/finish", json={"grant": grant, "signature": signature}, headers=own),
            ]
        assert [r.status_code for r in refused] == [403, 403, 403, 403, 403, 403]
        assert not _account(await client.quiet(0.3)).get("isConnected")
        # the frame's own sign-in, confirmed as the popup does it
        callback = await popup(await authorization_url(client, engine.http_url, frame, drawn=True), "uma")
        assert (await confirm(engine.http_url, callback, frame)).status_code == 200
        await client.recv_until(lambda f: "siwx/sign" in str(f), timeout=10)
        await client.intent("siwx/sign", "press")
        got = await client.recv_until(lambda f: "approve/frame/" in str(f), timeout=10)
        assert not [f for f in client.frames if f["t"] == "effect" and f["kind"] in ("eip1193", "open_url")]
        src = re.search(r"/embedded/approve\?session=[^'\"]+?&request=e\d+", str(got[-1]))
        assert src is not None
        session = client.session
        eid = src.group(0).rsplit("=", 1)[1]
        async with httpx.AsyncClient(timeout=10, base_url=engine.http_url) as http:
            page = await http.get(src.group(0))
            assert page.status_code == 200
            csp = page.headers["content-security-policy"]
            assert f"frame-ancestors {TEST_ORIGIN}" in csp and "http://localhost:*" in csp
            assert "wants you to sign in with your Ethereum account" in page.text
            for key, registered in ((host, False), (frame, True)):
                begun = (await http.post("/embedded/approve/begin", json={"session": session, "request": eid,
                                                                          "public_key": key.spki})).json()
                assert begun["registered"] is registered
            # another browser of the visitor: its approval frame verifies in its own popup first
            other = DeviceKey()
            url = (await http.post("/embedded/verify/social", headers=own, json={
                "session": session, "public_key": other.spki, "bind": device_flow(other)})).json()["url"]
            assert (await confirm(engine.http_url, await popup(url, "uma"), other)).status_code == 200
            begun = (await http.post("/embedded/approve/begin", json={"session": session, "request": eid,
                                                                      "public_key": other.spki})).json()
            assert begun["registered"] is True and begun["verify"] == "google" and begun["provider"] == "Google"
            text = approval_text(session, eid, begun["digest"], begun["nonce"], True, SEEN, shown_hash(begun["tree"]))
            good = {"session": session, "request": eid, "approve": True, "nonce": begun["nonce"], "seen": SEEN, "tree_hash": shown_hash(begun["tree"]),
                    "public_key": other.spki, "signature": other.sign(text)}
            assert (await http.post("/embedded/approve", json=good)).status_code == 200
            assert (await http.post("/embedded/approve", json=good)).status_code == 403  # spent
        frames = await client.recv_until(
            lambda f: f["t"] == "host_event" and f.get("kind") == "siwx" and f["data"].get("signedIn") is True,
            timeout=10)
        assert frames
    assert "Traceback" not in caplog.text


async def test_no_private_key_is_stored_or_logged_in_the_clear(
        engine: RunningServer, folder: Path, caplog: pytest.LogCaptureFixture) -> None:
    """After sign-ins and a signature, the engine's files (sessions, sign-in, keys; SQLite main,
    WAL and journal files) and its logs hold no embedded private key (raw, hex or 0x-hex)."""
    async with engine.client() as client:
        device = DeviceKey()
        await confirm(engine.http_url, await popup(await _start(client, engine.http_url, device), "vic"), device)
        await client.recv_until(lambda f: _account([f]).get("isConnected") is True, timeout=10)
    vault = KeyVault(folder / "embedded.db", MasterKey.parse((folder / "master.key").read_text()))
    secrets = [vault.account(Identity("google", name)).key for name in ("vic", "zoe", "uma")]
    stored = b"".join(path.read_bytes() for path in folder.iterdir() if path.is_file())
    logged = caplog.text.encode()
    for key in secrets:
        for form in (bytes(key), key.hex().encode(), ("0x" + key.hex()).encode()):
            assert form not in stored and form not in logged


async def test_the_window_a_press_opens_is_the_engines_page_and_refuses_what_it_does_not_know(
        engine: RunningServer, caplog: pytest.LogCaptureFixture) -> None:
    """Issue 39 item 5: GET /embedded/social/window (the window one press on Connect opens) is an
    engine page with a nonce CSP, shown in no frame, never cached, naming nothing secret; a
    session or provider it does not know, or an oversized one, is a 404 page, nothing else."""
    async with engine.client() as client:
        await client.join(opts={"networks": ["eip155:1"], "features": {"socials": ["google"]}})
        session = client.session
        await client.intent("host", "open", {})
        await client.quiet(0.2)
        await client.intent("connect/social/google", "press")
        await client.recv_until(lambda f: "/embedded/social?" in str(f))
        async with httpx.AsyncClient(base_url=engine.http_url, timeout=10) as http:
            frame = await http.get("/embedded/social", params={"session": session})
            assert '"window": ""' in frame.text  # no window served: the frame looks for none
            good = await http.get("/embedded/social/window", params={"session": session, "provider": "google"})
            assert good.status_code == 200, good.text
            csp = good.headers["content-security-policy"]
            assert "frame-ancestors 'none'" in csp and "script-src 'nonce-" in csp and "unsafe" not in csp
            assert good.headers["cache-control"] == "no-store" and "set-cookie" not in good.headers
            assert "Opening Google…" in good.text and session not in good.text
            frame = await http.get("/embedded/social", params={"session": session})
            assert '"window": "/embedded/social/window"' in frame.text  # now the frame looks for it
            for params in ({}, {"session": session}, {"provider": "google"},
                           {"session": "not-a-session", "provider": "google"},
                           {"session": session, "provider": "github"},  # not configured on this engine
                           {"session": "s" * 5000, "provider": "google"},
                           {"session": session, "provider": "g" * 5000}):
                refused = await http.get("/embedded/social/window", params=params)
                assert refused.status_code == 404 and "no longer waiting" in refused.text, params
                assert "Opening" not in refused.text
    assert "Traceback" not in caplog.text


async def test_the_sessions_whose_window_was_served_are_bounded() -> None:
    """Issue 39: what the window page records (so that the frame looks for the window) expires
    after SEEN_FOR_MS and, in a store only one process uses, keeps at most MAX_SEEN sessions,
    the oldest dropped first."""
    store = MemoryStore()
    windows = OpenedWindows(store)
    await windows.seen("a", 0)
    assert await windows.recent("a", SEEN_FOR_MS) and not await windows.recent("a", SEEN_FOR_MS + 1)
    assert not await windows.recent("b", 0)
    for i in range(MAX_SEEN + 5):
        await windows.seen(f"s{i}", 1_000_000)
    assert not await windows.recent("a", 1_000_000) and not await windows.recent("s4", 1_000_000)
    assert await windows.recent("s5", 1_000_000) and await windows.recent(f"s{MAX_SEEN + 4}", 1_000_000)
    assert isinstance(store.notes, MemoryNotes) and store.notes.marks_held() == MAX_SEEN


async def test_rule_a_window_served_by_one_host_is_seen_by_the_others_on_redis(redis_url: str) -> None:
    """Issue 42: the served-window list is in the shared session store, so the frame's page
    served by another worker or host than the window page still looks for the window."""
    prefix = f"win{secrets.token_hex(4)}:"
    a, b = RedisStore.from_url(redis_url, prefix=prefix), RedisStore.from_url(redis_url, prefix=prefix)
    try:
        await OpenedWindows(a).seen("session-1", 0)
        assert await OpenedWindows(b).recent("session-1", 0)
        assert not await OpenedWindows(b).recent("session-2", 0)
    finally:
        await a.close()
        await b.close()
