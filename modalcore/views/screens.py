"""Which screen draws (issue 44 item 1): a view input per connection, never state of the session.

A session has one model and one view stack, but up to two screens draw it: the host page's (its
own connection) and, once a phone is linked, the phone's modal (a companion connection,
engine/companion.py). Most views draw the same on both. A few draw what only one screen may
show: ApproveTransaction draws the approval inside the phone's modal and "Waiting for your
phone" on the host page's (the host can never press the phone's Approve: it is not in its tree);
the WalletConnect wallet page draws a phone's deep link on the phone and the QR code on a computer.

`render(model, bodies, screen)` takes it as an argument: views stay pure functions of
(model, screen), and a view body's memo keys on the screen too (views/__init__.BodyCache).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..slices.model import Model
    from ..wire.frames import Env


@dataclass(frozen=True, slots=True)
class Screen:
    """`companion`: the linked phone's modal, not the host page's. `mobile`: the device kind this
    screen is (None: the session's, `env.mobile`, as the host page's join said)."""

    companion: bool = False
    mobile: bool | None = None

    def differs(self, model: Model) -> bool:
        """This screen's device kind is not the session's: its views read another `env`."""
        return self.mobile is not None and self.mobile != model.env.mobile

    def env(self, model: Model) -> Env:
        """The session's `env` as this screen's views read it (its own device kind)."""
        return model.env.model_copy(update={"mobile": self.mobile}) if self.differs(model) else model.env


HOST = Screen()  # the host page's connection: the session's own
PHONE = Screen(companion=True, mobile=True)  # the linked phone's modal (server/handoff.py's page)
COMPUTER = Screen(companion=True, mobile=False)  # a phone's session continued on a computer


def companion_screen(model: Model) -> Screen:
    """The screen of the session's companion: the phone it was continued on, or the computer
    (a phone's session continued on a computer, `handoff.to`)."""
    return COMPUTER if model.handoff.to == "computer" else PHONE
