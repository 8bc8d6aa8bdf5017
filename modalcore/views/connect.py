"""The Connect view: the connect methods in behaviour.md §1's order (email, social, wallet; wallet
first when an installed or injected wallet is detected, unless the host configured an order).

The email method is the email field and its Continue button (on unless `features.email` is
off). The wallet method: wallets in the behaviour.md §1 connector order. Installed (announced) wallets
come first, then the host's featured and custom wallets, external connectors and 4 recommended
wallets from the directory (they appear once fetched; nothing stands in for them meanwhile).
"All Wallets" carries the directory's total, rounded ("120+").

As AppKit's w3m-connect-view (issue 28): the socials as a wide first button and a row of marks
(flows/social.py `social_layout`); with `features.collapseWallets` (or `emailShowWallets` off)
and email or socials offered, one "Continue with a wallet" row leads to ConnectWallets instead
of the wallet rows; with `features.legalCheckbox` and a terms or privacy link, the checkbox comes
first and every method is drawn disabled, offering no action, until it is ticked. The header's
"?" leads to "What is a wallet?".
"""

from __future__ import annotations

from urllib.parse import urlencode

from ..slices.model import Model
from ..slices import directory_wallets
from ..slices.connectors import connect_method_order, is_installed_wallet
from ..flows.embedded import passkey_offered
from ..flows.social import NAMES, offered_socials, social_layout
from ..slices.embedded import PressedSocial, SubmittedEmail, change_email, submit_email
from ..slices.modal import legal_gate_closed, legal_links, toggle_legal
from ..slices.navigation import PressedNavigate
from ..wire.nodes import Node, node
from ..wire.registry import NODE_TYPES
from ..rules import embedded as rules
from . import logos, parts
from .approve_transaction import theme_key
from .connecting_social import window_src
from .wallet_list import connect_rows, listed


WHAT_IS_A_WALLET = "What is a wallet?"
CONTINUE_WITH_A_WALLET = "Continue with a wallet"
ALL_SOCIALS = "All Socials"


# AppKit's header "?" on Connect: the wallet guide (one node: the header memo keeps it by identity)
_HELP = node("button", "header/help", on={"press": PressedNavigate("WhatIsAWallet")},
             pending={"press": "spinner"}, text="", icon="help", variant="ghost", label=WHAT_IS_A_WALLET)


def header_leading(model: Model) -> Node:
    return _HELP


def collapsed(model: Model) -> bool:
    """One "Continue with a wallet" row stands for the wallets (AppKit: only beside email or
    social sign-in; `emailShowWallets: false` is its older name)."""
    features = model.options.features
    other = (features.email and model.embedded.email_offered) or bool(offered_socials(model))
    return other and (features.collapseWallets or not features.emailShowWallets)


DISPLAYED_WALLETS_AMOUNT = 4


def recommended_cap(model: Model) -> int:
    """How many recommended wallets Connect lists (AppKit's ConnectorUtil.getCappedRecommendedWallets):
    four less one per featured, custom and installed wallet and one each for email and social
    sign-in offered; none without WalletConnect, an installed or a custom wallet. This is what
    keeps every method in sight on a desktop card without an inner scroll (issue 28 item 5)."""
    installed = [c for c in listed(model) if is_installed_wallet(c)]
    custom = len(model.options.customWallets)
    if not installed and not custom and not any(c.type == "WALLET_CONNECT" for c in listed(model)):
        return 0
    features = model.options.features
    shown = (len(model.options.featuredWalletIds) + custom + len(installed)
             + int(features.email and model.embedded.email_offered) + int(bool(offered_socials(model))))
    return max(0, DISPLAYED_WALLETS_AMOUNT - shown)


def wallet_rows(model: Model, prefix: str = "connect") -> list[Node]:
    """The wallets in connector order, then All Wallets (Connect, or ConnectWallets: `prefix`
    starts the node ids, which are unique in the tree)."""
    items = connect_rows(model, recommended_cap(model), prefix)
    if model.options.features.allWallets:
        total = directory_wallets.total(model)
        items.append(
            node("wallet-item", f"{prefix}/all-wallets", on={"press": PressedNavigate("AllWallets")},
                 pending={"press": "busy"}, name="All Wallets", image=logos.ALL_WALLETS,
                 tag=directory_wallets.rounded_count(total) if total else "")
        )
    return [parts.column(f"{prefix}/list", items)]


def _wallets(model: Model) -> list[Node]:
    if collapsed(model):
        return [node("list-item", "connect/wallets", on={"press": PressedNavigate("ConnectWallets")},
                     pending={"press": "spinner"}, title=CONTINUE_WITH_A_WALLET, icon="wallet", chevron=True)]
    return wallet_rows(model)


def _email(model: Model) -> list[Node]:
    state = model.embedded
    field = node("input", "connect/email", on={"change": change_email, "submit": submit_email},
                 value=state.email_draft, placeholder="Email", kind="email", label="Email",
                 error=state.email_error, busy=True if state.requesting else None)
    go = node("button", "connect/email/continue", on={"press": SubmittedEmail()},
              pending={"press": "busy"}, text="Continue", variant="main",
              disabled=True if state.requesting else None)
    return [parts.column("connect/email-method", [field, go, *_passkey(model)])]


PASSKEY_PATH = "/embedded/passkey/signin"
SIGN_IN_WITH_A_PASSKEY = "Sign in with a passkey"
PASSKEY_FRAME_HEIGHT = 40  # one button, as tall as Continue


