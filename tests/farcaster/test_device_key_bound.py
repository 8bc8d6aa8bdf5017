"""Rule (limits.py, a device key): a frame's public key is a SubjectPublicKeyInfo of at most
DEVICE_KEY_SPKI_BYTES, and every place that carries it as text (a companion join, the relay
between processes, a Farcaster channel's `public_key`) bounds it by the same DEVICE_KEY_CHARS,
which is that many bytes in base64: a key one place accepts is never refused by another."""

from __future__ import annotations

import base64

import pytest
from pydantic import ValidationError

from modalcore.rules import limits as L
from modalcore.server import companion_relay
from modalcore.slices.farcaster import ChannelOpened

CHANNEL = {"channel_token": "t" * 32, "url": "farcaster://connect?channelToken=" + "t" * 32, "nonce": "cafe" * 8}


def test_the_largest_key_in_base64url_is_device_key_chars() -> None:
    largest = base64.urlsafe_b64encode(b"\xff" * L.DEVICE_KEY_SPKI_BYTES).decode()
    assert len(largest) == L.DEVICE_KEY_CHARS == 344
    assert L.COMPANION_KEY_CHARS == companion_relay.KEY_CHARS == L.DEVICE_KEY_CHARS


def test_a_channel_takes_the_largest_key_and_refuses_one_character_more() -> None:
    largest = base64.urlsafe_b64encode(b"\xff" * L.DEVICE_KEY_SPKI_BYTES).decode()
    assert ChannelOpened(**CHANNEL, public_key=largest).public_key == largest
    with pytest.raises(ValidationError):
        ChannelOpened(**CHANNEL, public_key=largest + "A")
