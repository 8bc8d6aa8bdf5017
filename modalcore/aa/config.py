"""The operator's `[smart_accounts]` config section (issue 32), next to `[embedded]`.

    [smart_accounts.chains."eip155:31337"]
    bundler_url = "http://127.0.0.1:4337"
    entry_point = "0x0000000071727De22E5E9d8BAf0edAc6f37da032"   # v0.7
    factory = "0x..."                       # ModalSmartAccountFactory
    paymaster = "0x..."                     # a VerifyingPaymaster; empty: never sponsored
    paymaster_signer_key_file = ".modalcore/paymaster.key"   # its verifying signer (hex key)
    [smart_accounts.sponsor]                # policy.py
    projects = ["demo"]  chains = ["eip155:31337"]  budget_wei_per_day = 10000000000000000

A chain without an entry here has no smart accounts (an operation for it is refused:
'unsupported_chain').
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, field_validator

from .policy import SponsorPolicy
from .userop import ENTRY_POINT_V07

_ADDRESS = r"^0x[0-9a-fA-F]{40}$"


class SmartAccountChain(BaseModel):
    """One chain's ERC-4337 parts."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    bundler_url: str = Field(pattern=r"^https?://", max_length=512)  # an ERC-4337 bundler's JSON-RPC
    entry_point: str = Field(default=ENTRY_POINT_V07, pattern=_ADDRESS)  # the EntryPoint (v0.7 only)
    factory: str = Field(pattern=_ADDRESS)  # the account factory (createAccount(owner, salt) / getAddress)
    paymaster: str = Field(default="", pattern=r"^(0x[0-9a-fA-F]{40})?$")  # a VerifyingPaymaster; empty: the account always pays
    # the paymaster's verifying signer: a file holding its private key (hex); relative to the config
    paymaster_signer_key_file: str = Field(default="", max_length=1024)


class SmartAccountsSection(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    chains: Annotated[dict[str, SmartAccountChain], Field(max_length=64)] = {}  # by CAIP-2 id
    sponsor: SponsorPolicy | None = None  # absent: nothing is sponsored

    @field_validator("chains")
    @classmethod
    def _caip2(cls, chains: dict[str, SmartAccountChain]) -> dict[str, SmartAccountChain]:
        for chain in chains:
            namespace, _, reference = chain.partition(":")
            if namespace != "eip155" or not reference.isdigit():
                raise ValueError(f"{chain!r}: smart accounts are on eip155 chains")
        return chains


def section_of(extra: dict[str, object] | None) -> SmartAccountsSection:
    return SmartAccountsSection.model_validate((extra or {}).get("smart_accounts") or {})


def read_signer_key(path: Path) -> str:
    """The paymaster signer's private key (0x + 64 hex digits) from its file."""
    text = path.read_text().strip()
    key = text.removeprefix("0x")
    if len(key) != 64:
        raise ValueError(f"{path}: a paymaster signer key is 32 bytes of hex")
    bytes.fromhex(key)
    return "0x" + key
