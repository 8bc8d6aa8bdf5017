"""Recording a session's inputs and outputs, and replaying them (docs/testers/record-replay.md).

A recording is JSON lines, each an event `{"k": kind, ...}`:

- `header`: what recorded it: `format`, `engine` (package version), `commit` (git, when known;
  `<commit>+dirty` when the engine's sources differ from it),
  `recorded_at` (UTC, ISO 8601) and an optional `name`; absent from recordings made before it.
- Inputs: `join` (how the session began), `welcome` (a socket attached), `in` (a client frame),
  `msg` (a command result or a timer). Each carries `now`, the session clock (ms).
- Outputs: `out`, each frame the session produced, after the input that produced it.
- The linked phone (engine/companion.py): `companion` (it joined: `public_key` only, never its
  signed join's nonce or signature) and `companion_left` are inputs, its frames are `in` with
  `"by": "companion"`, and what it was sent is `out` with `"to": "companion"` (replay.py).

Replay feeds the inputs to a fresh session and compares every output. Resume and sign-in
tokens are written as placeholders (`scrub.py`); the engine passes them through unchanged.
"""

from __future__ import annotations

import functools
import json
import subprocess
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from ..core.evolve import replace
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import IO, Any

from pydantic import TypeAdapter

from ..chains.catalog import Network
from ..slices.options import HostOptions, parse_options
from ..wire.frames import AnnouncedWallet, ClientFrame, Join
from ..wire.serverframes import ServerFrame, wire
from ..slices.model import initial_model
from ..core.msg import Msg
from .named import from_data, to_data
from .scrub import Scrubber
from .replay_companion import COMPANION, companion_event, feed_companion, is_companion_frame, mirrored, to_companion
from .session import Session

FORMAT = 2
_client_frame: TypeAdapter[ClientFrame] = TypeAdapter(ClientFrame)
_networks: TypeAdapter[tuple[Network, ...]] = TypeAdapter(tuple[Network, ...])
INPUTS = ("join", "welcome", "in", "msg", "companion", "companion_left")


def engine_version() -> str:
    try:
        return version("modalcore")
    except PackageNotFoundError:
        return "unknown"


@functools.cache
def engine_commit() -> str | None:
    """The git commit the engine runs from, when it runs from a checkout; `<commit>+dirty` when
    the engine's sources differ from it (a recording or `replay --update` made by uncommitted
    code must not name a commit that never drew those frames)."""
    return commit_of(Path(__file__).resolve().parents[1])


