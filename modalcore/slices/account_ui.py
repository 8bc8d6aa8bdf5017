"""What the visitor does in the Account view: copy the address, pick a tab."""

from __future__ import annotations

from dataclasses import dataclass
from ..core.evolve import replace
from typing import TYPE_CHECKING

from ..core.cmds import EffectReply
from ..core.msg import Msg
from ..core.shape import On, Slice
from . import clipboard
from . import nfts
from .history import fetch
from ..wire.frames import SelectArgs

if TYPE_CHECKING:
    from .model import Model, Step

TABS = ("Tokens", "NFTs", "Activity")
COPIED = "Address copied"


@dataclass(frozen=True)
class PressedCopyAddress(Msg):
    pass


@dataclass(frozen=True)
class SelectedTab(Msg):
    index: int


def on_copy(model: Model, msg: PressedCopyAddress, now: int) -> Step:
    address = model.accounts.get(model.networks.active_namespace).address
    if not address:
        return model, []
    return clipboard.copy(model, address, AddressCopyAnswered)


@dataclass(frozen=True)
class AddressCopyAnswered(EffectReply):
    """The browser copied the address to the clipboard, or could not."""


def on_copied(model: Model, msg: AddressCopyAnswered, now: int) -> Step:
    return clipboard.copied(model, msg.ok, COPIED)


def select_tab(args: SelectArgs) -> Msg:
    value = args.value
    index = int(value) if value.isdigit() else 0
    return SelectedTab(index)


def on_tab(model: Model, msg: SelectedTab, now: int) -> Step:
    if not 0 <= msg.index < len(TABS):
        return model, []
    namespace = model.networks.active_namespace or "eip155"
    account = model.accounts.get(namespace)
    model = replace(model, accounts=model.accounts.with_account(
        namespace, replace(account, current_tab=msg.index)))
    if msg.index == 2:  # Activity: its history fetch starts
        return fetch(model, now)
    if msg.index == 1:  # NFTs: the ERC-721 scan starts (unless fresh)
        return nfts.fetch(model, now)
    return model, []


HANDLERS = (
    On(AddressCopyAnswered, on_copied),
    On(PressedCopyAddress, on_copy),
    On(SelectedTab, on_tab),
)

SLICE = Slice("account_ui", HANDLERS)
