"""The operator's [smart_accounts] section (modalcore/aa/config.py): read from the engine config,
eip155 chains only, the paymaster signer from its key file."""

from __future__ import annotations

from pathlib import Path

import pytest
from eth_account import Account
from pydantic import ValidationError

from modalcore.aa.config import section_of
from modalcore.aa.send import chain_of
from modalcore.server.config import parse_config

FACTORY = "0x251dBA307bdD0DC28fa65AaDc1a73Ea30805CC92"
PAYMASTER = "0x722730C0d06afaC188389DBF2aeA594bD2b22D99"


def test_the_section_is_read_from_the_engine_config(tmp_path: Path) -> None:
    key = Account.create()
    (tmp_path / "paymaster.key").write_text(key.key.hex() + "\n")
    config = parse_config({"smart_accounts": {
        "chains": {"eip155:31337": {"bundler_url": "http://127.0.0.1:4337", "factory": FACTORY, "paymaster": PAYMASTER,
                                    "paymaster_signer_key_file": "paymaster.key"}},
        "sponsor": {"projects": ["demo"], "chains": ["eip155:31337"], "budget_wei_per_day": 5}}}, tmp_path)
    section = section_of(config.model_extra)
    assert section.sponsor is not None and section.sponsor.budget_wei_per_day == 5
    chain = chain_of(section, "eip155:31337", "http://127.0.0.1:8545", config.path)
    assert chain.paymaster == PAYMASTER and chain.paymaster_signer is not None
    assert chain.paymaster_signer.address == key.address


def test_no_section_means_no_smart_accounts_and_no_sponsor() -> None:
    section = section_of(parse_config({}).model_extra)
    assert (section.chains, section.sponsor) == ({}, None)


@pytest.mark.parametrize("chains", [
    {"solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp": {"bundler_url": "http://b", "factory": FACTORY}},
    {"eip155:1": {"bundler_url": "ftp://b", "factory": FACTORY}},
    {"eip155:1": {"bundler_url": "http://b", "factory": "0x12"}},
    {"eip155:1": {"bundler_url": "http://b", "factory": FACTORY, "unknown": 1}},
])
def test_a_malformed_chain_entry_is_refused(chains: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        section_of({"smart_accounts": {"chains": chains}})
