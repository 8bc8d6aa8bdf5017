"""The send preview and its network fee (behaviour.md §4 "Send", §5): the fee estimate of the
transaction the form describes (and, for a token, whether its contract accepts the transfer),
and "max", which for the native token keeps twice the estimated fee.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict

from ..core.cmds import Reply
from ..core.evolve import replace
from ..core.msg import Msg
from ..rules.addresses import checksum, is_evm_address
from ..rules.rpc_errors import readable
from ..services.domain.transfer import erc20_tx, native_tx
from . import router
from .send_form import (
    receiver_address,
    NATIVE,
    TOKEN_REQUIRED,
    FeeEstimate,
    form_key,
    problem,
    selected_token,
    to_units,
    token_key,
    tokens,
    with_send,
)
from ..services.domain.handles import ESTIMATE_FEE, SOLANA_ESTIMATE_FEE

if TYPE_CHECKING:
    from .accounts import TokenBalance
    from .model import Model, Step

FEE_MARGIN = 2  # "max" of the native token keeps twice the estimated fee (wallets check max fee)
FEE_UNAVAILABLE = "Network fee unavailable"
TRANSFER_REFUSED = "The token contract would refuse this transfer"


@dataclass(frozen=True)
class PressedSendMax(Msg):
    pass


@dataclass(frozen=True)
class PressedSendPreview(Msg):
    pass



class Fee(BaseModel):
    """What service `estimate_fee` returns: the fee in wei, its gas and price, and for a token
    whether its contract accepts the transfer (None: not asked)."""

    model_config = ConfigDict(frozen=True, extra="ignore")
    fee: int
    gas: int
    gas_price: int
    transfer_ok: bool | None = None


@dataclass(frozen=True)
class FeeEstimated(Reply):
    """The fee of the form `key` (the form's key) came back."""

    result: Fee | None = None


@dataclass(frozen=True)
class MaxFeeEstimated(Reply):
    """The fee of sending the whole native balance (`key`: the token's key) came back."""

    result: Fee | None = None


def on_max(model: Model, msg: PressedSendMax, now: int) -> Step:
    """The whole balance; for the native token, less twice the estimated network fee."""
    token = selected_token(model)
    if token is None:
        return with_send(model, error=TOKEN_REQUIRED), []
    if token.address is not None:
        return with_send(model, amount=_plain(token.quantity_numeric), error=None, fee=FeeEstimate()), []
    address = model.accounts.get(model.networks.active_namespace).address
    rpc_url = model.networks.active_rpc_url
    if address is None or rpc_url is None:
        return with_send(model, error=FEE_UNAVAILABLE), []
    if model.networks.active_namespace == "solana":
        args = {"rpc_url": rpc_url, "sender": address, "receiver": address, "mint": None, "amount": 0,
                "decimals": int(token.quantity_decimals)}
        return model, [SOLANA_ESTIMATE_FEE.call_or_refusal(args, MaxFeeEstimated, NATIVE)]
    receiver = receiver_address(model.send) or address
    tx = native_tx(address, checksum(receiver), 0)
    return model, [ESTIMATE_FEE.call_or_refusal({"rpc_url": rpc_url, "tx": tx}, MaxFeeEstimated, NATIVE)]


def _plain(numeric: str) -> str:
    value = Decimal(numeric)
    return format(value.normalize(), "f") if value else "0"


def on_max_fee(model: Model, msg: MaxFeeEstimated, now: int) -> Step:
    token = selected_token(model)
    if token is None or token_key(token) != msg.key:
        return model, []
    if msg.result is None:
        return with_send(model, error=_fee_error(msg.error)), []
    decimals = int(token.quantity_decimals)
    balance = to_units(token.quantity_numeric, decimals) or 0
    spendable = max(0, balance - msg.result.fee * FEE_MARGIN)
    amount = format(Decimal(spendable).scaleb(-decimals).normalize(), "f") if spendable else "0"
    return with_send(model, amount=amount, error=None, fee=FeeEstimate()), []


def _fee_error(error: str) -> str:
    mapped = readable(error)
    return mapped if mapped != error else FEE_UNAVAILABLE


# ----- the preview


def on_preview(model: Model, msg: PressedSendPreview, now: int) -> Step:
    issue = problem(model)
    if issue is not None:
        return with_send(model, error=issue), []
    native = next((t for t in tokens(model) if t.address is None), None)
    network_usd = str(Decimal(str(native.value)).quantize(Decimal("0.01"))) if native else None
    model = replace(model, router=router.push(model.router, "WalletSendPreview"))
    return estimate(with_send(model, error=None, picking=False, network_balance_usd=network_usd))


def build_tx(model: Model) -> tuple[dict[str, str], TokenBalance] | None:
    token = selected_token(model)
    address = model.accounts.get(model.networks.active_namespace).address
    if token is None or address is None:
        return None
    units = to_units(model.send.amount, int(token.quantity_decimals)) or 0
    to = receiver_address(model.send)
    if to is None:
        return None
    receiver = checksum(to)
    if token.address is None:
        return native_tx(address, receiver, units), token
    return erc20_tx(address, token.address, receiver, units), token


def solana_args(model: Model) -> dict[str, object] | None:
    """What the Solana send services need: sender, receiver, mint (None for SOL), base units."""
    token = selected_token(model)
    address = model.accounts.get("solana").address
    rpc_url = model.networks.active_rpc_url
    if token is None or address is None or rpc_url is None:
        return None
    units = to_units(model.send.amount, int(token.quantity_decimals)) or 0
    return {"rpc_url": rpc_url, "sender": address, "receiver": model.send.receiver.strip(),
            "mint": token.address, "amount": units, "decimals": int(token.quantity_decimals)}


def estimate(model: Model) -> Step:
    """Ask for the network fee of the transaction the form describes (and, for a token, whether
    its contract accepts the transfer, read with the contract's transfer interface)."""
    key = form_key(model.send)
    if model.networks.active_namespace == "solana":
        solana = solana_args(model)
        if solana is None:
            return with_send(model, fee=FeeEstimate(key=key, error=FEE_UNAVAILABLE)), []
        model = with_send(model, fee=FeeEstimate(key=key, loading=True))
        return model, [SOLANA_ESTIMATE_FEE.call_or_refusal(solana, FeeEstimated, key)]
    built = build_tx(model)
    rpc_url = model.networks.active_rpc_url
    if built is None or rpc_url is None:
        return with_send(model, fee=FeeEstimate(key=key, error=FEE_UNAVAILABLE)), []
    tx, token = built
    args: dict[str, object] = {"rpc_url": rpc_url, "tx": tx}
    if token.address is not None:
        args["token"] = token.address
    model = with_send(model, fee=FeeEstimate(key=key, loading=True))
    return model, [ESTIMATE_FEE.call_or_refusal(args, FeeEstimated, key)]


def on_fee(model: Model, msg: FeeEstimated, now: int) -> Step:
    fee = model.send.fee
    key = msg.key
    if fee.key != key or not fee.loading:
        return model, []
    if msg.result is None:
        return with_send(model, fee=FeeEstimate(key=key, error=_fee_error(msg.error))), []
    result = msg.result
    ok = result.transfer_ok
    return with_send(model, fee=FeeEstimate(
        key=key, fee_wei=str(result.fee), gas=str(result.gas), gas_price=str(result.gas_price),
        transfer_ok=bool(ok) if ok is not None else None,
        error=TRANSFER_REFUSED if ok is False else None,
    )), []
