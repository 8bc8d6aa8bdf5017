"""The Buy form's options (behaviour.md §3 purchase currencies with their networks, payment currencies
with their methods' limits; §8: the built-in defaults when the options call fails): the OnRamp
view shown on a network whose options are not known asks service `onramp_options` for them; the
answer keeps the active network's purchase currencies. Another network or account starts a new
form."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict

from ..core.cmds import Reply
from ..core.evolve import replace
from .onramp_quote import requote
from .onramp_state import VIEW, OnrampState, PaymentCurrency, PurchaseCurrency, with_onramp
from ..services.domain.handles import ONRAMP_OPTIONS

if TYPE_CHECKING:
    from .model import Model, Step


class _Limit(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")
    id: str
    min: str | float | int
    max: str | float | int


class _Payment(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")
    id: str
    payment_method_limits: list[_Limit] = []


class _Network(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")
    chain_id: str | int = ""
    contract_address: str = ""


class _Purchase(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")
    id: str
    name: str = ""
    symbol: str = ""
    decimals: int = 18
    networks: list[_Network] = []


class OptionsAnswer(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")
    paymentCurrencies: list[_Payment] = []
    purchaseCurrencies: list[_Purchase] = []


@dataclass(frozen=True)
class OnrampOptionsFetched(Reply):
    result: OptionsAnswer | None = None


def on_options(model: Model, msg: OnrampOptionsFetched, now: int) -> Step:
    if msg.key != model.networks.active:
        return model, []
    if msg.result is None:  # the service falls back itself; a failure here leaves the view usable
        return with_onramp(model, options_for=msg.key, error=msg.error), []
    reference = (model.networks.active or ":").split(":", 1)[1]
    purchases = tuple(
        PurchaseCurrency(c.id, c.symbol or c.id, c.name or c.id, c.decimals)
        for c in msg.result.purchaseCurrencies
        if not c.networks or any(str(n.chain_id) == reference for n in c.networks))
    payments = tuple(PaymentCurrency(p.id, tuple((lim.id, str(lim.min), str(lim.max)) for lim in p.payment_method_limits))
                     for p in msg.result.paymentCurrencies)
    chosen = model.onramp.purchase if any(c.id == model.onramp.purchase for c in purchases) else (
        purchases[0].id if purchases else None)
    payment = model.onramp.payment if any(p.id == model.onramp.payment for p in payments) else (
        payments[0].id if payments else "USD")
    model = with_onramp(model, options_for=msg.key, purchases=purchases, payments=payments, purchase=chosen,
                        payment=payment)
    return requote(model)


def observe(before: Model, after: Model, now: int) -> Step:
    """The OnRamp view shown on a network whose options are not known: ask for them. Another
    network or account: a new form."""
    if not before.owns_drafts_of(after):  # another network or account (draft_owner)
        after = replace(after, onramp=OnrampState(polls=after.onramp.polls))
    state = after.onramp
    if after.router.view != VIEW or state.options_for == after.networks.active or after.networks.active is None:
        return after, []
    if state.options_for == f"loading:{after.networks.active}":
        return after, []
    network = after.networks.active_network
    purchase_list: list[dict[str, object]] = []
    if network is not None:
        reference = network.reference
        purchase_list = [{"id": network.native.symbol, "symbol": network.native.symbol, "name": network.native.name,
                          "decimals": network.native.decimals, "networks": [{"chain_id": reference}]}]
        purchase_list += [{"id": t.symbol, "symbol": t.symbol, "name": t.name, "decimals": t.decimals,
                           "networks": [{"chain_id": reference, "contract_address": t.address}]} for t in network.tokens]
    active = after.networks.active
    after = replace(after, onramp=replace(state, options_for=f"loading:{active}"))
    return after, [ONRAMP_OPTIONS.call_or_refusal({"network": active, "purchase": purchase_list},
                                                   OnrampOptionsFetched, active)]