def _passkey(model: Model) -> list[Node]:
    """Issue 43 §3: "Sign in with a passkey" under the email field, with no email typed. The
    button is a frame of the engine's origin (server/passkey.py), where the WebAuthn ceremony
    runs for the engine as relying party; the passkey names the account."""
    if not passkey_offered(model):
        return []
    theme = theme_key(model.theme)
    src = f"{PASSKEY_PATH}?{urlencode({'session': model.session_id, **({'theme': theme} if theme else {})})}"
    return [node("frame", "connect/passkey", src=src, title=SIGN_IN_WITH_A_PASSKEY, height=PASSKEY_FRAME_HEIGHT)]


def social_row(model: Model, provider: str, prefix: str) -> Node:
    """A provider as a wide row: "Continue with {name}" with its mark."""
    service = NAMES[provider]
    return node("list-item", f"{prefix}/{provider}", on={"press": PressedSocial(provider)},
                pending={"press": "busy"}, title=f"Continue with {service}", popup=_popup(model, provider),
                image=logos.SOCIALS.get(provider), icon=None if provider in logos.SOCIALS else "user")


def _popup(model: Model, provider: str) -> str | None:
    """Issue 39: one press opens the provider's window. The renderer opens this engine page in
    the click (only a click may open a window, and a frame cannot be handed that click); the page
    hands itself to ConnectingSocial's frame, which begins the sign-in in it (views/
    connecting_social.py). Farcaster signs in through its relay: no window."""
    return window_src(model.session_id, provider) if provider in rules.SOCIAL_PROVIDERS else None


def _mark(model: Model, provider: str) -> Node:
    service = NAMES[provider]
    return node("button", f"connect/social/{provider}", on={"press": PressedSocial(provider)},
                pending={"press": "busy"}, text="", variant="mark", popup=_popup(model, provider), image=logos.SOCIALS.get(provider),
                icon=None if provider in logos.SOCIALS else "user", label=f"Continue with {service}")


def _wide(model: Model, provider: str) -> Node:
    """The first social as AppKit's wui-list-button: its mark and "Continue with {name}", centred."""
    service = NAMES[provider]
    return node("button", f"connect/social/{provider}", on={"press": PressedSocial(provider)},
                pending={"press": "busy"}, text=f"Continue with {service}", variant="secondary",
                popup=_popup(model, provider),
                image=logos.SOCIALS.get(provider), icon=None if provider in logos.SOCIALS else "user")


def _socials(model: Model) -> list[Node]:
    layout = social_layout(offered_socials(model))
    items = [_wide(model, layout.wide)] if layout.wide else []
    marks = [_mark(model, p) for p in layout.marks]
    if layout.more:
        marks.append(node("button", "connect/social/more", on={"press": PressedNavigate("ConnectSocials")},
                          pending={"press": "spinner"}, text="", variant="mark", icon="more", label=ALL_SOCIALS))
    if marks:
        items.append(parts.row("connect/social-marks", marks))
    return [parts.column("connect/social-method", items)]


def _legal(model: Model) -> list[Node]:
    """AppKit's w3m-legal-checkbox: "I agree to our terms of service and privacy policy"."""
    terms, privacy = legal_links(model)
    if not (terms or privacy):
        return []
    words: list[Node] = [node("checkbox", "connect/legal", on={"toggle": toggle_legal},
                              checked=model.modal.legal_agreed, text="I agree to our")]
    if terms:
        words.append(node("link", "connect/legal/terms", text="terms of service", href=terms))
    if terms and privacy:
        words.append(node("text", "connect/legal/and", text="and", variant="small", tone="muted"))
    if privacy:
        words.append(node("link", "connect/legal/privacy", text="privacy policy", href=privacy))
    return [node("stack", "connect/legal-row", words, dir="row", gap=4, align="center", wrap=True)]


def _inert(item: Node) -> Node:
    """The node drawn disabled, offering no action (the engine refuses an intent a node does
    not offer), its children too."""
    props = {k: v for k, v in item.p.items() if k not in ("on", "popup")}
    if "disabled" in NODE_TYPES[item.t]:
        props["disabled"] = True
    return Node(item.id, item.t, props, [_inert(child) for child in item.c])


def methods(model: Model) -> list[str]:
    """The connect methods drawn, in order (a method that offers nothing is left out)."""
    detected = bool(model.connectors.items)
    order = connect_method_order(model.options.features.connectMethodsOrder, detected)
    offered = {"wallet": True, "email": model.options.features.email and model.embedded.email_offered,
               "social": bool(offered_socials(model))}
    return [m for m in order if offered.get(m)]


def body(model: Model) -> Node:
    sections: list[Node] = []
    previous = ""
    for method in methods(model):
        # AppKit: no "or" between email and socials, which read as one sign-in block
        if sections and {previous, method} != {"email", "social"}:
            sections.append(node("separator", f"connect/or/{method}", text="or"))
        sections += {"email": _email, "social": _socials}.get(method, _wallets)(model)
        previous = method
    if legal_gate_closed(model):
        sections = [_inert(section) for section in sections]
    footer = parts.row("connect/footer", [
        node("text", "connect/footer/text", text="Haven't got a wallet?", variant="small", tone="muted"),
        node("link", "connect/footer/link", on={"press": PressedNavigate("WhatIsAWallet")},
             text="Get started"),
    ], justify="center")
    return parts.column("connect/body", [*_legal(model), *sections, footer], gap=12)


TITLE = "Connect Wallet"
# What body() reads (views/__init__.py memoises it on these being the same objects). Of `modal`
# only the legal tick: opening and closing replace the modal slice, and must not redraw the body.
READS = ("connectors", "directory", "options", "env", "origin", "embedded", "modal.legal_agreed", "session_id",
         "theme")  # the passkey frame's src names the theme
