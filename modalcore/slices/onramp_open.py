"""Continue on the Buy form: service `onramp_url` makes the provider's URL, the `open_url`
effect opens it, the modal returns to Account and the balances (and Activity) are read again for
a while, so the bought token shows when the provider delivers it. One URL at a time."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict

from ..core.cmds import Cmd, Effect, EffectReply, Reply, StartTimer
from ..core.evolve import replace
from ..core.msg import Msg
from . import balances, history, router, snack
from .onramp_state import NOT_SUPPORTED, VIEW, problem, purchase, quote_key, with_onramp
from ..services.domain.handles import ONRAMP_URL

if TYPE_CHECKING:
    from .model import Model, Step

POLL_TIMER = "onramp-poll"
POLL_MS = 3_000  # while the provider delivers, the balances are read this often …
POLLS = 40  # … this many times (two minutes)
OPEN_TIMEOUT_MS = 10_000
CHOOSE_PROVIDER = "Choose a provider"
OPENED = "Complete the purchase in the provider's window"


class UrlAnswer(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")
    url: str


@dataclass(frozen=True)
class OnrampUrlMade(Reply):
    result: UrlAnswer | None = None


@dataclass(frozen=True)
class OnrampUrlOpened(EffectReply):
    """The browser opened the provider's page (or could not)."""


@dataclass(frozen=True)
class PressedOnrampContinue(Msg):
    pass


@dataclass(frozen=True)
class OnrampPollDue(Msg):
    pass


def on_continue(model: Model, msg: PressedOnrampContinue, now: int) -> Step:
    state = model.onramp
    if state.opening:
        return model, []
    if state.provider is None:
        return with_onramp(model, error=CHOOSE_PROVIDER), []
    issue = problem(model)
    account = model.accounts.get(model.networks.active_namespace)
    network = model.networks.active_network
    currency = purchase(model)
    if issue is not None or account.address is None or network is None or currency is None:
        return with_onramp(model, error=issue or NOT_SUPPORTED), []
    call = ONRAMP_URL.call_or_refusal({
        "network": network.id, "address": account.address,
        "purchase_currency": currency.id, "payment_currency": state.payment, "amount": state.amount.strip(),
    }, OnrampUrlMade, quote_key(model))
    return with_onramp(model, opening=True, error=None), [call]


def on_url(model: Model, msg: OnrampUrlMade, now: int) -> Step:
    if not model.onramp.opening:
        return model, []
    if msg.result is None or not msg.result.url.startswith(("https://", "http://127.0.0.1", "http://localhost")):
        return with_onramp(model, opening=False, error=msg.error or "The provider gave no page to open"), []
    model, eid = model.next_id("e")
    effect = Effect(eid=eid, kind="open_url", req={"url": msg.result.url, "target": "_blank"},
                    reply=OnrampUrlOpened, key=msg.key, timeout_ms=OPEN_TIMEOUT_MS)
    return model, [effect]


def on_opened(model: Model, msg: OnrampUrlOpened, now: int) -> Step:
    if not model.onramp.opening:
        return model, []
    if not msg.ok:
        return with_onramp(model, opening=False, error=msg.error_message or "The provider's page did not open"), []
    model = with_onramp(model, opening=False, polls=POLLS)
    if model.router.view == VIEW:
        model = replace(model, router=router.reset(model.router, "Account"))
    model, shown = snack.show(model, OPENED)
    return model, [*shown, StartTimer(POLL_TIMER, POLL_MS, OnrampPollDue())]


def on_poll(model: Model, msg: OnrampPollDue, now: int) -> Step:
    """While the provider delivers: the balances (and Activity) read again, a while."""
    if model.onramp.polls <= 0:
        return model, []
    model = with_onramp(model, polls=model.onramp.polls - 1)
    model, fetched = balances.fetch(model, now, force=True)
    model, refetched = history.refresh(model, now)
    more: list[Cmd] = [StartTimer(POLL_TIMER, POLL_MS, OnrampPollDue())] if model.onramp.polls > 0 else []
    return model, [*fetched, *refetched, *more]
