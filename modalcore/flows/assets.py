"""`wallet_getAssets` answered by the embedded wallet (behaviour.md §6 safe list, §3 Wallet asset;
EIP-7811), without approval.

The request `[{account, chainFilter?, assetFilter?, assetTypeFilter?}]` is validated strictly
(bounded: rules/limits.py ASSETS_*). Only the signed-in embedded account may be asked (else 4100)
and only the configured EVM chains (else 4902, naming the chain); nothing is read then. For each
chain asked, the engine's `balances` service reads the native balance and the network's
configured ERC-20 tokens (one `Call` per chain, its reply `AssetBalancesFetched`); once every
chain answered, the answer is keyed by hex chain id, each asset in behaviour.md §3's shape:
`{address, balance (hex), type ("NATIVE" | "ERC20"), metadata {name, symbol, decimals, price,
iconUrl}}`. The native asset's address is "native" (EIP-7811); a price the operator did not
configure is 0. With `assetFilter` only the assets it names are answered (EIP-7811: it
overrides the other filters); `chainFilter` keeps those chains, `assetTypeFilter` those types
(compared case-insensitively: "native", "erc20").
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Literal, TypedDict

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..chains.catalog import Network
from ..core.cmds import Call, Reply
from ..core.evolve import replace
from ..core.shape import On, Slice
from ..rules import limits as L
from ..slices.balances import Balances
from ..slices.embedded import EmbeddedRequest
from .wallet_answer import INTERNAL_ERROR, INVALID_PARAMS, answer
from ..services.domain.handles import BALANCES

if TYPE_CHECKING:
    from ..slices.model import Model, Step

METHOD = "wallet_getAssets"
SERVICE = BALANCES  # services/backend/table.py: eth_getBalance + ERC-20 balanceOf in one batch
NAMESPACE = "eip155"
UNAUTHORIZED = 4100  # EIP-1193: the account is not one this wallet authorized
UNRECOGNIZED_CHAIN = 4902
NATIVE = "native"

_HEX_CHAIN = r"^0x[0-9a-fA-F]{1,16}$"
ChainHex = Annotated[str, Field(pattern=_HEX_CHAIN)]
AssetType = Annotated[str, Field(min_length=1, max_length=L.ASSET_TYPE_CHARS)]


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)


class AssetRef(_Strict):
    address: Annotated[str, Field(pattern=r"^(native|0x[0-9a-fA-F]{40})$")]
    type: AssetType


class GetAssetsParams(_Strict):
    """EIP-7811's request object."""

    account: Annotated[str, Field(pattern=r"^0x[0-9a-fA-F]{40}$")]
    chain_filter: Annotated[list[ChainHex], Field(max_length=L.ASSETS_CHAINS)] | None = Field(
        default=None, alias="chainFilter")
    asset_filter: Annotated[
        dict[ChainHex, Annotated[list[AssetRef], Field(max_length=L.ASSETS_PER_CHAIN)]],
        Field(max_length=L.ASSETS_CHAINS)] | None = Field(default=None, alias="assetFilter")
    asset_type_filter: Annotated[list[AssetType], Field(max_length=L.ASSETS_TYPES)] | None = Field(
        default=None, alias="assetTypeFilter")


@dataclass(frozen=True)
class AssetBalancesFetched(Reply):
    """`balances` answered for one chain of a wallet_getAssets request (`key`: "eid|chain")."""

    result: Balances | None = None


class AssetsRefused(ValueError):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


def parse(params_json: str) -> GetAssetsParams:
    """The request's one params object; AssetsRefused (-32602) when it is not EIP-7811's."""
    params = json.loads(params_json)
    if not isinstance(params, list) or len(params) != 1:
        raise AssetsRefused(INVALID_PARAMS, "wallet_getAssets takes one params object")
    try:
        return GetAssetsParams.model_validate(params[0])
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "params"
        raise AssetsRefused(INVALID_PARAMS, f"Invalid wallet_getAssets params at {where}: {first['msg']}") from None


def _chain_number(hex_id: str) -> int:
    return int(hex_id, 16)


def configured(model: Model) -> dict[int, Network]:
    """The configured EVM chains the engine can read (an RPC URL), by chain id."""
    return {int(n.reference): n for n in model.networks.known if n.namespace == NAMESPACE and n.rpc_urls}


def chains_asked(model: Model, params: GetAssetsParams) -> tuple[Network, ...]:
    """The chains to read, in the configured order; AssetsRefused (4902) naming a chain that is
    not configured."""
    known = configured(model)
    if params.asset_filter is not None:
        asked = list(params.asset_filter)
    elif params.chain_filter is not None:
        asked = list(params.chain_filter)
    else:
        return tuple(known.values())
    numbers = set()
    for hex_id in asked:
        number = _chain_number(hex_id)
        if number not in known:
            raise AssetsRefused(UNRECOGNIZED_CHAIN, f"Chain {hex_id} is not configured for this wallet")
        numbers.add(number)
    return tuple(network for number, network in known.items() if number in numbers)


