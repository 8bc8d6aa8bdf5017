"""behaviour.md §5 validation rules with their exact messages."""

from __future__ import annotations

import base58
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from solders.keypair import Keypair
from solders.pubkey import Pubkey

from modalcore.rules.addresses import is_evm_address, is_solana_address, is_solana_wallet_address
from modalcore.rules.caip import CaipError, parse_caip2, parse_caip10, validate_evm_chain_id
from modalcore.slices.options import OptionsError, parse_options


@pytest.mark.parametrize("value", ["eip155:1:0xabc:extra", "eip155:1", "unknown:1:0xabc", "eip155::0xabc", ":1:a"])
def test_invalid_caip10_address(value: str) -> None:
    with pytest.raises(CaipError, match="^Invalid CAIP-10 address$"):
        parse_caip10(value)


def test_valid_caip10_address() -> None:
    parsed = parse_caip10("eip155:1:0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266")
    assert parsed.network == "eip155:1"


@pytest.mark.parametrize("value", ["eip155", "eip155:", ":1", "eip155:1:2"])
def test_invalid_caip2_network_id(value: str) -> None:
    with pytest.raises(CaipError, match="^Invalid CAIP-2 network id$"):
        parse_caip2(value)


def test_evm_chain_id_of_2147483648_or_more_is_invalid() -> None:
    assert validate_evm_chain_id(2147483647) == 2147483647
    with pytest.raises(CaipError, match="^Invalid chainId$"):
        validate_evm_chain_id(2147483648)
    with pytest.raises(CaipError, match="^Invalid chainId$"):
        parse_caip2("eip155:2147483648")


def test_host_networks_are_validated_as_caip2() -> None:
    with pytest.raises(OptionsError, match="^Invalid CAIP-2 network id$"):
        parse_options({"networks": ["eip155"]})
    with pytest.raises(OptionsError, match="^Invalid chainId$"):
        parse_options({"networks": ["eip155:99999999999"]})


def test_evm_address_is_optional_0x_then_40_hex() -> None:
    assert is_evm_address("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266")
    assert is_evm_address("f39Fd6e51aad88F6F4ce6aB8827279cffFb92266")
    assert not is_evm_address("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb9226")
    assert not is_evm_address("0xg39Fd6e51aad88F6F4ce6aB8827279cffFb92266")


def test_solana_address_is_base58_of_32_to_44_characters() -> None:
    assert is_solana_address("4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T")
    assert not is_solana_address("0OIl" * 10)
    assert not is_solana_address("abc")


def test_setting_both_siwe_config_and_siwx_throws() -> None:
    with pytest.raises(OptionsError, match="^Cannot set both `siweConfig` and `siwx` options$"):
        parse_options({"siweConfig": {}, "siwx": {}})


@settings(max_examples=2000, deadline=None)
@given(st.binary(min_size=32, max_size=32))
def test_a_solana_wallet_address_is_on_the_curve_as_solders_reads_it(raw: bytes) -> None:
    address = base58.b58encode(raw).decode()
    assert is_solana_wallet_address(address) == Pubkey(raw).is_on_curve()


def test_a_program_derived_address_is_not_a_wallet_address() -> None:
    program = Pubkey.from_string("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA")
    derived, _ = Pubkey.find_program_address([b"seed"], program)
    assert not is_solana_wallet_address(str(derived))
    assert is_solana_wallet_address(str(Keypair.from_seed(bytes(32)).pubkey()))
    identity = bytes([1] + [0] * 31)  # y = 1: x = 0, on the curve
    assert Pubkey(identity).is_on_curve() and is_solana_wallet_address(base58.b58encode(identity).decode())
