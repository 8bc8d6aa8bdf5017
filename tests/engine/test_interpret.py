"""One command interpreter (issue 30): the runtime and the test harness run a session's commands
through `engine/interpret.interpret`, which hands each to its host by type, in order."""

from __future__ import annotations

from typing import Any

from dataclasses import dataclass

from modalcore.core.cmds import Call, CancelTimer, Effect, EffectReply, Reply, ServiceRef, StartTimer, Track
from modalcore.core.msg import Msg
from modalcore.core.services import NoArgs
from modalcore.engine.interpret import RuntimeCmd, interpret
from modalcore.enginetest.fakehost import FakeCommandHost
from modalcore.runtime import commands as runtime_commands
from modalcore.runtime.commands import Commands


@dataclass(frozen=True)
class Ticked(Msg):
    pass


class Host:
    def __init__(self) -> None:
        self.seen: list[tuple[str, object]] = []

    def start_timer(self, cmd: StartTimer, now: int) -> None:
        self.seen.append(("start_timer", (cmd.key, now)))

    def cancel_timer(self, cmd: CancelTimer) -> None:
        self.seen.append(("cancel_timer", cmd.key))

    def call(self, cmd: Call[Any]) -> None:
        self.seen.append(("call", cmd.service.name))

    def run_effect(self, cmd: Effect) -> None:
        self.seen.append(("run_effect", cmd.eid))

    def track(self, cmd: Track, now: int, index: int) -> None:
        self.seen.append(("track", (cmd.event, index)))


def test_each_command_goes_to_its_hosts_method_in_order() -> None:
    cmds: list[RuntimeCmd] = [
        StartTimer("t", 10, Ticked()), Call(ServiceRef("clock", NoArgs, int), NoArgs(), Reply),
        Effect("e1", "walletconnect", {}, EffectReply), CancelTimer("t"), Track("MODAL_OPEN"),
    ]
    host = Host()
    interpret(cmds, host, 5)
    assert host.seen == [("start_timer", ("t", 5)), ("call", "clock"), ("run_effect", "e1"),
                         ("cancel_timer", "t"), ("track", ("MODAL_OPEN", 4))]


def test_the_runtime_and_the_harness_are_hosts_of_the_same_interpreter() -> None:
    """Both (the harness through its `FakeCommandHost`) implement every method `interpret` calls
    (mypy checks the Protocol at each call site); here, that neither keeps a table of its own."""
    for host in (Commands, FakeCommandHost):
        assert all(callable(getattr(host, name, None))
                   for name in ("start_timer", "cancel_timer", "call", "run_effect", "track"))
    assert not hasattr(runtime_commands, "_INTERPRETER")
