"""Issue 33: the EIP-4361 message a Farcaster client answers a channel with, and that the engine
verified, verifies with independent SIWE libraries (SpruceID's `siwe` for Python and for
JavaScript, as tests/siwx/test_siwe_interop.py runs them) at the channel's domain and nonce:
signed by the custody address, chain 10, statement "Farcaster Auth", one `farcaster://fid/N`
resource. The same text with the custody address put in but signed by another key is refused by
the libraries as by the engine."""

from __future__ import annotations

import pytest
from eth_account import Account
from eth_account.messages import encode_defunct

from modalcore_dev.farcaster.democlient import DEV_FIDS, connect_params, sign_in_message
from modalcore.siwx.domain.message import iso_from_ms

from ..siwx.test_siwe_interop import IMPLEMENTATIONS, independent_check
from .test_service import NOW, STRANGER, World, _opened

CAROL = DEV_FIDS[1]


async def _verified_message(world: World) -> tuple[str, str, str]:
    """(text, signature, nonce) of a dev FID's answer that the engine's service verified."""
    channel = await _opened(world)
    params = connect_params(channel["url"])
    assert params is not None
    text, signature = sign_in_message(params, CAROL, NOW)
    world.answer(channel["url"], dev=CAROL)
    verdict = await world.signins.status(channel["channel_token"], channel["nonce"], NOW)
    assert verdict["state"] == "verified" and verdict["fid"] == CAROL.fid
    return text, signature, channel["nonce"]


@pytest.mark.parametrize("library", sorted(IMPLEMENTATIONS))
async def test_the_verified_farcaster_message_verifies_with_an_independent_siwe_library(library: str) -> None:
    text, signature, nonce = await _verified_message(World())
    custody = Account.from_key(CAROL.key).address
    forged = Account.sign_message(encode_defunct(text=text), STRANGER.key).signature.hex()
    cases = [{"text": text, "signature": signature, "domain": "app.example", "nonce": nonce,
              "time": iso_from_ms(NOW + 1_000)},
             {"text": text, "signature": forged if forged.startswith("0x") else "0x" + forged,
              "domain": "app.example", "nonce": nonce, "time": iso_from_ms(NOW + 1_000)},
             {"text": text, "signature": signature, "domain": "app.example", "nonce": "ff" * 12,
              "time": iso_from_ms(NOW + 1_000)}]
    genuine, forged_custody, other_nonce = independent_check(library, cases)
    assert genuine["verified"], genuine["error"]
    assert genuine["rebuilt"] == text
    fields = genuine["fields"]
    assert fields["address"] == custody
    assert (fields["domain"], fields["uri"], fields["chainId"], fields["nonce"]) == (
        "app.example", "https://app.example/", 10, nonce)
    assert fields["statement"] == "Farcaster Auth"
    assert fields["resources"] == [f"farcaster://fid/{CAROL.fid}"]
    assert forged_custody["parsed"] and not forged_custody["verified"]
    assert other_nonce["parsed"] and not other_nonce["verified"]
