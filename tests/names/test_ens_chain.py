"""ENS on the dev chains, against real Hardhat nodes: the dev names resolve forward and
reverse through eth_call; a reverse record whose forward does not match is not shown."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from modalcore_dev.devchain.pytest_plugin import ChainsInfo
from modalcore.services.backend.ens import CachedNames, EnsDeployment, EnsNames, NameLookupError
from modalcore.services.backend.name_cache import ENS_TTL_MS

pytestmark = pytest.mark.chain
DEV_NAMES = {"alice.eth": 0, "bob.eth": 1, "carol.eth": 2}


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient() as client:
        yield client


def names(info: ChainsInfo, http: httpx.AsyncClient, chain_id: int = 31337) -> EnsNames:
    return EnsNames(http, info.rpc_urls[chain_id], EnsDeployment.from_deployment(info.chain(chain_id)))


async def test_dev_names_resolve_forward_and_reverse_on_both_chains(
    devchains: ChainsInfo, http: httpx.AsyncClient
) -> None:
    for chain_id in devchains.chain_ids:
        ens = names(devchains, http, chain_id)
        accounts = devchains.chain(chain_id)["accounts"]
        for name, index in DEV_NAMES.items():
            assert await ens.address_of(name) == accounts[index]
            assert await ens.address_of(name.upper()) == accounts[index]  # names are lower-cased
            assert await ens.name_of(accounts[index]) == name
            assert await ens.name_of(accounts[index].lower()) == name
        assert devchains.chain(chain_id)["ens"]["names"] == {n: accounts[i] for n, i in DEV_NAMES.items()}


async def test_unknown_names_and_addresses_have_none(devchains: ChainsInfo, http: httpx.AsyncClient) -> None:
    ens = names(devchains, http)
    assert await ens.address_of("nobody.eth") is None
    assert await ens.address_of("alice.com") is None
    assert await ens.name_of(devchains.chain(31337)["accounts"][3]) is None


async def test_a_reverse_record_whose_forward_does_not_match_is_not_shown(
    devchain: ChainsInfo, http: httpx.AsyncClient
) -> None:
    entry = devchain.chain(31337)
    impostor = entry["accounts"][3]
    reverse_registrar = entry["ens"]["reverseRegistrar"]
    ens = names(devchain, http)
    with devchain.rpc(31337) as rpc:
        # account 3 claims alice.eth as its reverse name through the real reverse registrar
        rpc.send_call(impostor, reverse_registrar, "setName(string)", ["alice.eth"])
        (node,) = rpc.eth_call(reverse_registrar, "node(address)", [impostor], ["bytes32"])
        (claimed,) = rpc.eth_call(entry["ens"]["publicResolver"], "name(bytes32)", [node], ["string"])
    assert claimed == "alice.eth"  # the record is on chain
    assert await ens.name_of(impostor) is None  # but alice.eth resolves to account 0
    assert await ens.name_of(entry["accounts"][0]) == "alice.eth"


async def test_an_account_setting_its_own_matching_reverse_name_is_shown(
    devchain: ChainsInfo, http: httpx.AsyncClient
) -> None:
    entry = devchain.chain(31337)
    owner = entry["accounts"][1]  # owns bob.eth
    ens = names(devchain, http)
    with devchain.rpc(31337) as rpc:
        rpc.send_call(owner, entry["ens"]["publicResolver"], "setAddr(bytes32,address)",
                      [_namehash("bob.eth"), entry["accounts"][4]])
    # bob.eth now points at account 4: account 1's reverse record no longer matches
    assert await ens.address_of("bob.eth") == entry["accounts"][4]
    assert await ens.name_of(owner) is None


async def test_lookups_are_cached_for_5_minutes_of_the_time_passed_in(
    devchain: ChainsInfo, http: httpx.AsyncClient
) -> None:
    entry = devchain.chain(31337)
    cached = CachedNames(names(devchain, http))
    assert await cached.name_of(entry["accounts"][1], now_ms=1_000) == "bob.eth"
    with devchain.rpc(31337) as rpc:  # bob.eth moves to account 4 on chain
        rpc.send_call(entry["accounts"][1], entry["ens"]["publicResolver"], "setAddr(bytes32,address)",
                      [_namehash("bob.eth"), entry["accounts"][4]])
    assert await cached.name_of(entry["accounts"][1], now_ms=1_000 + ENS_TTL_MS - 1) == "bob.eth"
    assert cached.lookups == 1
    assert await cached.name_of(entry["accounts"][1], now_ms=1_000 + ENS_TTL_MS) is None
    assert cached.lookups == 2
    assert await cached.address_of("bob.eth", now_ms=1_000 + ENS_TTL_MS) == entry["accounts"][4]


async def test_an_unreachable_node_is_error_resolving_name(http: httpx.AsyncClient) -> None:
    from modalcore_dev.devchain import free_port

    ens = EnsNames(http, f"http://127.0.0.1:{free_port()}", EnsDeployment(31337, "0x" + "11" * 20))
    with pytest.raises(NameLookupError, match="^Error resolving name$"):
        await ens.address_of("alice.eth")
    with pytest.raises(NameLookupError, match="^Error fetching names for address$"):
        await ens.name_of("0x" + "22" * 20)


def _namehash(name: str) -> bytes:
    from modalcore.services.backend.namehash import namehash

    return namehash(name)
