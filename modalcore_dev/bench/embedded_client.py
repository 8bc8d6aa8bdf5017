"""The embedded wallet's browser side as the bench plays it over real sockets: the engine-origin
frame's WebCrypto key, the email sign-in (the mailed code POSTed with the key it registers), a
host request until its approval frame appears, and the frame's signed Approve until the host's
answer. Used by the sections that time the embedded wallet and smart accounts through the
engine (embedded, aa, aa-approve)."""

from __future__ import annotations

import asyncio
import re
import time
from typing import Any

import httpx

from modalcore.embedded.approval_tree import shown_hash
from modalcore.server.approval import approval_text
from modalcore.server.verify import registration_text
from modalcore_dev.devmail import LocalSmtpServer
from modalcore_testing import Client
from modalcore_testing.device import SEEN, DeviceKey

TIMEOUT_S = 60.0


def answers(frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The host's `rpc` answers among `frames`."""
    return [f["data"] for f in frames if f["t"] == "host_event" and f.get("kind") == "rpc"]


def _connected(frame: dict[str, Any]) -> bool:
    return frame["t"] == "host_event" and frame.get("kind") == "account" and frame["data"].get("isConnected") is True


async def submit_email(client: Client, smtp: LocalSmtpServer, email: str) -> str:
    """The email typed on Connect until the sign-in frame is drawn and the code is in the mailbox
    (the SMTP server accepted it); the code."""
    before = len(smtp.mailbox.to(email))
    await client.intent("connect/email", "submit", {"value": email})
    await client.recv_until(lambda f: "/embedded/signin?" in str(f), timeout=TIMEOUT_S)
    deadline = time.monotonic() + TIMEOUT_S
    while len(smtp.mailbox.to(email)) <= before:
        if time.monotonic() > deadline:
            raise RuntimeError("no sign-in code mailed")
        await asyncio.sleep(0.005)
    code = re.search(r"\b(\d{6})\b", smtp.mailbox.to(email)[-1].body)
    if code is None:
        raise RuntimeError("no code in the mail")
    return code.group(1)


async def post_code(client: Client, http: httpx.AsyncClient, code: str, device: DeviceKey) -> str:
    """The sign-in frame's POST of the code with the key it registers, until the host is told the
    account is connected; the address."""
    text = registration_text(client.session, code)
    deadline = time.monotonic() + TIMEOUT_S
    while True:
        answer = await http.post("/embedded/signin", json={"session": client.session, "code": code,
                                                           "public_key": device.spki, "signature": device.sign(text)},
                                 headers={"Origin": str(http.base_url).rstrip("/"), "Sec-Fetch-Site": "same-origin"})
        # Another host reads the state the session's host saved last, and that host sends the
        # sign-in frame before its save: a POST a few milliseconds after the mail (no visitor
        # types that fast) can beat the save. Refused before any database call; asked again.
        if answer.status_code != 404 or time.monotonic() > deadline:
            break
        await asyncio.sleep(0.05)
    if answer.json() != {"verdict": "accepted"}:
        raise RuntimeError(f"sign-in refused: {answer.text}")
    frames = await client.recv_until(_connected, timeout=TIMEOUT_S)
    return str([f for f in frames if _connected(f)][-1]["data"]["address"])


async def sign_in(client: Client, http: httpx.AsyncClient, smtp: LocalSmtpServer, device: DeviceKey,
                  email: str, networks: list[str]) -> str:
    """Join, open, the email submitted, the mailed code POSTed: the signed-in address."""
    await client.join(opts={"networks": networks})
    await client.intent("host", "open", {})
    code = await submit_email(client, smtp, email)
    return await post_code(client, http, code, device)


async def ask(client: Client, rpc_id: str, method: str, params: list[Any]) -> str:
    """The host's request until its approval frame is in the tree; the request id."""
    await client.intent("host", "rpc", {"id": rpc_id, "method": method, "params": params})
    got = await client.recv_until(lambda f: "approve/frame/" in str(f), timeout=TIMEOUT_S)
    found = re.search(r"/embedded/approve\?session=[\w-]+&request=(e\d+)", str(got[-1]))
    if found is None:
        raise RuntimeError("no approval frame")
    return found.group(1)


async def begin(client: Client, http: httpx.AsyncClient, eid: str, device: DeviceKey) -> dict[str, Any]:
    """The frame's challenge for its Approve (what it draws and the nonce to sign)."""
    begun: dict[str, Any] = (await http.post("/embedded/approve/begin", json={
        "session": client.session, "request": eid, "public_key": device.spki})).json()
    return begun


async def post_approve(client: Client, http: httpx.AsyncClient, eid: str, device: DeviceKey,
                       begun: dict[str, Any]) -> int:
    """The frame's signed Approve of the challenge `begun` POSTed (to whichever host `http`
    reaches); its status."""
    text = approval_text(client.session, eid, begun["digest"], begun["nonce"], True, SEEN, shown_hash(begun["tree"]))
    answer = await http.post("/embedded/approve", json={
        "session": client.session, "request": eid, "approve": True, "nonce": begun["nonce"], "seen": SEEN,
        "tree_hash": shown_hash(begun["tree"]), "public_key": device.spki, "signature": device.sign(text)})
    return answer.status_code


async def approve(client: Client, http: httpx.AsyncClient, eid: str, device: DeviceKey,
                  begun: dict[str, Any] | None = None) -> dict[str, Any]:
    """The frame's Approve (challenge, signature, POST) until the host's answer."""
    begun = begun or await begin(client, http, eid, device)
    status = await post_approve(client, http, eid, device, begun)
    if status != 200:
        raise RuntimeError(f"approve refused: {status}")
    frames = await client.recv_until(lambda f: bool(answers([f])), timeout=TIMEOUT_S)
    result = answers(frames)[-1]
    if not result.get("ok"):
        raise RuntimeError(f"the request failed: {result}")
    return result
