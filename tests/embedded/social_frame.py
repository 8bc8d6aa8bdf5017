"""What the engine-origin social frame and its popup do (issue 27), played over HTTP: the frame
asks the authorization URL with its public key; after the provider, the callback page (holding
the HttpOnly grant cookie) gets the frame's signature over the sign-in's state and posts it."""

from __future__ import annotations

import re

import httpx

from modalcore.server.social import GRANT_COOKIE, social_text
from modalcore_testing import Client

from .device import DeviceKey


async def authorization_url(client: Client, base: str, device: DeviceKey, *, drawn: bool = False) -> str:
    """ConnectingSocial's frame, Continue pressed: the provider's URL bound to the frame's key
    (`drawn`: the frame is on screen already)."""
    if not drawn:
        await client.recv_until(lambda f: "/embedded/social?" in str(f))
    async with httpx.AsyncClient(base_url=base, timeout=10) as http:
        answer = await http.post("/embedded/verify/social", json={"session": client.session,
                                                                   "public_key": device.spki})
    assert answer.status_code == 200, answer.text
    url: str = answer.json()["url"]
    return url


async def confirm(base: str, callback: httpx.Response, device: DeviceKey) -> httpx.Response:
    """The callback page asks its opener (the frame) to sign the state; the popup posts it."""
    grant = callback.cookies.get(GRANT_COOKIE)
    state = re.search(r'const state = "([^"]+)"', callback.text)
    assert grant is not None and state is not None, callback.text[:300]
    async with httpx.AsyncClient(base_url=base, timeout=10) as http:
        return await http.post("/embedded/social/finish", json={"signature": device.sign(social_text(state.group(1)))},
                               headers={"Cookie": f"{GRANT_COOKIE}={grant}"})