def commit_of(directory: Path) -> str | None:
    """HEAD of the checkout holding `directory`, `+dirty` when a file under it is changed,
    added or not yet tracked; None outside a checkout (or without git)."""
    try:
        done = subprocess.run(["git", "rev-parse", "HEAD"], cwd=directory,
                              capture_output=True, text=True, timeout=5, check=False)
        if done.returncode != 0 or not done.stdout.strip():
            return None
        changed = subprocess.run(["git", "status", "--porcelain", "--", "."], cwd=directory,
                                 capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    commit = done.stdout.strip()
    dirty = changed.returncode != 0 or bool(changed.stdout.strip())
    return f"{commit}+dirty" if dirty else commit


def header(name: str | None = None) -> dict[str, object]:
    event: dict[str, object] = {
        "k": "header", "format": FORMAT, "engine": engine_version(), "commit": engine_commit(),
        "recorded_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }
    if name:
        event["name"] = name
    return event


class Recorder:
    """Writes a recording to `sink`: a header first, then each input followed by its outputs.

    An input is held until its outputs are known, so a token first revealed by an output
    (`joined`, the `siwx` host event) is already a placeholder in the input that carried it.
    """

    def __init__(self, sink: IO[str], *, name: str | None = None, with_header: bool = True) -> None:
        self.sink = sink
        self.scrubber = Scrubber()
        self._held: list[dict[str, Any]] = []
        if with_header:
            self._emit(header(name))

    def _emit(self, event: dict[str, object]) -> None:
        self.sink.write(json.dumps(self.scrubber.scrub(event), separators=(",", ":")) + "\n")

    def write(self, event: dict[str, object]) -> None:
        """Write an event now (with the inputs held before it)."""
        for held in self._held:
            self._emit(held)
        self._held = []
        self._emit(event)
        self.sink.flush()

    def _hold(self, event: dict[str, object]) -> None:
        if self._held:
            self.flush()
        self._held.append(event)

    def flush(self) -> None:
        for held in self._held:
            self._emit(held)
        self._held = []
        self.sink.flush()

    def join(self, now: int, session_id: str, origin: str, frame: Join,
             networks: Sequence[Network] = (), embedded: tuple[bool, tuple[str, ...]] = (False, ()), *,
             walletconnect: bool = False) -> None:
        """How the session began; `networks` are the catalog entries its model was built with,
        `embedded` what its embedded wallet offered (email, socials) and `walletconnect` whether the
        engine ran WalletConnect (the operator's config), so a replay needs no config."""
        data = frame.model_dump(mode="json")
        self.scrubber.learn(data.get("resume"), "resume-token")
        event: dict[str, object] = {"k": "join", "now": now, "session": session_id, "origin": origin, "frame": data,
                                 "networks": _networks.dump_python(tuple(networks), mode="json")}
        if embedded != (False, ()):
            event["embedded"] = {"email": embedded[0], "socials": list(embedded[1])}
        if walletconnect:
            event["walletconnect"] = True
        self.write(event)

    def welcome(self, now: int, token: str, resumed: bool, last: int | None,
                wallets: list[AnnouncedWallet] | None = None, options: HostOptions | None = None,
                networks: Sequence[Network] = ()) -> None:
        self.scrubber.learn(token, "resume-token")
        self._hold({"k": "welcome", "now": now, "token": token, "resumed": resumed, "last": last,
                    "wallets": [w.model_dump(mode="json") for w in wallets or []],
                    "options": options.model_dump(mode="json") if options is not None else None,
                    "networks": _networks.dump_python(tuple(networks), mode="json")})

    def frame_in(self, now: int, frame: ClientFrame) -> None:
        data = frame.model_dump(mode="json", exclude_none=True)
        self._hold({"k": "in", "now": now, "frame": data})

    def msg(self, now: int, msg: Msg) -> None:
        data = to_data(msg)
        self.scrubber.learn_keys(data["data"].get("result"), "session-token")
        self._hold({"k": "msg", "now": now, "msg": data})

    def companion_join(self, now: int, public_key: str) -> None:
        self._hold({"k": "companion", "now": now, "public_key": public_key})

    def companion_in(self, now: int, frame: ClientFrame) -> None:
        self._hold({"k": "in", "now": now, "by": "companion", "frame": frame.model_dump(mode="json", exclude_none=True)})

    def companion_out(self, frames: Sequence[ServerFrame]) -> None:
        self._out([{"k": "out", "to": "companion", "frame": _jsonable(wire(frame))} for frame in frames])

    def companion_left(self, now: int) -> None:
        self.write({"k": "companion_left", "now": now})

    def out(self, frames: list[ServerFrame]) -> None:
        events = [{"k": "out", "frame": _jsonable(wire(frame))} for frame in frames]
        for event in events:
            self.scrubber.learn_frame(event["frame"])
        self._out(events)

    def _out(self, events: Sequence[dict[str, object]]) -> None:
        for held in self._held:
            self._emit(held)
        self._held = []
        for event in events:
            self._emit(event)
        self.sink.flush()


def _jsonable(value: object) -> Any:
    return json.loads(json.dumps(value))


# ----- reading


def read_events(path: Path) -> Iterator[dict[str, Any]]:
    """The events of a recording, in order (blank lines skipped)."""
    for _, event in read_lines(path):
        yield event


def read_lines(path: Path) -> Iterator[tuple[int, dict[str, object]]]:
    """(line number from 1, event) for every event of a recording."""
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            if line.strip():
                try:
                    event = json.loads(line)
                except json.JSONDecodeError as error:
                    raise ValueError(f"line {number}: not JSON ({error.msg})") from None
                if not isinstance(event, dict):
                    raise ValueError(f"line {number}: not a JSON object")
                yield number, event


# ----- replaying


@dataclass
class Step:
    """One input of a recording and the frames it produced, recorded and replayed."""

    line: int
    event: dict[str, Any]
    expected: list[tuple[int, dict[str, Any]]] = field(default_factory=list)  # (line, frame)
    actual: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class Divergence:
    index: int  # position among the outbound frames
    expected: dict[str, object] | None  # None: the recording has no frame here
    actual: dict[str, object] | None  # None: the replay sent no frame here
    line: int | None = None  # the expected frame's line in the recording
    step: Step | None = None  # the input just before it


@dataclass
class Replay:
    header: dict[str, Any] | None
    steps: list[Step]

    def expected(self) -> list[tuple[int, dict[str, object], Step]]:
        return [(line, frame, step) for step in self.steps for line, frame in step.expected]

    def actual(self) -> list[tuple[dict[str, object], Step]]:
        return [(frame, step) for step in self.steps for frame in step.actual]

    def divergences(self) -> list[Divergence]:
        """Every outbound frame that differs, compared position by position."""
        expected, actual = self.expected(), self.actual()
        found = []
        for index in range(max(len(expected), len(actual))):
            want = expected[index] if index < len(expected) else None
            got = actual[index] if index < len(actual) else None
            want_frame = want[1] if want else None
            got_frame = got[0] if got else None
            if want_frame != got_frame:
                step = want[2] if want else got[1] if got else None
                found.append(Divergence(index, want_frame, got_frame, want[0] if want else None, step))
        return found

    def frame_count(self) -> int:
        return sum(len(step.expected) for step in self.steps)


def run_events(lines: Iterable[tuple[int, dict[str, object]]]) -> Replay:
    """Feed a recording's inputs to a fresh session; raises ValueError for a bad recording."""
    session: Session | None = None
    head: dict[str, object] | None = None
    steps: list[Step] = []
    for line, event in lines:
        kind = event.get("k")
        if kind == "header":
            head = event
            continue
        if kind == "out":
            if not steps:
                raise ValueError(f"line {line}: an output before any input")
            frame = event.get("frame")
            steps[-1].expected.append((line, to_companion(frame) if event.get("to") == COMPANION else frame))  # type: ignore[arg-type]
            continue
        if kind not in INPUTS:
            raise ValueError(f"line {line}: unknown event kind {kind!r}")
        step = Step(line, event)
        steps.append(step)
        try:
            if kind == "join":
                session = start_session(event)
                continue
            if session is None:
                raise ValueError("a recording starts with a join event")
            step.actual = [_jsonable(f) for f in feed_input(session, event)]
        except (KeyError, TypeError) as error:
            raise ValueError(f"line {line}: bad {kind} event ({error!r})") from None
        except ValueError as error:
            raise ValueError(f"line {line}: {error}") from None
    if session is None:
        raise ValueError("a recording starts with a join event")
    return Replay(head, steps)


def start_session(event: dict[str, Any]) -> Session:
    """The session a recording's join event starts, as the engine starts it."""
    frame = Join.model_validate(event["frame"])
    recorded = _networks.validate_python(event.get("networks") or [])
    known = {network.id: network for network in recorded} if recorded else None
    model = initial_model(frame.project, event["origin"], parse_options(frame.opts),
                          frame.env, frame.wallets, known_networks=known,
                          walletconnect=bool(event.get("walletconnect")))
    offer = event.get("embedded") or {}
    if offer:
        embedded = replace(model.embedded, email_offered=bool(offer.get("email")),
                           socials=tuple(str(s) for s in offer.get("socials") or ()))
        model = replace(model, embedded=embedded)
    return Session(event["session"], model, event["now"])


def feed_input(session: Session, event: dict[str, Any]) -> list[dict[str, Any]]:
    """Give a recorded input (welcome, in, msg; the companion's: replay_companion.py) to the
    session; the frames it sends (the companion's marked `to_companion`)."""
    kind = event["k"]
    if companion_event(event):
        frame = _client_frame.validate_python(event["frame"]) if kind == "in" else None
        return feed_companion(session, event, frame)
    if kind == "welcome":
        wallets = [AnnouncedWallet.model_validate(w) for w in event.get("wallets", [])]
        options = event.get("options")
        out = session.welcome(
            event["token"], resumed=event["resumed"], last=event["last"], now=event["now"],
            wallets=wallets,
            options=HostOptions.model_validate(options) if options is not None else None,
            networks=_networks.validate_python(event.get("networks") or []),
        )
    elif kind == "in":
        out = session.receive(_client_frame.validate_python(event["frame"]), event["now"])
    else:
        out = session.deliver(from_data(event["msg"], session.table.messages), event["now"])
    return [*(wire(frame) for frame in out.frames), *mirrored(session, out.frames)]


def replay_file(path: Path) -> Replay:
    return run_events(read_lines(path))


def replay(path: Path) -> Divergence | None:
    """Re-run a recording; the first outbound frame that differs, or None when all match."""
    found = replay_file(path).divergences()
    return found[0] if found else None


def updated_lines(run: Replay) -> list[str]:
    """The recording with today's frames as the expected ones (inputs and header kept)."""
    lines = []
    if run.header is not None:
        head = {**run.header, "updated": {"engine": engine_version(), "commit": engine_commit(),
                                          "at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")}}
        lines.append(head)
    for step in run.steps:
        lines.append(step.event)
        lines.extend({"k": "out", "to": COMPANION, "frame": frame["frame"]} if is_companion_frame(frame)
                     else {"k": "out", "frame": frame} for frame in step.actual)
    return [json.dumps(event, separators=(",", ":")) + "\n" for event in lines]
