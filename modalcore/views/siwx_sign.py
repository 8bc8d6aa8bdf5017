"""SIWXSignMessage: the dApp asks the visitor to sign in with the connected wallet."""

from __future__ import annotations

from ..slices.model import Model
from ..slices.siwx import PressedCancelSignIn, PressedSignIn
from ..wire.nodes import Node, node
from . import parts
from .wallet_prompt import prompt


def title(model: Model) -> str:
    return model.options.metadata.name


def body(model: Model) -> Node:
    metadata = model.options.metadata
    account = model.accounts.get(model.networks.active_namespace or "eip155")
    icon = metadata.icons[0] if metadata.icons else ""
    signing = model.siwx.signing
    return node("stack", "siwx/body", [
        parts.row("siwx/logos", [
            node("image", "siwx/app", src=icon, alt=metadata.name, size=64, round=True),
            node("avatar", "siwx/wallet", address=account.address or "", size=64),
        ], gap=0, justify="center"),
        node("text", "siwx/title", text=f"{metadata.name} needs to connect to your wallet", variant="title"),
        node("text", "siwx/text",
             text="Sign this message to prove you own this wallet and proceed. "
                  + ("Canceling will disconnect you." if model.siwx.required else ""),
             variant="small", tone="muted"),
        parts.row("siwx/actions", [
            node("button", "siwx/cancel", on={"press": PressedCancelSignIn()}, pending={"press": "spinner"},
                 text="Cancel", variant="secondary"),
            node("button", "siwx/sign", on={"press": PressedSignIn()}, pending={"press": "spinner"},
                 text="Signing" if signing else "Sign", variant="main", busy=True if signing else None,
                 disabled=True if signing else None),
        ], gap=12, justify="center"),
        *(prompt(model, "siwx") if signing else parts.support_code(model, "siwx", "sign_in")),
    ], dir="col", gap=16, align="center", pad=8)
