"""The `wc:` pairing URI: the spec's example, the SDK's formatting, expiry, bad input."""

from __future__ import annotations

import pytest

from modalcore.server.config import ConfigError, parse_config
from modalcore.walletconnect.backend.uri import PAIRING_EXPIRY_MS, PairingUri, UriError, pairing_expiry, parse_uri

TOPIC = "7f6e504bfad60b485450578e05678ed3e8e8c4751d3c6160be17160d63ec90f9"
KEY = "587d5484ce2a2a6ee3ba1962fdd7e8588e06200c46823bd18fbd67def96ad303"
SPEC_URI = (f"wc:{TOPIC}@2?symKey={KEY}&methods=[wc_sessionPropose],[wc_authRequest,wc_authBatchRequest]"
            "&relay-protocol=irn&expiryTimestamp=1705667684")


def test_the_spec_example_parses() -> None:
    uri = parse_uri(SPEC_URI)
    assert (uri.topic, uri.sym_key, uri.relay_protocol, uri.expiry_timestamp) == (TOPIC, KEY, "irn", 1705667684)
    assert uri.methods == ("[wc_sessionPropose]", "[wc_authRequest", "wc_authBatchRequest]")


def test_format_sorts_parameters_like_the_sdk_and_round_trips() -> None:
    uri = PairingUri(TOPIC, KEY, 1705667684)
    text = uri.format()
    assert text == f"wc:{TOPIC}@2?expiryTimestamp=1705667684&relay-protocol=irn&symKey={KEY}"
    assert parse_uri(text) == uri
    assert parse_uri(text.replace("wc:", "wc://")) == uri


def test_pairing_expiry_is_240000_ms() -> None:
    assert PAIRING_EXPIRY_MS == 240_000
    assert pairing_expiry(1_700_000_000_000) == 1_700_000_240


@pytest.mark.parametrize("text", [
    "", "http://x", f"wc:{TOPIC}@1?symKey={KEY}&relay-protocol=irn&expiryTimestamp=1",
    f"wc:{TOPIC[:-2]}@2?symKey={KEY}&relay-protocol=irn&expiryTimestamp=1",
    f"wc:{TOPIC}@2?symKey=zz&relay-protocol=irn&expiryTimestamp=1",
    f"wc:{TOPIC}@2?symKey={KEY}&expiryTimestamp=1",
    f"wc:{TOPIC}@2?symKey={KEY}&relay-protocol=irn&expiryTimestamp=soon",
])
def test_bad_uris_raise_a_typed_error(text: str) -> None:
    with pytest.raises(UriError):
        parse_uri(text)


def test_the_operator_pairing_expiry_defaults_to_spec_and_is_bounded() -> None:
    """Rule: behaviour.md §9's 240,000 ms unless the operator sets `walletconnect.pairing_expiry_ms` (tests
    that watch a URI expire); between 15 s and that value, else a config error."""
    assert parse_config({}).walletconnect.pairing_expiry_ms == PAIRING_EXPIRY_MS == 240_000
    short = parse_config({"walletconnect": {"pairing_expiry_ms": 15_000}})
    assert short.walletconnect.pairing_expiry_ms == 15_000
    assert pairing_expiry(1_700_000_000_000, 15_000) == 1_700_000_015
    for bad in (14_999, 240_001):
        with pytest.raises(ConfigError):
            parse_config({"walletconnect": {"pairing_expiry_ms": bad}})
