"""Running a session's `Call` against the engine's real services, as the runtime does (a failure
goes back as a message): shared by the real-chain harnesses of send, swap and names."""

from __future__ import annotations

from collections.abc import Callable

import httpx

from modalcore.core.cmds import Call, CallSettled
from modalcore.runtime.services import AnyService
from modalcore.services.table import default_services


async def run_call(cmd: Call,
                   extra: Callable[[httpx.AsyncClient], dict[str, AnyService]] | None = None) -> CallSettled:
    async with httpx.AsyncClient() as http:
        services = {**default_services(http), **(extra(http) if extra is not None else {})}
        try:
            result = await services[cmd.service](**cmd.args)
        except Exception as error:  # as the runtime does: the failure goes back as a message
            return CallSettled(cmd.purpose, False, None, str(error) or type(error).__name__, dict(cmd.context))
    return CallSettled(cmd.purpose, True, result, "", dict(cmd.context))
