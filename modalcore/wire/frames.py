"""Client frames validated at the socket edge (PROTOCOL.md, "Client → server").

Nothing past this module sees a raw dict from the network: a frame is either one of these
models or a `FrameError`.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from .codec import DecodeError, decode

Seq = Annotated[int, Field(ge=0, le=2**53)]
ShortStr = Annotated[str, Field(max_length=256)]
IdStr = Annotated[str, Field(min_length=1, max_length=128)]


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
    timezone: ShortStr = ""
    origin: Annotated[str, Field(max_length=2048)] = ""
    width: Annotated[int, Field(ge=0, le=100_000)] = 1280


class AnnouncedWallet(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore", frozen=True)
    uuid: IdStr
    name: Annotated[str, Field(max_length=128)]
    icon: Annotated[str, Field(max_length=16_384)] = ""
    rdns: Annotated[str, Field(max_length=256)] = ""


class Join(_Frame):
    t: Literal["join"]
    project: Annotated[str, Field(max_length=128)]
    resume: Annotated[str, Field(max_length=512)] | None = None
    last: Seq | None = None
    env: Env = Env()
    opts: dict[str, Any] = {}
    wallets: Annotated[list[AnnouncedWallet], Field(max_length=64)] = []


class Intent(_Frame):
    t: Literal["intent"]
    iid: Annotated[str, Field(min_length=1, max_length=64)]
    node: IdStr
    act: Annotated[str, Field(min_length=1, max_length=32)]
    args: dict[str, Any] = {}


class EffectError(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore", frozen=True)
    code: int
    message: Annotated[str, Field(max_length=4096)] = ""
    data: Any = None


class EffectResult(_Frame):
    t: Literal["effect_result"]
    eid: IdStr
    ok: bool
    result: Any = None
    error: EffectError | None = None


class WalletEvent(_Frame):
    t: Literal["wallet_event"]
    connector: IdStr
    event: Literal["accountsChanged", "chainChanged", "disconnect", "announce"]
    data: Any = None


class Resync(_Frame):
    t: Literal["resync"]
    v: Seq


class Ack(_Frame):
    t: Literal["ack"]


ClientFrame = Annotated[
    Join | Intent | EffectResult | WalletEvent | Resync | Ack, Field(discriminator="t")
]
_client_frame: TypeAdapter[ClientFrame] = TypeAdapter(ClientFrame)


class FrameError(ValueError):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


MAX_NESTING = 32  # PROTOCOL.md, "Limits": the frame map is level 1


def _shape_problem(value: dict[str, Any]) -> str | None:
    """Why a decoded client frame breaks the protocol's value rules, or None: values nested
    deeper than MAX_NESTING, or msgpack `bin` anywhere (client frames hold only JSON-like
    values). Checked before any model sees the frame, so nothing downstream (validation, the
    session recorder's JSON) meets such a value."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            if any(isinstance(key, bytes) for key in item):
                return "binary map keys are refused: keys are UTF-8 str"
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        elif isinstance(item, bytes):
            return "binary values are refused: strings are UTF-8 str"
        else:
            continue
        if depth > MAX_NESTING:
            return f"values nest at most {MAX_NESTING} levels deep"
        stack.extend((child, depth + 1) for child in children)
    return None


def parse_client_frame(data: bytes) -> ClientFrame:
    try:
        value = decode(data)
    except DecodeError as error:
        code = "too_large" if str(error) == "too_large" else "malformed"
        raise FrameError(code, str(error)) from error
    if not isinstance(value, dict):
        raise FrameError("malformed", "a frame is a msgpack map")
    problem = _shape_problem(value)
    if problem is not None:
        raise FrameError("malformed", problem)
    try:
        return _client_frame.validate_python(value)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise FrameError("malformed", f"{where}: {first['msg']}") from error


# Intent args, one strict model per action (PROTOCOL.md, "Intents").
class _Args(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)


class NoArgs(_Args):
    pass


class TextArgs(_Args):
    value: Annotated[str, Field(max_length=256)]


class SelectArgs(_Args):
    value: Annotated[str, Field(max_length=128)]


class ToggleArgs(_Args):
    checked: bool


class OpenArgs(_Args):
    view: Annotated[str, Field(max_length=64)] | None = None


class NetworkArgs(_Args):
    network: Annotated[str, Field(max_length=128)]


class ThemeModeArgs(_Args):
    mode: Literal["light", "dark"]


class ThemeVariablesArgs(_Args):
    variables: Annotated[dict[str, str | int], Field(max_length=64)]


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
    "set_theme_mode": ThemeModeArgs,
    "set_theme_variables": ThemeVariablesArgs,
}


_NO_ARGS = NoArgs()


def validate_args(action: str, args: dict[str, Any]) -> _Args:
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
