"""Client of the hosted Blockchain API profile (name) endpoints (behaviour.md §7), the production path
for account names. Failures carry behaviour.md §8's message: the server's first reason description,
else 'Error resolving name', 'Error fetching names for address', 'Error fetching name
suggestions' or 'Error registering name {name}'."""

from __future__ import annotations

from typing import Any

import httpx

from ...rules.names import (
    DEFAULT_SUFFIX,
    ERROR_NAMES_FOR_ADDRESS,
    ERROR_RESOLVING,
    ERROR_SUGGESTIONS,
    error_registering,
)
from .blockchain_api import BlockchainApi

API_VERSION = "2"
EVM_COIN_TYPE = 60  # SLIP-44 Ether (ENSIP-11 for the other EVM chains: 0x80000000 | chainId)


class ProfileApiError(RuntimeError):
    pass


def evm_coin_type(chain_id: int) -> int:
    """ENSIP-11: 60 on Ethereum mainnet, 0x80000000 | chainId on other EVM chains."""
    return EVM_COIN_TYPE if chain_id == 1 else (0x80000000 | chain_id)


def _reason(response: httpx.Response, default: str) -> str:
    try:
        body = response.json()
        description = body["reasons"][0]["description"]
    except (ValueError, KeyError, IndexError, TypeError):
        return default
    return str(description) if description else default


class ProfileApi(BlockchainApi):
    async def _send(self, method: str, path: str, default: str, params: dict[str, object],
                    body: dict[str, object] | None = None) -> object:
        try:
            response = await self.http.request(method, f"{self.base_url}{path}",
                                               params=self._params(params), json=body)
        except httpx.HTTPError as error:
            raise ProfileApiError(default) from error
        if response.status_code != 200:
            raise ProfileApiError(_reason(response, default))
        try:
            return response.json()
        except ValueError:
            raise ProfileApiError(default) from None

    async def account(self, name: str) -> object:
        """GET /v1/profile/account/{name}: apiVersion 2."""
        return await self._send("GET", f"/v1/profile/account/{name}", ERROR_RESOLVING,
                                {"apiVersion": API_VERSION})

    async def reverse(self, address: str, sender: str | None = None) -> object:
        """GET /v1/profile/reverse/{address}: sender, apiVersion."""
        return await self._send("GET", f"/v1/profile/reverse/{address}", ERROR_NAMES_FOR_ADDRESS,
                                {"sender": sender or address, "apiVersion": API_VERSION})

    async def suggestions(self, name: str, zone: str = DEFAULT_SUFFIX.lstrip(".")) -> object:
        """GET /v1/profile/suggestions/{name}: zone."""
        return await self._send("GET", f"/v1/profile/suggestions/{name}", ERROR_SUGGESTIONS,
                                {"zone": zone})

    async def register(self, name: str, coin_type: int, address: str, message: str,
                       signature: str) -> Any:
        """POST /v1/profile/account: coin_type, address, message, signature (`name` only
        names the failure message)."""
        return await self._send("POST", "/v1/profile/account", error_registering(name), {},
                                {"coin_type": coin_type, "address": address, "message": message,
                                 "signature": signature})


class HostedNames:
    """The name-source interface (services.backend.ens.NameSource) over the profile API: a name's
    address for this chain's coin type (ENSIP-11), and an address's first name whose record
    points back at it."""

    def __init__(self, api: ProfileApi, chain_id: int) -> None:
        self.api = api
        self.chain_id = chain_id

    def _address_in(self, profile: Any) -> str | None:
        keys = [str(evm_coin_type(self.chain_id))]
        if self.chain_id == 1:  # mainnet records may also be keyed 0x80000000 | 1
            keys.append(str(0x80000000 | 1))
        for key in keys:
            try:
                address = str(profile["addresses"][key]["address"])
            except (KeyError, TypeError):
                continue
            if address:
                return address
        return None

    async def address_of(self, name: str) -> str | None:
        return self._address_in(await self.api.account(name))

    async def name_of(self, address: str) -> str | None:
        profiles = await self.api.reverse(address)
        for profile in profiles if isinstance(profiles, list) else []:
            pointed = self._address_in(profile)
            if pointed is not None and pointed.lower() == address.lower() and profile.get("name"):
                return str(profile["name"])
        return None
