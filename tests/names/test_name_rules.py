"""Name rules (behaviour.md §5: letters, digits, hyphens, at least 4 characters; registration needs an
active eip155 network, an address and the auth connector, with behaviour.md §8's messages) and ENS
hashing (EIP-137)."""

from __future__ import annotations

import pytest

from modalcore.rules.names import (
    BAD_CHARACTERS,
    NETWORK_NOT_FOUND,
    NO_ADDRESS_OR_AUTH,
    TOO_SHORT,
    UNSUPPORTED_CHAIN,
    error_registering,
    full_name,
    is_valid_name,
    name_problem,
    registration_problem,
)
from modalcore.services.backend.namehash import labelhash, namehash, reverse_name

ADDRESS = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"


@pytest.mark.parametrize("label", ["abcd", "alice", "Bob-2", "1234", "a-b-c", "x" * 64])
def test_letters_digits_and_hyphens_of_4_or_more_are_names(label: str) -> None:
    assert is_valid_name(label) and name_problem(label) is None


@pytest.mark.parametrize("label", ["", "a", "abc", "a-1"])
def test_fewer_than_4_characters_is_too_short(label: str) -> None:
    assert name_problem(label) is not None
    assert name_problem(label).message == TOO_SHORT == "Name must be at least 4 characters"  # type: ignore[union-attr]


@pytest.mark.parametrize("label", ["ali ce", "alice.eth", "alice_1", "ålice", "al!ce", "abc😀", "a.b"])
def test_other_characters_are_refused(label: str) -> None:
    problem = name_problem(label)
    assert problem is not None and problem.message == BAD_CHARACTERS
    assert BAD_CHARACTERS == "Name can only contain letters, digits and hyphens"


def test_registration_needs_a_network_an_address_and_the_auth_connector() -> None:
    def message(*args: object) -> str | None:
        problem = registration_problem(*args)  # type: ignore[arg-type]
        return None if problem is None else problem.message

    assert message("alice", None, ADDRESS, True) == NETWORK_NOT_FOUND == "Network not found"
    assert message("alice", "eip155:1", None, True) == NO_ADDRESS_OR_AUTH
    assert message("alice", "eip155:1", ADDRESS, False) == "Address or auth connector not found"
    assert message("alice", "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp", ADDRESS, True) == UNSUPPORTED_CHAIN
    assert message("abc", "eip155:1", ADDRESS, True) == TOO_SHORT
    assert message("alice", "eip155:1", ADDRESS, True) is None


def test_full_names_carry_the_suffix_and_failure_names_the_name() -> None:
    assert full_name("Alice") == "alice.reown.id"
    assert full_name("alice", "wcn.id") == "alice.wcn.id"
    assert error_registering("alice.reown.id") == "Error registering name alice.reown.id"


def test_namehash_matches_eip_137() -> None:
    assert namehash("") == b"\x00" * 32
    assert namehash("eth").hex() == "93cdeb708b7545dc668eb9280176169d1c33cfd8ed6f04690a0bcc88a93fc4ae"
    assert namehash("foo.eth").hex() == "de9b09fd7c5f901e23a3f19fecc54828e9c848539801e86591bd9801b019f84f"
    assert namehash("Foo.ETH") == namehash("foo.eth")
    assert labelhash("eth").hex() == "4f5b812789fc606be1b3b16908db13fc7a9adf7ca72641f84d75b47069d3d7f0"
    assert reverse_name(ADDRESS) == "f39fd6e51aad88f6f4ce6ab8827279cfffb92266.addr.reverse"
