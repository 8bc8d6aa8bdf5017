"""What observes a session's inputs and outputs as they happen: the recorder
(`engine/record.Recorder`, which writes them down by name, `engine/named.py`). The session hands
it typed inputs and the frames they produced, and knows nothing of how they are written."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from ..chains.catalog import Network
from ..core.msg import Msg
from ..slices.options import HostOptions
from ..wire.frames import AnnouncedWallet, ClientFrame
from ..wire.serverframes import ServerFrame


class SessionTap(Protocol):
    def welcome(self, now: int, token: str, resumed: bool, last: int | None,
                wallets: list[AnnouncedWallet] | None = None, options: HostOptions | None = None,
                networks: Sequence[Network] = ()) -> None: ...

    def frame_in(self, now: int, frame: ClientFrame) -> None: ...

    def msg(self, now: int, msg: Msg) -> None: ...

    def out(self, frames: list[ServerFrame]) -> None: ...

    # the linked phone (engine/companion.py): its join (its public key, nothing of its signed
    # join), its frames in, its frames out, its socket gone
    def companion_join(self, now: int, public_key: str) -> None: ...

    def companion_in(self, now: int, frame: ClientFrame) -> None: ...

    def companion_out(self, frames: Sequence[ServerFrame]) -> None: ...

    def companion_left(self, now: int) -> None: ...
