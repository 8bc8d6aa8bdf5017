"""EIP-4361 text: exact layout, round trips, strict parsing."""

from __future__ import annotations

import pytest

from modalcore.siwx.domain.grammar import SiwxMessageError, SiwxParseError
from modalcore.siwx.domain.message import SiwxMessage, iso_from_ms, parse_chain_id, timestamp_ms

from .conftest import ADDRESS_0

FULL = (
    "service.org wants you to sign in with your Ethereum account:\n"
    "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266\n"
    "\n"
    "I accept the ServiceOrg Terms of Service: https://service.org/tos\n"
    "\n"
    "URI: https://service.org/login\n"
    "Version: 1\n"
    "Chain ID: 1\n"
    "Nonce: 32891756\n"
    "Issued At: 2021-09-30T16:25:24Z\n"
    "Expiration Time: 2021-10-30T16:25:24.500Z\n"
    "Not Before: 2021-09-30T16:25:24+02:00\n"
    "Request ID: req-1:a@b\n"
    "Resources:\n"
    "- ipfs://bafybeiemxf5abjwjbikoz4mc3a3dla6ual3jsgpdr4cjr3oz3evfyavhwq/\n"
    "- https://example.com/my-web2-claim.json"
)

MINIMAL = (
    "localhost:3000 wants you to sign in with your Ethereum account:\n"
    "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266\n"
    "\n"
    "\n"
    "URI: http://localhost:3000\n"
    "Version: 1\n"
    "Chain ID: 31337\n"
    "Nonce: abcdEFGH1234\n"
    "Issued At: 2023-11-14T22:13:20.000Z"
)


def test_parses_every_field() -> None:
    message = SiwxMessage.parse(FULL)
    assert message.domain == "service.org"
    assert message.account_address == ADDRESS_0
    assert message.statement == "I accept the ServiceOrg Terms of Service: https://service.org/tos"
    assert message.uri == "https://service.org/login"
    assert message.version == "1"
    assert message.chain_id == 1
    assert message.nonce == "32891756"
    assert message.issued_at == "2021-09-30T16:25:24Z"
    assert message.expiration_time == "2021-10-30T16:25:24.500Z"
    assert message.not_before == "2021-09-30T16:25:24+02:00"
    assert message.request_id == "req-1:a@b"
    assert message.resources == (
        "ipfs://bafybeiemxf5abjwjbikoz4mc3a3dla6ual3jsgpdr4cjr3oz3evfyavhwq/",
        "https://example.com/my-web2-claim.json",
    )
    assert message.to_text() == FULL


def test_without_statement_two_blank_lines_follow_the_address() -> None:
    message = SiwxMessage.parse(MINIMAL)
    assert message.statement is None and message.resources is None
    assert message.expiration_time is None and message.not_before is None
    assert message.to_text() == MINIMAL


def test_create_renders_the_eip4361_layout() -> None:
    message = SiwxMessage.create(
        domain="localhost:3000",
        address=ADDRESS_0.lower(),  # checksummed on the way in
        uri="http://localhost:3000",
        chain_id="eip155:31337",
        nonce="abcdEFGH1234",
        now_ms=1_700_000_000_000,
    )
    assert message.to_text() == MINIMAL
    assert message.issued_at_ms == 1_700_000_000_000


def test_an_empty_resources_list_writes_no_resources_line() -> None:
    """Issue 11: `Resources:` with nothing under it is dropped by SIWE libraries when they
    rebuild the message, which then fails their signature check; so none is ever written."""
    message = SiwxMessage.parse(MINIMAL)
    empties: tuple[tuple[str, ...], list[str]] = ((), [])
    for empty in empties:
        made = SiwxMessage.create(
            domain="localhost:3000", address=ADDRESS_0, uri="http://localhost:3000",
            chain_id=31337, nonce="abcdEFGH1234", now_ms=1_700_000_000_000, resources=empty,
        )
        assert made.to_text() == MINIMAL
        assert made == message and made.resources is None
        assert "resources" not in made.to_data()


def test_a_bare_resources_line_is_still_accepted() -> None:
    """The ABNF allows `Resources:` with no item; such a message (signed elsewhere) parses."""
    message = SiwxMessage.parse(MINIMAL + "\nResources:")
    assert message.resources is None
    assert message.to_text() == MINIMAL


def test_data_round_trip_uses_spec_names() -> None:
    message = SiwxMessage.parse(FULL)
    data = message.to_data()
    assert data["accountAddress"] == ADDRESS_0
    assert data["chainId"] == "eip155:1"
    assert data["issuedAt"] == "2021-09-30T16:25:24Z"
    assert set(data) == {
        "domain", "accountAddress", "statement", "uri", "version", "chainId", "nonce",
        "issuedAt", "expirationTime", "notBefore", "requestId", "resources",
    }
    assert SiwxMessage.from_data(data) == message
    assert SiwxMessage.from_data({**data, "chainId": 1}) == message
    with pytest.raises(SiwxMessageError):
        SiwxMessage.from_data({**data, "scheme": "https"})


