"""Recording a session's inputs and outputs, and replaying them (DESIGN.md: replayable sessions).

A recording is JSON lines. Inputs: `join` (how the session began), `in` (a client frame),
`msg` (a command result or a timer), `welcome` (a socket attached). Outputs: `out` (each frame the
session produced). Replay feeds the inputs to a fresh session and compares every output.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from pydantic import TypeAdapter

from ..chains.catalog import Network
from ..slices.options import HostOptions, parse_options
from ..wire.frames import AnnouncedWallet, ClientFrame, Join
from ..slices.model import initial_model
from ..core.msg import Msg, msg_from_data, msg_to_data
from .session import Session

_client_frame: TypeAdapter[ClientFrame] = TypeAdapter(ClientFrame)
_networks: TypeAdapter[tuple[Network, ...]] = TypeAdapter(tuple[Network, ...])


class Recorder:
    def __init__(self, sink: IO[str]) -> None:
        self.sink = sink

    def write(self, event: dict[str, Any]) -> None:
        self.sink.write(json.dumps(event, separators=(",", ":"), sort_keys=False) + "\n")
        self.sink.flush()

    def join(self, now: int, session_id: str, origin: str, frame: Join,
             networks: Sequence[Network] = ()) -> None:
        """How the session began; `networks` are the catalog entries its model was built with
        (the operator's config), so a replay needs no config."""
        self.write({"k": "join", "now": now, "session": session_id, "origin": origin,
                    "frame": frame.model_dump(mode="json"),
                    "networks": _networks.dump_python(tuple(networks), mode="json")})

    def welcome(self, now: int, token: str, resumed: bool, last: int | None,
                wallets: list[AnnouncedWallet] | None = None, options: HostOptions | None = None,
                networks: Sequence[Network] = ()) -> None:
        self.write({"k": "welcome", "now": now, "token": token, "resumed": resumed, "last": last,
                    "wallets": [w.model_dump(mode="json") for w in wallets or []],
                    "options": options.model_dump(mode="json") if options is not None else None,
                    "networks": _networks.dump_python(tuple(networks), mode="json")})

    def frame_in(self, now: int, frame: ClientFrame) -> None:
        self.write({"k": "in", "now": now, "frame": frame.model_dump(mode="json", exclude_none=True)})

    def msg(self, now: int, msg: Msg) -> None:
        self.write({"k": "msg", "now": now, "msg": msg_to_data(msg)})

    def out(self, frames: list[dict[str, Any]]) -> None:
        for frame in frames:
            self.write({"k": "out", "frame": _jsonable(frame)})


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value))


@dataclass
class Divergence:
    index: int
    expected: Any
    actual: Any


def read_events(path: Path) -> Iterator[dict[str, Any]]:
    with path.open() as lines:
        for line in lines:
            if line.strip():
                yield json.loads(line)


def replay(path: Path) -> Divergence | None:
    """Re-run a recording; the first outbound frame that differs, or None when all match."""
    events = list(read_events(path))
    session: Session | None = None
    expected = [event["frame"] for event in events if event["k"] == "out"]
    actual: list[Any] = []
    for event in events:
        kind = event["k"]
        if kind == "join":
            frame = Join.model_validate(event["frame"])
            recorded = _networks.validate_python(event.get("networks") or [])
            known = {network.id: network for network in recorded} if recorded else None
            model = initial_model(frame.project, event["origin"], parse_options(frame.opts),
                                  frame.env, frame.wallets, known_networks=known)
            session = Session(event["session"], model, event["now"])
        elif session is None:
            raise ValueError("a recording starts with a join event")
        elif kind == "welcome":
            wallets = [AnnouncedWallet.model_validate(w) for w in event.get("wallets", [])]
            options = event.get("options")
            out = session.welcome(
                event["token"], resumed=event["resumed"], last=event["last"], now=event["now"],
                wallets=wallets,
                options=HostOptions.model_validate(options) if options is not None else None,
                networks=_networks.validate_python(event.get("networks") or []),
            )
            actual.extend(_jsonable(f) for f in out.frames)
        elif kind == "in":
            out = session.receive(_client_frame.validate_python(event["frame"]), event["now"])
            actual.extend(_jsonable(f) for f in out.frames)
        elif kind == "msg":
            out = session.deliver(msg_from_data(event["msg"]), event["now"])
            actual.extend(_jsonable(f) for f in out.frames)
    for index in range(max(len(expected), len(actual))):
        want = expected[index] if index < len(expected) else None
        got = actual[index] if index < len(actual) else None
        if want != got:
            return Divergence(index, want, got)
    return None
