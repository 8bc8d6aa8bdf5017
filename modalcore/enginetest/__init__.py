"""The harness for testing the engine sans I/O: one `Session` on a fake clock, played by a
scripted client (docs/testers/pytest.md; the JSON sequences `replay` runs call these methods).

    from modalcore import samples
    h = Harness.from_join(samples.join())       # or Harness(options={...}) / Harness(build_model(...))
    h.host("open")                              # a host API call; returns the intent_ack status
    h.press("connect/all-wallets")              # an intent by node id (intent(node, act, args))
    h.advance(500)                              # fire due timers (StartTimer commands), in order
    h.expect(view="AllWallets", text="Dev Wallet")   # AssertionError naming every failed check

    h.connect_wallet()                          # open, press the Dev Wallet, grant the account
    h.settle_call("balances", samples.balances())    # the newest pending balances call returns
    h.answer("clipboard", None)                 # the browser answers the pending effect

The harness plays the client: it numbers its frames, acknowledges every server frame it has
seen, keeps the timers the session asks for and fires them when the fake clock passes their due
time, and records every frame and command it got. Nothing here sleeps or touches the network.
Results come back in the shapes the services return (`modalcore.samples`).
"""

from __future__ import annotations

from .client import SessionClient, check_tree
from .fakehost import Timer
from .harness import Harness, effect_cmds
from .models import DEFAULT_OPTIONS, DEV_ADDRESS, METAMASK, build_model, connected_accounts, with_history
from .table import HARNESS, HARNESS_TABLE, HarnessStepApplied, table_with

__all__ = [
    "DEFAULT_OPTIONS", "DEV_ADDRESS", "HARNESS", "HARNESS_TABLE", "METAMASK", "Harness", "HarnessStepApplied",
    "SessionClient", "Timer", "build_model", "check_tree", "connected_accounts", "effect_cmds", "table_with",
    "with_history",
]
