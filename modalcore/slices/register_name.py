"""Registering an account name (behaviour.md §2 RegisterAccountName / RegisterAccountNameSuccess, §4
"Name registration", §5 name rule and what registration needs, §8 name errors, §9 suffix).

While the visitor types, the name is checked against the rule at once; a valid one is looked up
(availability and suggestions, service `name_suggestions`) after a pause (a debounce timer).
Register needs an active eip155 network, an address and the auth connector (behaviour.md §5); it pushes
the success view, has the wallet `personal_sign` the registration message (dated with `now`),
and service `register_name` verifies the signature and stores the name in the engine's
registry. Success shows the name; a refusal returns to the register view with its message
(behaviour.md §8 'Error registering name {name}', or the rule's)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict

from ..core.cmds import CancelTimer, EffectReply, Reply, StartTimer
from ..core.evolve import replace
from ..core.msg import Msg
from ..core.shape import On, Slice
from ..rules import limits as L
from ..rules.names import (
    AUTH_CONNECTOR_ID,
    DEFAULT_SUFFIX,
    ERROR_SUGGESTIONS,
    error_registering,
    full_name,
    name_problem,
    registration_message,
    registration_problem,
)
from . import names, router
from .connecting import wallet_request
from ..wire.frames import TextArgs
from ..services.domain.handles import NAME_SUGGESTIONS, REGISTER_NAME

if TYPE_CHECKING:
    from .model import Model, Step

REGISTER_VIEW = "RegisterAccountName"
SUCCESS_VIEW = "RegisterAccountNameSuccess"
DEBOUNCE_MS = 300
TIMER = "names.suggest"


class Suggestions(BaseModel):
    """What service `name_suggestions` returns for a label."""

    model_config = ConfigDict(frozen=True, extra="ignore")
    label: str
    suffix: str
    available: bool
    suggestions: list[str] = []


class Registration(BaseModel):
    """What service `register_name` returns: stored (`name`), or refused with `error`."""

    model_config = ConfigDict(frozen=True, extra="ignore")
    ok: bool
    error: str = ""
    name: str = ""
    address: str = ""


@dataclass(frozen=True)
class RegisterState:
    label: str = ""
    problem: str | None = None  # what the rule says about the label as typed
    checking: bool = False  # availability asked, not answered yet
    checked: str = ""  # the label the answer below is for
    suffix: str = ""  # the operator's suffix, as the engine's registry answered
    available: bool | None = None
    suggestions: tuple[str, ...] = ()
    error: str | None = None  # the last refusal (registration or suggestions)
    registering: str = ""  # the full name being registered
    message: str = ""  # the registration message the wallet signs
    registered: str = ""  # the full name stored


# ----- messages


@dataclass(frozen=True)
class ChangedAccountName(Msg):
    value: str


@dataclass(frozen=True)
class AccountNameDebounced(Msg):
    label: str


@dataclass(frozen=True)
class PressedNameSuggestion(Msg):
    name: str


@dataclass(frozen=True)
class PressedRegisterName(Msg):
    pass


@dataclass(frozen=True)
class PressedRegisterDone(Msg):
    pass


@dataclass(frozen=True)
class NameSuggestionsFetched(Reply):
    result: Suggestions | None = None


@dataclass(frozen=True)
class RegistrationSigned(EffectReply):
    """The wallet answered personal_sign of the registration message."""


@dataclass(frozen=True)
class NameRegistered(Reply):
    result: Registration | None = None


def change_name(args: TextArgs) -> Msg:
    return ChangedAccountName(args.value)


def can_register(model: Model) -> bool:
    """behaviour.md §5: an active eip155 network, an address and the auth connector."""
    account = model.accounts.get(model.networks.active_namespace)
    return registration_problem("name", model.networks.active, account.address,
                                account.connector_id == AUTH_CONNECTOR_ID) is None


def _label(value: str, suffix: str) -> str:
    text = value.strip()
    for tail in (suffix, DEFAULT_SUFFIX):
        if tail and text.lower().endswith(tail):
            return text[: -len(tail)]
    return text


def on_changed(model: Model, msg: ChangedAccountName, now: int) -> Step:
    state = model.register_name
    label = _label(msg.value, state.suffix)
    problem = name_problem(label) if label else None
    state = replace(state, label=label, problem=problem.message if problem else None, error=None,
                    available=None, suggestions=(), checking=False)
    if problem is not None or not label:
        return replace(model, register_name=state), [CancelTimer(TIMER)]
    state = replace(state, checking=True)
    return replace(model, register_name=state), [StartTimer(TIMER, DEBOUNCE_MS, AccountNameDebounced(label))]


def on_debounced(model: Model, msg: AccountNameDebounced, now: int) -> Step:
    if msg.label != model.register_name.label or model.router.view != REGISTER_VIEW:
        return model, []
    return model, [NAME_SUGGESTIONS.call_or_refusal({"label": msg.label}, NameSuggestionsFetched, msg.label)]


def on_suggestions(model: Model, msg: NameSuggestionsFetched, now: int) -> Step:
    state = model.register_name
    if msg.key != state.label:
        return model, []  # an answer for what the visitor typed before
    if not msg.ok or msg.result is None:
        return replace(model, register_name=replace(state, checking=False, error=ERROR_SUGGESTIONS)), []
    result = msg.result
    suggestions = tuple(s for s in result.suggestions[: L.MAX_NAME_SUGGESTIONS])
    return replace(model, register_name=replace(
        state, checking=False, checked=state.label, suffix=result.suffix, available=result.available,
        suggestions=suggestions)), []


def on_suggestion(model: Model, msg: PressedNameSuggestion, now: int) -> Step:
    if msg.name not in model.register_name.suggestions:
        return model, []
    return on_changed(model, ChangedAccountName(msg.name), now)


def _refused(model: Model, message: str) -> Step:
    """Back to the register view with `message` (behaviour.md §4: on failure return to the register view)."""
    state = replace(model.register_name, registering="", message="", error=message)
    history = model.router.history
    while len(history) > 1 and history[-1].view == SUCCESS_VIEW:
        history = history[:-1]
    routed = replace(model.router, history=history)
    if routed.view != REGISTER_VIEW:
        routed = router.push(routed, REGISTER_VIEW)
    return replace(model, register_name=state, router=routed), []


def on_register(model: Model, msg: PressedRegisterName, now: int) -> Step:
    state = model.register_name
    if state.registering:
        return model, []  # one registration at a time
    account = model.accounts.get(model.networks.active_namespace)
    problem = registration_problem(state.label, model.networks.active, account.address,
                                   account.connector_id == AUTH_CONNECTOR_ID)
    name = full_name(state.label, state.suffix or DEFAULT_SUFFIX)
    if problem is not None:
        return _refused(model, problem.message)
    if state.checked != state.label or not state.available or not state.suffix:
        return _refused(model, error_registering(name))
    address = account.address or ""
    message = registration_message(name, now)
    model = replace(model, register_name=replace(state, registering=name, message=message, error=None),
                    router=router.push(model.router, SUCCESS_VIEW))
    model, effect = wallet_request(model, account.connector_id or "", "personal_sign",
                                   ["0x" + message.encode().hex(), address.lower()], RegistrationSigned)
    return model, [effect]


def on_signed(model: Model, msg: RegistrationSigned, now: int) -> Step:
    state = model.register_name
    if not state.registering:
        return model, []
    if not msg.ok or not isinstance(msg.result, str):
        return _refused(model, error_registering(state.registering))
    account = model.accounts.get(model.networks.active_namespace)
    network = model.networks.active_network
    args = REGISTER_NAME.args(label=state.label, address=account.address or "", message=state.message,
                              signature=msg.result, chain_id=int(network.reference) if network else 1)
    return model, [REGISTER_NAME.call(args, NameRegistered, state.registering)]


def on_registered(model: Model, msg: NameRegistered, now: int) -> Step:
    state = model.register_name
    if msg.key != state.registering:
        return model, []
    result = msg.result
    if not msg.ok or result is None or not result.ok:
        reason = result.error if result is not None and result.error else error_registering(state.registering)
        return _refused(model, reason)
    namespace = model.networks.active_namespace or "eip155"
    account = model.accounts.get(namespace)
    known = model.names
    if model.networks.active and account.address:
        known = names.remember(known, names.name_key(model.networks.active, account.address), result.name, now)
    model = replace(
        model,
        register_name=replace(state, registering="", message="", registered=result.name),
        accounts=model.accounts.with_account(namespace, replace(account, profile_name=result.name)),
        names=known,
    )
    return model, []


def on_done(model: Model, msg: PressedRegisterDone, now: int) -> Step:
    """Back to the Account view, which now shows the name."""
    if model.router.view != SUCCESS_VIEW or model.register_name.registering:
        return model, []
    return replace(model, router=router.reset(model.router, "Account"),
                   register_name=RegisterState(suffix=model.register_name.suffix)), []


HANDLERS = (
    On(PressedRegisterDone, on_done),
    On(ChangedAccountName, on_changed),
    On(AccountNameDebounced, on_debounced),
    On(NameSuggestionsFetched, on_suggestions),
    On(PressedNameSuggestion, on_suggestion),
    On(PressedRegisterName, on_register),
    On(RegistrationSigned, on_signed),
    On(NameRegistered, on_registered),
)

SLICE = Slice("register_name", HANDLERS)
