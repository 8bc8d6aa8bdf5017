"""The Connect view: the connect methods in SPEC §1's order (email, social, wallet; wallet
first when an installed or injected wallet is detected, unless the host configured an order).

The email method is the email field and its Continue button (on unless `features.email` is
off). The wallet method: wallets in the SPEC §1 connector order. Installed (announced) wallets
come first, then the host's featured and custom wallets, external connectors and 4 recommended
wallets from the directory (they appear once fetched; nothing stands in for them meanwhile).
"All Wallets" carries the directory's total, rounded ("120+").
"""

from __future__ import annotations

from ..slices.model import Model
from ..slices import directory_wallets
from ..slices.connectors import connect_method_order
from ..flows.social import NAMES, offered_socials
from ..slices.embedded import PressedSocial, SubmittedEmail, change_email, submit_email
from ..slices.navigation import PressedNavigate
from ..wire.nodes import Node, node
from . import logos, parts
from .wallet_list import connect_rows


def _wallets(model: Model) -> list[Node]:
    items = connect_rows(model)
    if model.options.features.allWallets:
        total = directory_wallets.total(model)
        items.append(
            node("wallet-item", "connect/all-wallets", on={"press": PressedNavigate("AllWallets")},
                 pending={"press": "busy"}, name="All Wallets", image=logos.ALL_WALLETS,
                 tag=directory_wallets.rounded_count(total) if total else "")
        )
    return [parts.column("connect/list", items)]


def _email(model: Model) -> list[Node]:
    state = model.embedded
    field = node("input", "connect/email", on={"change": change_email, "submit": submit_email},
                 value=state.email_draft, placeholder="Email", kind="email", label="Email",
                 error=state.email_error, busy=True if state.requesting else None)
    go = node("button", "connect/email/continue", on={"press": SubmittedEmail()},
              pending={"press": "busy"}, text="Continue", variant="main",
              disabled=True if state.requesting else None)
    return [parts.column("connect/email-method", [field, go])]


def _socials(model: Model) -> list[Node]:
    rows = []
    for provider in offered_socials(model):
        service = NAMES[provider]
        rows.append(node("list-item", f"connect/social/{provider}", on={"press": PressedSocial(provider)},
                         pending={"press": "busy"}, title=f"Continue with {service}",
                         image=logos.SOCIALS.get(provider), icon=None if provider in logos.SOCIALS else "user",
                         chevron=True))
    return [parts.column("connect/social-method", rows)]


def methods(model: Model) -> list[str]:
    """The connect methods drawn, in order (a method that offers nothing is left out)."""
    detected = bool(model.connectors.items)
    order = connect_method_order(model.options.features.connectMethodsOrder, detected)
    offered = {"wallet": True, "email": model.options.features.email and model.embedded.email_offered,
               "social": bool(offered_socials(model))}
    return [m for m in order if offered.get(m)]


def body(model: Model) -> Node:
    sections: list[Node] = []
    for method in methods(model):
        if sections:
            sections.append(node("separator", f"connect/or/{method}", text="or"))
        sections += {"email": _email, "social": _socials}.get(method, _wallets)(model)
    footer = parts.row("connect/footer", [
        node("text", "connect/footer/text", text="Haven't got a wallet?", variant="small", tone="muted"),
        node("link", "connect/footer/link", on={"press": PressedNavigate("WhatIsAWallet")},
             text="Get started"),
    ], justify="center")
    return parts.column("connect/body", [*sections, footer], gap=16)


TITLE = "Connect Wallet"
# What body() reads (views/__init__.py memoises it on these slices being the same objects).
READS = ("connectors", "directory", "options", "env", "origin", "embedded")
