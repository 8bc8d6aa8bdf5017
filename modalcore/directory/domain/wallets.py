"""Directory wallets (behaviour.md §3 "Wallet (directory)") and the curated local directory.

`Wallet` is plain frozen data: it travels in `CallSettled` results as JSON and sits in the
session model. Records from a file or a hosted directory are validated here, at the edge.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

DEFAULT_FILE: Traversable = files("modalcore.data") / "wallets.json"  # package data (wheel-safe)
MAX_CHAINS = 64


_SCHEME = re.compile(r"^([a-z][a-z0-9+.-]*):", re.IGNORECASE)
_BLOCKED_SCHEMES = frozenset({"javascript", "data", "vbscript", "file", "blob", "about"})


def safe_link(url: str | None) -> str | None:
    """`url` if it may be opened (a web or app scheme), else None."""
    if not url:
        return None
    match = _SCHEME.match(url.strip())
    if match is None or match.group(1).lower() in _BLOCKED_SCHEMES:
        return None
    return url.strip()


class DirectoryError(RuntimeError):
    """The directory could not be read or answered with something unusable."""


@dataclass(frozen=True)
class Wallet:
    id: str
    name: str
    image_id: str = ""
    rdns: str = ""
    mobile_link: str | None = None
    desktop_link: str | None = None
    webapp_link: str | None = None
    chains: tuple[str, ...] = ()

    @property
    def has_link(self) -> bool:
        return bool(self.mobile_link or self.desktop_link or self.webapp_link)

    def to_json(self) -> dict[str, Any]:
        """The behaviour.md §3 fields, as `/getWallets` answers them."""
        return {
            "id": self.id,
            "name": self.name,
            "image_id": self.image_id,
            "rdns": self.rdns,
            "mobile_link": self.mobile_link,
            "desktop_link": self.desktop_link,
            "webapp_link": self.webapp_link,
            "chains": list(self.chains),
        }


Link = Annotated[str, Field(max_length=2048)] | None


class WalletRecord(BaseModel):
    """One wallet as a file or a hosted directory gives it (other fields are ignored)."""

    model_config = ConfigDict(extra="ignore", frozen=True)
    id: Annotated[str, Field(min_length=1, max_length=128)]
    name: Annotated[str, Field(min_length=1, max_length=128)]
    image_id: Annotated[str, Field(max_length=128)] | None = ""
    rdns: Annotated[str, Field(max_length=256)] | None = ""
    mobile_link: Link = None
    desktop_link: Link = None
    webapp_link: Link = None
    chains: Annotated[tuple[Annotated[str, Field(max_length=128)], ...], Field(max_length=MAX_CHAINS)] | None = ()

    @field_validator("mobile_link", "desktop_link", "webapp_link")
    @classmethod
    def _openable_or_none(cls, value: str | None) -> str | None:
        return safe_link(value)

    def wallet(self) -> Wallet:
        return Wallet(
            id=self.id,
            name=self.name,
            image_id=self.image_id or "",
            rdns=self.rdns or "",
            mobile_link=self.mobile_link,
            desktop_link=self.desktop_link,
            webapp_link=self.webapp_link,
            chains=tuple(self.chains or ()),
        )


def wallet_from_data(data: Mapping[str, object]) -> Wallet:
    """A wallet from untrusted data; `DirectoryError` when it does not validate."""
    try:
        return WalletRecord.model_validate(data).wallet()
    except ValidationError as error:
        raise DirectoryError(f"invalid wallet record: {error.errors()[0]['msg']}") from error


def wallets_from_data(items: Iterable[object]) -> list[Wallet]:
    """Valid wallets of a list, skipping records that do not validate (a hosted answer may
    carry a bad record; the rest of the page is still good)."""
    wallets = []
    for item in items:
        if not isinstance(item, Mapping):
            continue
        try:
            wallets.append(wallet_from_data(item))
        except DirectoryError:
            continue
    return wallets


def read_wallets(path: Traversable | str) -> tuple[Wallet, ...]:
    """The wallets of a directory file: `{"wallets": [...]}` or a bare list."""
    source = Path(path) if isinstance(path, str) else path
    try:
        data = json.loads(source.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise DirectoryError(f"cannot read the wallet directory {path}: {error}") from error
    items = data.get("wallets") if isinstance(data, dict) else data
    if not isinstance(items, list):
        raise DirectoryError(f"{path}: expected a list of wallets")
    wallets = tuple(wallet_from_data(item) for item in items)
    seen: set[str] = set()
    for wallet in wallets:
        if wallet.id in seen:
            raise DirectoryError(f"{path}: wallet id {wallet.id!r} appears twice")
        seen.add(wallet.id)
    return wallets
