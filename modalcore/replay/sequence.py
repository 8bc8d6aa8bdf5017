"""Hand-written sequences: the inputs of a session, one JSON object a line, and what to expect.

    # lines starting with # are comments
    {"join": {"opts": {"networks": ["eip155:31337"]}}}    optional, first: the join frame's fields
    {"host": "open", "args": {"view": "AllWallets"}}      a host API call
    {"press": "connect/all-wallets"}                      an intent by node id ("act" press)
    {"intent": "account/tabs", "act": "select", "args": {"value": "2"}}
    {"effect": "eth_requestAccounts", "result": ["0xf39f…"]}   the browser answers an effect
    {"effect": "eth_requestAccounts", "error": {"code": 4001, "message": "User rejected"}}
    {"call": "balances", "result": {"native": 10, "tokens": {}}}   a service call returns
    {"call": "balances", "error": "HTTP status code: 503"}          … or fails
    {"call": "balances"}                                            … with modalcore.samples
    {"connect": {}}             open, press the Dev Wallet, grant the first Hardhat account
    {"wait": 2600}              the clock moves on; timers that fall due fire
    {"wallet_event": "accountsChanged", "data": ["0x7099…"]}
    {"reload": true}            the page reloads (a new socket without a tree)
    {"resync": 0}
    {"expect": {"view": "Account", "text": "Address copied"}}   see Harness.expect

Sequence numbers, acknowledgements, effect ids and call purposes are filled in by
`modalcore.enginetest.Harness`, which runs each line. An intent that is not acknowledged "ok"
fails the sequence unless the line says the `"status"` it expects.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from io import StringIO
from pathlib import Path
from typing import Any

from .. import samples
from ..engine.record import Recorder
from ..enginetest import Harness
from .expect import CHECKS

START = 1_700_000_000_000  # the fake clock (ms) a sequence starts at
STEP_KEYS = ("join", "host", "press", "intent", "effect", "call", "connect", "wait", "wallet_event",
             "reload", "rejoin", "resync", "expect", "note")
class _Anything:
    """A step field whose value may be anything."""


ANY = _Anything()
# What each step's value is, and the other fields it may carry (with their types).
Kind = type | tuple[type, ...] | _Anything
STEP_VALUES: dict[str, Kind] = {
    "join": (dict, type(None)), "host": str, "press": str, "intent": str, "effect": str,
    "call": str, "connect": (dict, type(None), bool), "wait": int, "wallet_event": str,
    "reload": ANY, "rejoin": (dict, type(None)), "resync": int, "expect": dict, "note": ANY,
}
FIELDS: dict[str, Kind] = {"args": dict, "act": str, "status": str, "after_ms": int,
                          "result": ANY, "error": (dict, str), "data": ANY, "connector": str}


class SequenceError(ValueError):
    """A line that is not a step of a sequence."""


@dataclass
class SequenceResult:
    steps: int = 0
    expectations: int = 0
    failure: tuple[int, str] | None = None  # (line, what failed)
    recording: str = ""  # the session as a recording (JSON lines)
    events: list[tuple[int, dict[str, object]]] = field(default_factory=list)
    source: dict[int, int] = field(default_factory=dict)  # recording line -> sequence line

    def recording_line(self, line: int) -> int:
        """The last recording line written by the steps up to sequence line `line`."""
        written = [rec for rec, seq in self.source.items() if seq <= line]
        return max(written, default=0)


def is_sequence(path: Path) -> bool:
    """A sequence's lines have no `k` (the kind of a recorded event)."""
    for _, step in read_steps(path, strict=False):
        return "k" not in step
    return False


def read_steps(path: Path, *, strict: bool = True) -> Iterator[tuple[int, dict[str, Any]]]:
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            text = line.strip()
            if not text or text.startswith("#") or text.startswith("//"):
                continue
            try:
                step = json.loads(text)
            except json.JSONDecodeError as error:
                raise SequenceError(f"line {number}: not JSON ({error.msg})") from None
            if not isinstance(step, dict):
                raise SequenceError(f"line {number}: not a JSON object")
            if strict:
                check_shape(number, step)
            yield number, step


def _fits(value: object, kind: Kind) -> bool:
    if isinstance(kind, _Anything):
        return True
    if isinstance(value, bool) and kind is int:
        return False
    return isinstance(value, kind)


