"""Client frames validated at the socket edge (PROTOCOL.md, "Client → server").

Nothing past this module sees a raw dict from the network: a frame is either one of these
models or a `FrameError`.
"""

from __future__ import annotations

import operator
from itertools import compress
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, TypeAdapter, ValidationError, model_validator

from ..rules import limits as L
from .codec import DecodeError, decode

Seq = Annotated[int, Field(ge=0, le=2**53)]
IdStr = Annotated[str, Field(min_length=1, max_length=L.NODE_ID_CHARS)]


class FrameError(ValueError):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class _Frame(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)
    s: Seq
    a: Seq


class Env(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore", frozen=True)
    mobile: bool = False
    platform: Literal["ios", "android", "mac", "windows", "linux", "other"] = "other"
    telegram: bool = False
    safari: bool = False
    timezone: Annotated[str, Field(max_length=L.ENV_TIMEZONE_CHARS)] = ""
    origin: Annotated[str, Field(max_length=L.ENV_ORIGIN_CHARS)] = ""
    width: Annotated[int, Field(ge=0, le=L.ENV_MAX_WIDTH)] = 1280
    # navigator.languages, most preferred first (the engine's locale when the host sets none)
    languages: Annotated[
        tuple[Annotated[str, Field(max_length=L.LOCALE_CHARS)], ...],
        Field(max_length=L.MAX_ENV_LANGUAGES, strict=False),
    ] = ()


class AnnouncedWallet(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore", frozen=True)
    uuid: Annotated[str, Field(min_length=1, max_length=L.WALLET_UUID_CHARS)]
    name: Annotated[str, Field(max_length=L.WALLET_NAME_CHARS)]
    icon: Annotated[str, Field(max_length=L.WALLET_ICON_CHARS)] = ""
    rdns: Annotated[str, Field(max_length=L.WALLET_RDNS_CHARS)] = ""
    # Wallet Standard wallets announce "solana" (PROTOCOL.md, join.wallets)
    namespaces: Annotated[list[Literal["eip155", "solana"]], Field(min_length=1, max_length=L.MAX_WALLET_NAMESPACES)] = ["eip155"]


# A phone's companion join (PROTOCOL.md, "Companion"): base64url public key and signature,
# bounded like the device keys' (embedded/devicekeys.py); the nonce is the engine's own.
_B64 = r"^[A-Za-z0-9_=-]+$"


class CompanionJoin(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)
    session: Annotated[str, Field(min_length=1, max_length=L.NODE_ID_CHARS)]
    public_key: Annotated[str, Field(min_length=1, max_length=L.COMPANION_KEY_CHARS, pattern=_B64)]
    nonce: Annotated[str, Field(min_length=1, max_length=L.COMPANION_NONCE_CHARS)]
    signature: Annotated[str, Field(min_length=1, max_length=L.COMPANION_SIGNATURE_CHARS, pattern=_B64)]


class Join(_Frame):
    t: Literal["join"]
    project: Annotated[str, Field(max_length=L.PROJECT_ID_CHARS)]
    # Any string (the frame size bounds it): a token that does not verify means a new session.
    resume: str | None = None
    last: Seq | None = None
    # a second live connection of an existing session (the linked phone), never with `resume`
    companion: CompanionJoin | None = None
    env: Env = Env()
    opts: dict[str, Any] = {}
    wallets: Annotated[list[AnnouncedWallet], Field(max_length=L.MAX_ANNOUNCED_WALLETS)] = []

    @model_validator(mode="after")
    def _one_way_in(self) -> Join:
        if self.companion is not None and (self.resume is not None or self.last is not None):
            raise ValueError("a companion join carries no resume token")
        return self


class Intent(_Frame):
    t: Literal["intent"]
    iid: Annotated[str, Field(min_length=1, max_length=L.INTENT_ID_CHARS)]
    node: IdStr
    act: Annotated[str, Field(min_length=1, max_length=L.ACTION_CHARS)]
    args: dict[str, Any] = {}


class EffectError(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore", frozen=True)
    code: int
    message: Annotated[str, Field(max_length=L.WALLET_ERROR_CHARS)] = ""
    data: Any = None


class EffectResult(_Frame):
    t: Literal["effect_result"]
    eid: IdStr
    ok: bool
    result: Any = None
    error: EffectError | None = None


# What a wallet event's data is once validated: the announced wallet, the accounts, the chain id
# (hex string), or nothing (disconnect).
WalletEventData = AnnouncedWallet | tuple[str, ...] | str | None


class WalletEvent(_Frame):
    """A wallet event; its `data` (as sent, and as a recording stores it) is validated here, at
    the socket edge, against the event's shape and bounds (PROTOCOL.md, "Bounds") into
    `payload`. Data of the wrong shape is a `FrameError` (malformed) like any bad frame."""

    t: Literal["wallet_event"]
    connector: IdStr
    event: Literal["accountsChanged", "chainChanged", "disconnect", "announce"]
    data: Any = None
    _payload: WalletEventData = PrivateAttr(default=None)

    @model_validator(mode="after")
    def _typed(self) -> WalletEvent:
        self._payload = wallet_event_data(self.event, self.data)
        return self

    @property
    def payload(self) -> WalletEventData:
        return self._payload


def wallet_event_data(event: str, data: object) -> WalletEventData:
    """The typed data of a wallet event; `FrameError` (malformed, with the reason) for data of the
    wrong shape or over its bounds."""
    if event == "announce":
        try:
            return AnnouncedWallet.model_validate(data)
        except ValidationError as error:
            first = error.errors()[0]
            where = ".".join(str(part) for part in first["loc"]) or "data"
            raise FrameError("malformed", f"announce: {where}: {first['msg']}") from None
    if event == "accountsChanged":
        if not isinstance(data, list) or not all(isinstance(a, str) for a in data):
            raise FrameError("malformed", "accountsChanged: data is a list of addresses")
        if len(data) > L.MAX_WALLET_ACCOUNTS or any(len(a) > L.WALLET_ACCOUNT_CHARS for a in data):
            raise FrameError("malformed", f"accountsChanged: at most {L.MAX_WALLET_ACCOUNTS} addresses "
                                          f"of at most {L.WALLET_ACCOUNT_CHARS} characters")
        return tuple(data)
    if event == "chainChanged":
        if isinstance(data, int) and not isinstance(data, bool):
            data = hex(data)
        if not isinstance(data, str) or len(data) > L.WALLET_CHAIN_CHARS:
            raise FrameError("malformed", f"chainChanged: data is a chain id of at most "
                                          f"{L.WALLET_CHAIN_CHARS} characters")
        return data
    return None


class Resync(_Frame):
    t: Literal["resync"]
    v: Seq


class Leave(_Frame):
    """The host destroyed the modal: end the session (PROTOCOL.md, "Client → server")."""

    t: Literal["leave"]


class Ack(_Frame):
    t: Literal["ack"]


ClientFrame = Annotated[
    Join | Intent | EffectResult | WalletEvent | Resync | Leave | Ack, Field(discriminator="t")
]
_client_frame: TypeAdapter[ClientFrame] = TypeAdapter(ClientFrame)


def _shape_problem(value: dict[str, object]) -> str | None:
    """Why a decoded client frame breaks the protocol's value rules, or None: values nested
    deeper than L.MAX_NESTING, or msgpack `bin` anywhere (client frames hold only JSON-like
    values). Checked before any model sees the frame, so nothing downstream (validation, the
    session recorder's JSON) meets such a value."""
    return _container_problem(value, 1)


_SCALARS = frozenset((str, int, float, bool, type(None)))
_STR = frozenset((str,))


def _container_problem(item: dict[Any, Any] | list[Any], depth: int) -> str | None:
    """`_shape_problem` of a map or array at `depth` (recursion is bounded: a container deeper
    than L.MAX_NESTING is refused before its children are looked at)."""
    if isinstance(item, dict):
        if not _STR.issuperset(map(type, item)):  # the usual case (str keys only) decided in C
            for key in item:
                if type(key) is not str and isinstance(key, bytes):
                    return "binary map keys are refused: keys are UTF-8 str"
        children: Any = item.values()
    else:
        children = item
    if depth > L.MAX_NESTING:
        return f"values nest at most {L.MAX_NESTING} levels deep"
    # only the children that are not scalars (most are) are looked at, picked in C
    for child in compress(children, map(operator.not_, map(_SCALARS.__contains__, map(type, children)))):
        if isinstance(child, bytes):
            return "binary values are refused: strings are UTF-8 str"
        if isinstance(child, (dict, list)):
            problem = _container_problem(child, depth + 1)
            if problem is not None:
                return problem
    return None


def parse_client_frame(data: bytes) -> ClientFrame:
    try:
        value = decode(data)
    except DecodeError as error:
        code = "too_large" if str(error) == "too_large" else "malformed"
        raise FrameError(code, str(error)) from error
    return client_frame(value)


def client_frame(value: object) -> ClientFrame:
    """A decoded frame validated into its model (what `parse_client_frame` does after msgpack)."""
    if not isinstance(value, dict):
        raise FrameError("malformed", "a frame is a msgpack map")
    problem = _shape_problem(value)
    if problem is not None:
        raise FrameError("malformed", problem)
    try:
        return _client_frame.validate_python(value)
    except ValidationError as error:
        first = error.errors()[0]
        cause = first.get("ctx", {}).get("error")
        if isinstance(cause, FrameError):  # a wallet event's data (its own message)
            raise cause from None
        where = ".".join(str(part) for part in first["loc"])
        raise FrameError("malformed", f"{where}: {first['msg']}") from error


# Intent args, one strict model per action (PROTOCOL.md, "Intents").
class _Args(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)


class NoArgs(_Args):
    pass


class TextArgs(_Args):
    value: Annotated[str, Field(max_length=L.TEXT_INPUT_CHARS)]


class SelectArgs(_Args):
    value: Annotated[str, Field(max_length=L.SELECT_CHARS)]


class ToggleArgs(_Args):
    checked: bool


class OpenArgs(_Args):
    view: Annotated[str, Field(max_length=L.VIEW_NAME_CHARS)] | None = None


class NetworkArgs(_Args):
    network: Annotated[str, Field(max_length=L.NETWORK_ID_CHARS)]


class ThemeModeArgs(_Args):
    mode: Literal["light", "dark"]


ThemeKey = Annotated[str, Field(max_length=L.THEME_KEY_CHARS)]
ThemeValue = Annotated[str, Field(max_length=L.THEME_VALUE_CHARS)]


class ThemeVariablesArgs(_Args):
    variables: Annotated[dict[ThemeKey, ThemeValue | int], Field(max_length=L.MAX_THEME_VARIABLES)]


class RpcArgs(_Args):
    """The host dApp's EIP-1193 request for the embedded wallet (host intent `rpc`)."""
    id: Annotated[str, Field(min_length=1, max_length=L.HOST_RPC_ID_CHARS)]
    method: Annotated[str, Field(min_length=1, max_length=L.HOST_RPC_METHOD_CHARS)]
    params: Annotated[list[Any], Field(max_length=L.HOST_RPC_PARAMS)]


ACTION_ARGS: dict[str, type[_Args]] = {
    "press": NoArgs,
    "change": TextArgs,
    "submit": TextArgs,
    "select": SelectArgs,
    "toggle": ToggleArgs,
    "more": NoArgs,
    "close": NoArgs,
    # host API calls, offered by the virtual node "host"
    "open": OpenArgs,
    "switch_network": NetworkArgs,
    "disconnect": NoArgs,
    "sign_out": NoArgs,
    "set_theme_mode": ThemeModeArgs,
    "set_theme_variables": ThemeVariablesArgs,
    "rpc": RpcArgs,
}


_NO_ARGS = NoArgs()


def validate_args(action: str, args: dict[str, object]) -> _Args:
    model = ACTION_ARGS.get(action)
    if model is None:
        raise FrameError("invalid", f"unknown action {action!r}")
    if model is NoArgs and not args:
        return _NO_ARGS  # the common press: nothing to validate
    try:
        return model.model_validate(args)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "args"
        raise FrameError("invalid", f"{where}: {first['msg']}") from error
