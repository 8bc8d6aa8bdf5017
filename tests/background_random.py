"""Keep the servers a test run leaves in background threads off the global `random`.

Hypothesis compares the global `random` state before and after each draw and reports any change
as a strategy using `random` (HypothesisDeprecationWarning "Do not use the random module inside
strategies", an error in this suite: pyproject's filterwarnings). The strategies never do; the
change came from another thread: the e2e session's engine runs under uvicorn in a thread for the
whole run, and its WalletConnect relay client (websockets) and uvicorn's websocket protocol send
keepalive pings every 20 s whose 4-byte payload is `random.getrandbits(32)` on the global
generator, in the middle of whatever test runs then (tests/wire's property tests among them).

`isolate()` gives those libraries a `random.Random` of their own: the payloads stay random, the
global state is the test's alone. tests/test_background_random.py checks the rule on a real
uvicorn server and websockets client that ping each other.
"""

from __future__ import annotations

import importlib
import random

# The modules of the websocket implementations the engine and the tests run (websockets' asyncio
# client and server, uvicorn's websockets-sansio protocol, websockets' sync
# client) that draw from the global `random` while a connection lives: keepalive ping payloads,
# reconnect back-off. websockets.legacy and uvicorn's wsproto protocol are not used here.
MODULES = (
    "websockets.asyncio.connection",
    "websockets.sync.connection",
    "websockets.client",
    "uvicorn.protocols.websockets.websockets_sansio_impl",
)


def isolate() -> None:
    for name in MODULES:
        module = importlib.import_module(name)
        if getattr(module, "random", None) is random:
            setattr(module, "random", random.Random())
