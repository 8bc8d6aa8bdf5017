"""What the engine-origin social frame and its popup do (issue 27, issue 38), played over HTTP:
the frame asks the authorization URL with its public key and a flow value it made; after the
provider, the callback page (holding the one-time grant in its script) gets the frame's
signature over the sign-in's state and the flow value, and posts them, as a page of the
engine's origin does."""

from __future__ import annotations

import re

import httpx

from modalcore.server.social import social_text
from modalcore_testing import Client

from .device import DeviceKey, flow_value, frame_headers


async def authorization_url(client: Client, base: str, device: DeviceKey, *, drawn: bool = False,
                            bind: str = "") -> str:
    """ConnectingSocial's frame, Continue pressed: the provider's URL bound to the frame's key
    and flow value (`drawn`: the frame is on screen already)."""
    if not drawn:
        await client.recv_until(lambda f: "/embedded/social?" in str(f))
    async with httpx.AsyncClient(base_url=base, timeout=10, headers=frame_headers(base)) as http:
        answer = await http.post("/embedded/verify/social", json={"session": client.session,
                                                                   "public_key": device.spki,
                                                                   "bind": bind or device_flow(device)})
    assert answer.status_code == 200, answer.text
    url: str = answer.json()["url"]
    return url


_FLOWS: dict[str, str] = {}


def device_flow(device: DeviceKey) -> str:
    """The flow value this test's frame made (one per key, as one frame begins one sign-in)."""
    return _FLOWS.setdefault(device.spki, flow_value())


def grant_of(callback: httpx.Response) -> tuple[str, str]:
    """(state, grant) the callback page holds in its script."""
    found = re.search(r'const state = "([^"]+)", grant = "([^"]+)"', callback.text)
    assert found is not None, callback.text[:300]
    return found.group(1), found.group(2)


async def confirm(base: str, callback: httpx.Response, device: DeviceKey) -> httpx.Response:
    """The callback page asks its opener (the frame) to sign the state; the popup posts it."""
    state, grant = grant_of(callback)
    async with httpx.AsyncClient(base_url=base, timeout=10, headers=frame_headers(base)) as http:
        return await http.post("/embedded/social/finish", json={
            "grant": grant, "bind": device_flow(device), "signature": device.sign(social_text(state))})