def test_times() -> None:
    assert timestamp_ms("1970-01-01T00:00:01.5Z") == 1500
    assert timestamp_ms("1970-01-01T01:00:00+01:00") == 0
    assert timestamp_ms("2021-10-30T16:25:24.500123Z") % 1000 == 500
    assert iso_from_ms(1_700_000_000_123) == "2023-11-14T22:13:20.123Z"
    for bad in ("2021-13-01T00:00:00Z", "2021-01-01 00:00:00Z", "2021-01-01T00:00:00", "yesterday"):
        with pytest.raises(SiwxMessageError):
            timestamp_ms(bad)


def test_chain_ids() -> None:
    assert parse_chain_id(1) == parse_chain_id("1") == parse_chain_id("eip155:1") == 1
    for bad in (0, -1, True, "01", "solana:1", "eip155:", "x"):
        with pytest.raises(SiwxMessageError):
            parse_chain_id(bad)


def _replace(text: str, old: str, new: str) -> str:
    assert old in text
    return text.replace(old, new, 1)


@pytest.mark.parametrize(
    ("text", "field"),
    [
        (_replace(MINIMAL, ADDRESS_0, ADDRESS_0.lower()), "accountAddress"),  # not EIP-55
        (_replace(MINIMAL, ADDRESS_0, "0x" + "ab" * 19), "accountAddress"),
        (_replace(MINIMAL, "Nonce: abcdEFGH1234", "Nonce: abc123"), "nonce"),  # < 8 chars
        (_replace(MINIMAL, "Nonce: abcdEFGH1234", "Nonce: abcd-EFGH-1234"), "nonce"),
        (_replace(MINIMAL, "Version: 1", "Version: 2"), "version"),
        (_replace(MINIMAL, "Chain ID: 31337", "Chain ID: 0x7a69"), "chainId"),
        (_replace(MINIMAL, "Chain ID: 31337", "Chain ID: 031337"), "chainId"),
        (_replace(MINIMAL, "2023-11-14T22:13:20.000Z", "2023-11-14"), "issuedAt"),
        (_replace(MINIMAL, "URI: http://localhost:3000", "URI: not a uri"), "uri"),
        (_replace(MINIMAL, "localhost:3000 wants", "https://localhost:3000 wants"), "domain"),
        (_replace(MINIMAL, "localhost:3000 wants", "evil.com/x wants"), "domain"),
        (_replace(FULL, "Request ID: req-1:a@b", "Request ID: a b"), "requestId"),
        (_replace(FULL, "- https://example.com/my-web2-claim.json", "- not a uri"), "resources"),
        (_replace(FULL, "I accept", 'I "accept"'), "statement"),
    ],
)
def test_field_errors_name_the_field(text: str, field: str) -> None:
    with pytest.raises(SiwxParseError) as caught:
        SiwxMessage.parse(text)
    assert caught.value.field == field


@pytest.mark.parametrize(
    "text",
    [
        "",
        MINIMAL + "\n",  # trailing newline
        MINIMAL.replace("\n", "\r\n"),
        _replace(MINIMAL, "\n\n\nURI", "\n\nURI"),  # one blank line only
        _replace(FULL, "Terms of Service: https://service.org/tos\n", "Terms\nof Service\n"),
        _replace(MINIMAL, "wants you to sign in with your Ethereum account:", "wants you to sign in:"),
        _replace(MINIMAL, "Version: 1\nChain ID: 31337", "Chain ID: 31337\nVersion: 1"),  # order
        _replace(FULL, "Expiration Time: 2021-10-30T16:25:24.500Z\nNot Before: 2021-09-30T16:25:24+02:00",
                 "Not Before: 2021-09-30T16:25:24+02:00\nExpiration Time: 2021-10-30T16:25:24.500Z"),
        MINIMAL + "\nHello: there",
        _replace(MINIMAL, "\nNonce: abcdEFGH1234", ""),  # missing nonce
    ],
)
def test_malformed_text_is_a_parse_error(text: str) -> None:
    with pytest.raises(SiwxParseError):
        SiwxMessage.parse(text)


def test_building_an_invalid_message_fails_early() -> None:
    with pytest.raises(SiwxMessageError) as caught:
        SiwxMessage.create(
            domain="a.com", address=ADDRESS_0, uri="https://a.com", chain_id=1,
            nonce="abcdefgh", now_ms=0, statement="two\nlines",
        )
    assert caught.value.field == "statement"
    with pytest.raises(SiwxMessageError):
        SiwxMessage.create(domain="a.com", address="0x12", uri="https://a.com", chain_id=1,
                           nonce="abcdefgh", now_ms=0)


def test_message_is_frozen_and_hashable() -> None:
    message = SiwxMessage.parse(FULL)
    with pytest.raises(AttributeError):
        message.nonce = "zzzzzzzz"  # type: ignore[misc]
    assert hash(message) == hash(SiwxMessage.parse(FULL))