def check_shape(number: int, step: dict[str, Any]) -> None:
    """SequenceError unless the line is one step with fields of the right types: a malformed
    sequence is refused before anything runs (`replay` exits 2), a step that runs and fails is a
    failure (exit 1)."""
    known = [key for key in step if key in STEP_KEYS]
    if len(known) != 1:
        raise SequenceError(f"line {number}: a step names one of {', '.join(STEP_KEYS)}; "
                            f"got {', '.join(step) or 'nothing'}")
    name = known[0]
    if not _fits(step[name], STEP_VALUES[name]):
        raise SequenceError(f"line {number}: {name!r} has the wrong type ({type(step[name]).__name__})")
    for key, value in step.items():
        if key == name:
            continue
        if key not in FIELDS:
            raise SequenceError(f"line {number}: {name} does not take {key!r}")
        if not _fits(value, FIELDS[key]):
            raise SequenceError(f"line {number}: {key!r} has the wrong type ({type(value).__name__})")
    if name in ("wait", "resync") and step[name] < 0 or step.get("after_ms", 0) < 0:
        raise SequenceError(f"line {number}: a time or sequence number is not negative")
    if name == "effect" and isinstance(step.get("error"), str):
        raise SequenceError(f"line {number}: an effect's error is {{\"code\": …, \"message\": …}}")
    if name == "expect":
        unknown = sorted(set(step["expect"]) - set(CHECKS))
        if unknown:
            raise SequenceError(f"line {number}: unknown expectation {', '.join(unknown)} "
                                f"(known: {', '.join(CHECKS)})")


def run_sequence(path: Path) -> SequenceResult:
    """Run a sequence through the harness; raises SequenceError for a malformed file."""
    steps = list(read_steps(path))
    join_fields = samples.join()
    origin = "http://localhost:8000"
    join_line = 0
    if steps and "join" in steps[0][1]:
        join_line = steps[0][0]
        given = dict(steps[0][1]["join"] or {})
        origin = str(given.pop("origin", origin))
        join_fields.update(given)
        steps = steps[1:]
    for number, step in steps:
        if "join" in step:
            raise SequenceError(f"line {number}: join comes first")
    sink = StringIO()
    result = SequenceResult()
    try:
        h = Harness.from_join(join_fields, origin=origin, now=START, session_id=f"seq-{path.stem}",
                              recorder=Recorder(sink, name=path.stem))
    except ValueError as error:
        raise SequenceError(f"join: {error}") from None
    written = _count(sink)
    result.source = {rec: join_line for rec in range(1, written + 1)}
    for number, step in steps:
        result.steps += 1
        try:
            if "expect" in step:
                result.expectations += 1
            _run(h, step)
        except AssertionError as error:
            result.failure = (number, str(error))
            break
        except (KeyError, TypeError, ValueError) as error:
            result.failure = (number, f"cannot run {json.dumps(step)}: {error}")
            break
        finally:
            now_written = _count(sink)
            result.source.update({rec: number for rec in range(written + 1, now_written + 1)})
            written = now_written
    result.recording = sink.getvalue()
    result.events = [(i, json.loads(line)) for i, line in enumerate(result.recording.splitlines(), 1)]
    return result


def _count(sink: StringIO) -> int:
    return sink.getvalue().count("\n")


def _intent(h: Harness, node: str, act: str, args: dict[str, Any], step: dict[str, Any]) -> None:
    status = h.intent(node, act, args)
    want = step.get("status", "ok")
    if status != want:
        ack = list(h.acks.values())[-1]
        detail = f" ({ack['error']})" if ack.get("error") else ""
        raise AssertionError(f"{act} {node} was acknowledged {status!r}{detail}, expected {want!r}")


def _run(h: Harness, step: dict[str, Any]) -> None:
    after = int(step.get("after_ms", 0))
    if "host" in step:
        _intent(h, "host", str(step["host"]), dict(step.get("args") or {}), step)
    elif "press" in step:
        _intent(h, str(step["press"]), "press", dict(step.get("args") or {}), step)
    elif "intent" in step:
        _intent(h, str(step["intent"]), str(step.get("act", "press")), dict(step.get("args") or {}), step)
    elif "effect" in step:
        error = step.get("error")
        if error is not None:
            h.answer(str(step["effect"]), code=int(error.get("code", -32603)),
                     message=str(error.get("message", "")), after_ms=after)
        else:
            h.answer(str(step["effect"]), step.get("result"), after_ms=after)
    elif "call" in step:
        service = str(step["call"])
        if "error" in step:
            h.settle_call(service, ok=False, error=str(step["error"]), after_ms=after)
        elif "result" in step:
            h.settle_call(service, step["result"], after_ms=after)
        elif service in samples.SAMPLES:
            h.settle_call(service, samples.SAMPLES[service], after_ms=after)
        else:
            raise ValueError(f"no sample result for {service}; give a result or an error")
    elif "connect" in step:
        given = dict(step["connect"] or {}) if isinstance(step["connect"], dict) else {}
        h.connect_wallet(str(given.get("wallet", "Dev Wallet")),
                         address=str(given.get("address", samples.DEV_ADDRESS)),
                         chain_id=str(given.get("chain_id", samples.HARDHAT_CHAIN)), after_ms=after)
    elif "wait" in step:
        h.advance(int(step["wait"]))
    elif "wallet_event" in step:
        connector = str(step.get("connector") or h.wallets[0].uuid)
        h.wallet_event(connector, str(step["wallet_event"]), step.get("data"))
    elif "reload" in step:
        h.rejoin(last=None)
    elif "rejoin" in step:
        h.rejoin(last=(step["rejoin"] or {}).get("last"))
    elif "resync" in step:
        h.resync(int(step["resync"]))
    elif "expect" in step:
        h.expect(**dict(step["expect"]))
