"""What the engine-origin frames send besides their key (`DeviceKey`, SEEN: modalcore_testing/device.py,
shared with the bench): the headers of an engine-origin fetch, the social flow value, a
registration body."""

from __future__ import annotations

import secrets

from modalcore_testing.device import SEEN as SEEN, DeviceKey as DeviceKey  # re-exported: the tests import them from here
from modalcore_testing.passkey import b64


def frame_headers(base_url: str) -> dict[str, str]:
    """What Chromium sends with a fetch from a page of the engine's own origin (issue 38): the
    sign-in and registration POSTs take nothing else."""
    return {"Origin": base_url.rstrip("/"), "Sec-Fetch-Site": "same-origin"}


def flow_value() -> str:
    """The value the social frame's script makes for one sign-in: 32 random bytes, base64url."""
    return b64(secrets.token_bytes(32))


def registration(session: str, code: str, device: DeviceKey) -> dict[str, str]:
    """The body the sign-in frame posts with a code: its key signed for this session and code."""
    text = f"modalcore-register\n{session}\n{code}".encode()
    return {"session": session, "code": code, "public_key": device.spki, "signature": device.sign(text)}