def start(model: Model, request: EmbeddedRequest) -> Step:
    """Check the request, then read the balances of every chain it asks (nothing read on a
    refusal)."""
    address = model.accounts.get(NAMESPACE).address or ""
    try:
        params = parse(request.params)
        if not address or params.account.lower() != address.lower():
            raise AssetsRefused(UNAUTHORIZED, "wallet_getAssets: only the signed-in account's assets can be read")
        networks = chains_asked(model, params)
    except AssetsRefused as refused:
        return answer(model, request, code=refused.code, message=str(refused))
    if not networks:
        return answer(model, request, result={})
    waiting = replace(request, signing=True, waiting=tuple(n.id for n in networks), assets="{}")
    model = replace(model, embedded=replace(model.embedded, request=waiting))
    calls = [SERVICE.call_or_refusal({"rpc_url": n.rpc_urls[0], "address": address,
                                      "tokens": [t.address for t in n.tokens]},
                                     AssetBalancesFetched, key=f"{request.eid}|{n.id}") for n in networks]
    return model, list(calls)


def _raw(value: int | str) -> int:
    if isinstance(value, int):
        return value
    return int(value, 16) if value.startswith("0x") else int(value)


def _wanted(params: GetAssetsParams, chain_hex: int, address: str, kind: str) -> bool:
    if params.asset_filter is not None:
        refs = next((v for k, v in params.asset_filter.items() if _chain_number(k) == chain_hex), [])
        return any(r.address.lower() == address.lower() and r.type.lower() == kind.lower() for r in refs)
    if params.asset_type_filter is not None:
        return kind.lower() in {t.lower() for t in params.asset_type_filter}
    return True


class AssetMetadata(TypedDict):
    name: str
    symbol: str
    decimals: int
    price: float
    iconUrl: str | None


class WalletAsset(TypedDict):
    """One row of the wallet_getAssets answer (EIP-7811)."""

    address: str
    balance: str  # hex
    type: Literal["NATIVE", "ERC20"]
    metadata: AssetMetadata


def assets_of(network: Network, balances: Balances, params: GetAssetsParams) -> list[WalletAsset]:
    """behaviour.md §3's Wallet assets of one chain: the native one, then the configured tokens."""
    number = int(network.reference)
    rows: list[WalletAsset] = []
    if _wanted(params, number, NATIVE, "native"):
        rows.append({"address": NATIVE, "balance": hex(_raw(balances.native)), "type": "NATIVE",
                     "metadata": {"name": network.native.name, "symbol": network.native.symbol,
                                  "decimals": network.native.decimals, "price": network.native_price or 0,
                                  "iconUrl": network.image_url}})
    raw = {str(k).lower(): v for k, v in balances.tokens.items()}
    for token in network.tokens:
        value = raw.get(token.address.lower())
        if value is None or not _wanted(params, number, token.address, "erc20"):
            continue
        rows.append({"address": token.address, "balance": hex(_raw(value)), "type": "ERC20",
                     "metadata": {"name": token.name, "symbol": token.symbol, "decimals": token.decimals,
                                  "price": token.price or 0, "iconUrl": token.icon_url}})
    return rows


def on_fetched(model: Model, msg: AssetBalancesFetched, now: int) -> Step:
    request = model.embedded.request
    eid, _, chain = msg.key.partition("|")
    if request is None or request.eid != eid or chain not in request.waiting:
        return model, []
    network = model.networks.get(chain)
    if not msg.ok or msg.result is None or network is None:
        name = network.name if network is not None else chain
        return answer(model, request, code=INTERNAL_ERROR, message=f"The balances on {name} could not be read")
    try:
        rows = assets_of(network, msg.result, parse(request.params))
    except (AssetsRefused, ValueError):
        return answer(model, request, code=INTERNAL_ERROR, message=f"The balances on {network.name} could not be read")
    gathered: dict[str, list[WalletAsset]] = json.loads(request.assets or "{}")
    gathered[network.chain_id_hex] = rows
    waiting = tuple(c for c in request.waiting if c != chain)
    if waiting:
        request = replace(request, waiting=waiting, assets=json.dumps(gathered, separators=(",", ":")))
        return replace(model, embedded=replace(model.embedded, request=request)), []
    order = [n.chain_id_hex for n in model.networks.known]
    result = {k: gathered[k] for k in sorted(gathered, key=lambda k: order.index(k) if k in order else len(order))}
    return answer(model, request, result=result)


HANDLERS = (On(AssetBalancesFetched, on_fetched),)
SLICE = Slice("assets", HANDLERS)
