"""Messages of the host API (PROTOCOL.md: the virtual node `host`)."""

from __future__ import annotations

import json
from dataclasses import dataclass

from ..core.msg import Msg
from ..wire.frames import NetworkArgs, OpenArgs, RpcArgs, ThemeModeArgs, ThemeVariablesArgs
from .navigation import HostClosed, HostOpened
from .theme import HostSetThemeMode, HostSetThemeVariables


@dataclass(frozen=True)
class HostSwitchedNetwork(Msg):
    network: str


@dataclass(frozen=True)
class HostDisconnected(Msg):
    pass


@dataclass(frozen=True)
class HostSignedOut(Msg):
    """The host's `signOut()`: end the sign-in session (flows/signin.py)."""


@dataclass(frozen=True)
class HostRequestedRpc(Msg):
    """The host dApp's provider asked the active wallet (the embedded one: flows/hostrpc.py)."""
    id: str
    method: str
    params: str  # the JSON text of the params list


# Each handler receives the args model the session validated for its action (frames.ACTION_ARGS).
def _open(args: OpenArgs) -> Msg:
    return HostOpened(args.view)


def _switch(args: NetworkArgs) -> Msg:
    return HostSwitchedNetwork(args.network)


def _theme_mode(args: ThemeModeArgs) -> Msg:
    return HostSetThemeMode(args.mode)


def _theme_variables(args: ThemeVariablesArgs) -> Msg:
    return HostSetThemeVariables(tuple((k, str(v)) for k, v in sorted(args.variables.items())))


def _rpc(args: RpcArgs) -> Msg:
    return HostRequestedRpc(args.id, args.method, json.dumps(args.params, separators=(",", ":")))


HOST_NODE_ID = "host"
HOST_ACTIONS: dict[str, object] = {
    "open": _open,
    "close": HostClosed(),
    "switch_network": _switch,
    "disconnect": HostDisconnected(),
    "sign_out": HostSignedOut(),
    "set_theme_mode": _theme_mode,
    "set_theme_variables": _theme_variables,
    "rpc": _rpc,
}
