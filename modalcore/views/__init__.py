"""`render(model, screen) -> tree`: pure. The root `modal` node holds the header, the view, the snackbar.

One module per view; each exports `body(model) -> Node` and `TITLE` (or `title(model)`). A view
that draws differently on the host page's screen and the linked phone's (views/screens.py)
says so with `SCREENED = True` and exports `body(model, screen) -> Node`.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from ..core.evolve import replace
from types import MappingProxyType, ModuleType

from ..i18n import localize, resolve
from ..slices.model import Model
from ..slices import modal as modal_slice
from ..slices import router as router_slice
from ..slices.handoff import VIEW as HANDOFF_VIEW, PressedContinueOnPhone, linked_key
from ..slices.navigation import PressedClose
from ..slices.snack import PressedSnackbar
from ..wire.frames import Env
from ..wire.nodes import Node, node
from .screens import HOST, Screen
from . import (
    account,
    alerts,
    all_wallets,
    approve_transaction,
    basic,
    calls_status,
    connect,
    connect_socials,
    connect_wallets,
    connecting_external,
    connecting_social,
    continue_on_phone,
    connecting_farcaster,
    email_verify_otp,
    connecting_walletconnect,
    networks,
    onramp,
    parts,
    receive,
    register_account_name,
    register_account_name_success,
    siwx_sign,
    send,
    send_preview,
    swap,
    swap_preview,
    unsupported_chain,
    wallet_page,
    what_is_a_wallet,
)

VIEW_MODULES: dict[str, ModuleType] = {
    "Connect": connect,
    "AllWallets": all_wallets,
    "ConnectingWalletConnectBasic": basic,
    "ConnectingExternal": connecting_external,
    "ConnectingWalletConnect": connecting_walletconnect,
    "WhatIsAWallet": what_is_a_wallet,
    "Account": account,
    "Networks": networks,
    "UnsupportedChain": unsupported_chain,
    "WalletReceive": receive,
    "WalletSend": send,
    "WalletSendPreview": send_preview,
    "SIWXSignMessage": siwx_sign,
    "WalletPage": wallet_page,
    "RegisterAccountName": register_account_name,
    "RegisterAccountNameSuccess": register_account_name_success,
    "Swap": swap,
    "SwapPreview": swap_preview,
    "OnRamp": onramp,
    "EmailVerifyOtp": email_verify_otp,
    "ApproveTransaction": approve_transaction,
    "ConnectingSocial": connecting_social,
    "ConnectSocials": connect_socials,
    "ConnectWallets": connect_wallets,
    "ConnectingFarcaster": connecting_farcaster,
    "CallsStatus": calls_status,
    "ContinueOnPhone": continue_on_phone,
}


_ON_CLOSE = MappingProxyType({"close": PressedClose()})  # immutable: one for every render


class UnknownView(LookupError):
    """The router holds a view with no module: every entry point checks `router.VIEWS`, so this
    is a bug, never input (tests fail on it rather than silently drawing Connect)."""


def view_module(name: str) -> ModuleType:
    module = VIEW_MODULES.get(name)
    if module is None:
        raise UnknownView(f"no view module for {name!r}; views: {sorted(VIEW_MODULES)}")
    return module


@dataclass(frozen=True)
class _ViewParts:
    """What a view module offers besides `body`, read from the module once: `getattr` with a
    default on a module that lacks the name raises and catches an AttributeError inside, which
    cost more than the rest of a memoised render."""

    title: Callable[[Model], str] | None
    title_text: str
    header_leading: Callable[[Model], Node] | None
    reads: tuple[str, ...] | None
    label: str
    screened: bool


@cache
def _view_parts(module: ModuleType) -> _ViewParts:
    return _ViewParts(getattr(module, "title", None), str(getattr(module, "TITLE", "")),
                      getattr(module, "header_leading", None), getattr(module, "READS", None),
                      str(getattr(module, "LABEL", "")), bool(getattr(module, "SCREENED", False)))


def _title(module: ModuleType, model: Model) -> str:
    found = _view_parts(module)
    return found.title(model) if found.title is not None else found.title_text


class BodyCache:
    """The last body drawn per view, with the model slices it was drawn from (one per session:
    a cache shared by the sessions of a process misses whenever they interleave).

    A view module that names the slices (or dotted fields of one) its body reads (`READS`) is a
    pure function of them: when they are the same objects (the model is immutable), the body is
    the same node, and
    the diff skips it by identity. Opening, closing and snack changes then cost no view work.
    Keys compare by identity and the cache holds its inputs, so a hit is always exact.
    """

    def __init__(self) -> None:
        self._last: dict[tuple[str, Screen], tuple[tuple[object, ...], Node]] = {}
        self._parts: dict[str, list[tuple[tuple[object, ...], Node]]] = {}
        self._env: tuple[Env, Env] | None = None  # (the session's env, the one a screen of another kind reads)

    def part(self, key: str, inputs: tuple[object, ...], build: Callable[[], Node]) -> Node:
        """The node `build()` draws, the same object as one of the last two times when `inputs`
        are the same (the frame around the views: header, view wrappers, snackbar; two, so that
        going to a view and back redraws neither). Nodes among the inputs compare by identity
        (their handlers take no part in equality), other values by value; `build` must depend
        on nothing else."""
        kept = self._parts.get(key)
        if kept is not None:
            for entry in kept:
                if _same_inputs(entry[0], inputs):
                    return entry[1]
        drawn = build()
        self._parts[key] = [(inputs, drawn)] if kept is None else [(inputs, drawn), kept[0]]
        return drawn

    def body(self, name: str, module: ModuleType, model: Model, screen: Screen = HOST) -> Node:
        """The view's body on `screen`: a memo hit needs the same inputs and the same screen
        (only a `SCREENED` view's body depends on it; the others are drawn once for both)."""
        offered = _view_parts(module)
        screened, reads = offered.screened, offered.reads
        if reads is None:
            return _draw(module, model, screen, screened)
        inputs = _reader(reads)(model)
        key = (name, screen if screened else HOST)
        hit = self._last.get(key)
        if hit is not None and not any(map(operator.is_not, hit[0], inputs)):
            return hit[1]
        drawn = _draw(module, model, screen, screened)
        self._last[key] = (inputs, drawn)
        return drawn

    def seen(self, model: Model, screen: Screen) -> Model:
        """`model` as `screen`'s views read it (its own device kind in `env`), the same `env`
        object while the session's is (so the memo of bodies reading it still hits)."""
        if not screen.differs(model):
            return model
        kept = self._env
        if kept is None or kept[0] is not model.env or kept[1].mobile != screen.mobile:
            kept = self._env = (model.env, screen.env(model))
        return replace(model, env=kept[1])


def _draw(module: ModuleType, model: Model, screen: Screen, screened: bool) -> Node:
    drawn: Node = module.body(model, screen) if screened else module.body(model)
    return drawn


def _same_inputs(before: tuple[object, ...], now: tuple[object, ...]) -> bool:
    if len(before) != len(now):
        return False
    if all(map(operator.is_, before, now)):
        return True  # the usual hit: the very same inputs (compared in C)
    for a, b in zip(before, now):
        if a is b:
            continue
        if isinstance(a, Node) or type(a) is not type(b) or a != b:
            return False
    return True


@cache
def _reader(reads: tuple[str, ...]) -> Callable[[Model], tuple[object, ...]]:
    """The slices a view reads, as a tuple, in one call."""
    if len(reads) == 1:
        one = operator.attrgetter(reads[0])
        return lambda model: (one(model),)
    return operator.attrgetter(*reads)


class _NoCache(BodyCache):
    def body(self, name: str, module: ModuleType, model: Model, screen: Screen = HOST) -> Node:
        return _draw(module, model, screen, _view_parts(module).screened)

    def part(self, key: str, inputs: tuple[object, ...], build: Callable[[], Node]) -> Node:
        return build()


_UNCACHED = _NoCache()


def render(model: Model, bodies: BodyCache | None = None, screen: Screen = HOST) -> Node:
    """The whole tree `screen` draws (the host page's, or the linked phone's: views/screens.py),
    in the visitor's language (i18n/localize.py: the views draw English)."""
    language = resolve(model.options.locale, model.env.languages)
    return localize(_render(model, bodies, screen), language)


def screened(model: Model, screen: Screen) -> bool:
    """`screen` may draw another tree than the host page's for `model`: its device kind differs,
    or a view drawn (the current one, the one "back" shows) is `SCREENED`."""
    if screen == HOST:
        return False
    if screen.differs(model):
        return True
    history = model.router.history
    return any(getattr(VIEW_MODULES.get(entry.view), "SCREENED", False) for entry in history[-2:])


def _render(model: Model, bodies: BodyCache | None = None, screen: Screen = HOST) -> Node:
    """The whole tree in English. Two derivations keep the renderer's local guesses ready (behaviour.md "Latency"):

    - while the modal is closed (and not embedded) it draws the view `open()` would show
      (`opening_view`, behaviour.md §2), so that opening is a local prop change the engine confirms;
    - with more than one view on the stack, the view "back" returns to is kept as a hidden
      sibling, and the header's back button names it in its pending hint `{back: id}`.

    `bodies` is the caller's (a session's) memo of view bodies; without one nothing is cached.
    """
    bodies = bodies if bodies is not None else _UNCACHED
    model = bodies.seen(model, screen)
    if not model.modal.open and not model.options.embedded:
        opening = modal_slice.opening_view(model)
        if model.router.view != opening or len(model.router.history) > 1:
            model = replace(model, router=router_slice.reset(model.router, opening))
    view = model.router.view
    module = view_module(view)
    closable = modal_slice.closing_allowed(model)
    leading = _view_parts(module).header_leading
    previous, back_hint = _back(model, closable, bodies, screen)
    title = _title(module, model)
    back = len(model.router.history) > 1
    close = not model.options.embedded
    lead = leading(model) if leading is not None else None
    head = bodies.part("header", (title, back, close, lead, back_hint, closable), lambda: parts.header(
        title, back=back, close=close, leading=lead, back_hint=back_hint, closable=closable))
    snack = model.snack
    snackbar = bodies.part("snackbar", (snack,), lambda: node(
        "snackbar", "snackbar", on={"press": PressedSnackbar()},
        message=snack.message, variant=snack.variant, open=snack.open,
    ))
    body = bodies.body(view, module, model, screen)
    view_node = bodies.part("view", (view, body), lambda: node("view", f"view/{view}", [body], name=view))
    views = [view_node] if previous is None else [previous, view_node]
    drawn_alerts = alerts.drawn(model)
    footer = [bodies.part("footer", (model.env.mobile,), lambda: _footer(model.env.mobile))] if _offers_handoff(model, view) else []
    return node(
        "modal",
        "modal",
        [head, *drawn_alerts, *views, *footer, snackbar],
        on=_ON_CLOSE,
        pending={"close": "close" if closable else None},
        open=model.modal.open,
        closable=closable,
        shake=model.modal.shake,
        embedded=model.options.embedded,
        view=view,
        loading=model.modal.loading,
        label=title or _view_parts(module).label or None,  # the dialog's accessible name
    )


def _offers_handoff(model: Model, view: str) -> bool:
    """The footer's "Continue on your phone" (issue 44 item 1): offered from every view but its
    own while the host turned it on and no phone is linked for the account signed in."""
    return model.options.features.continueOnPhone and view != HANDOFF_VIEW and not linked_key(model)


def _footer(mobile: bool) -> Node:
    if mobile:  # a phone continues on a computer: a short address and a code to type
        return node("button", "footer/continue-on-phone", on={"press": PressedContinueOnPhone()},
                    pending={"press": "spinner"}, text="Continue on your computer", variant="secondary", icon="external")
    return node("button", "footer/continue-on-phone", on={"press": PressedContinueOnPhone()},
                pending={"press": "spinner"}, text="Continue on your phone", variant="secondary", icon="qr")


def _back(model: Model, closable: bool, bodies: BodyCache, screen: Screen) -> tuple[Node | None, object]:
    """The hidden view "back" shows and the back button's pending hint (mirrors `stack.go_back`)."""
    history = model.router.history
    if len(history) < 2:
        return None, None
    if history[-2].view == history[-1].view or model.router.contains("UnsupportedChain"):
        # back closes here (or the target shares the current view's node ids): no local view
        return None, "close" if closable and not model.options.embedded else "spinner"
    target = history[-2].view
    module = view_module(target)
    after = replace(model, router=replace(model.router, history=history[:-1]))
    body = bodies.body(target, module, after, screen)
    title = _title(module, after)
    hidden = bodies.part("back", (target, body, title), lambda: node(
        "view", f"view/{target}", [body], name=target, hidden=True, title=title))
    return hidden, {"back": hidden.id}
