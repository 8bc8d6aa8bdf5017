"""Hostile client frames for the fuzz test and `make fuzz` (issue 11): valid-looking frames and
mutations of them, from a seeded `random.Random`, plus the reply the protocol promises for each.

`FrameFuzzer(rng).frame(kind)` makes one frame of a kind in `MUTATIONS` (sent on a joined
socket); `first_frame(rng, kind)` one of `FIRST_MUTATIONS` (the first frame on a new socket).
`expected_reply(data)` is the oracle (PROTOCOL.md, "Limits", "Bounds" and "Intents"): an `error`
with a code, an `intent_ack` for an iid, maybe `error over_limit` for a wallet event, or nothing
required. `observe(frame)` feeds the server's frames back so later intents can name real nodes and
effect results real effect ids. The oracle decides "malformed or not" with the engine's own
`parse_client_frame` (tests/wire and the wallet-event tests check their rules):
the fuzz checks that the socket keeps its promise for each frame.

Resume tokens of any text (non-ASCII MACs included) and theme variables up to past their total
bound are in: both were fixed on the issue-11 server branch and are checked here since.
"""

from __future__ import annotations

import random
import string
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Final

from modalcore.wire.codec import MAX_FRAME_BYTES, encode
from modalcore.wire.frames import FrameError, Intent, Join, WalletEvent, parse_client_frame

MUTATIONS: Final = (
    "valid_intent", "host_intent", "unknown_node", "replayed_iid", "truncated", "wrong_type",
    "huge_int", "deep", "unknown_type", "random_bytes", "text", "join_again", "missing_field",
    "extra_field", "effect_result", "wallet_event", "resync", "ack", "random_value", "binary",
)
# Drawn only when asked for: three frames over 64 KiB close the socket (1009), a burst of BURST
# intents mostly tests the rate limit, and `leave` ends the session (close 1000).
RARE_MUTATIONS: Final = ("too_large", "burst", "leave")
FIRST_MUTATIONS: Final = (
    "join_odd_opts", "join_garbage_opts", "join_garbage_env", "join_garbage_wallets", "join_garbage_resume",
    "first_not_join", "truncated_join", "join_valid",
)
HUGE_INTS: Final = (2**64 - 1, 2**63, -(2**63), 2**53 + 1, -(2**53) - 1, 2**32, -1)
BURST: Final = 35  # intents in one go: past the bucket of 30, so some are rate_limited
# The wallet every fuzz join announces, so that presses on it start real connect flows.
FUZZ_WALLET: Final = {"uuid": "fuzz-wallet", "name": "Fuzz Wallet", "icon": "", "rdns": "com.fuzz"}
ADDRESS: Final = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266"
# Effect results a wallet could plausibly give (accounts, chain ids, hashes, signatures, null).
PLAUSIBLE_RESULTS: Final[tuple[Any, ...]] = (
    [ADDRESS], [ADDRESS, "0x" + "ab" * 20], [], ["0x12"], [7], "0x1", "0x7a69", "0x0",
    "0x" + "ff" * 32, "0x" + "11" * 65, None, True, {"accounts": [ADDRESS]}, "0x" + "f" * 200,
)
ACTIONS: Final = ("press", "change", "submit", "select", "toggle", "more", "close")
HOST_ACTIONS: Final = ("open", "close", "switch_network", "disconnect", "set_theme_mode",
                       "set_theme_variables", "rpc")
RPC_METHODS: Final = ("eth_chainId", "eth_accounts", "personal_sign", "eth_sendTransaction", "eth_sign",
                      "wallet_switchEthereumChain", "x" * 65, "")
VIEWS: Final = ("Connect", "Account", "Networks", "AllWallets", "WhatIsAWallet", "WalletSend",
                "SIWXSignMessage", "Nope", "")
# Where each client frame holds values of any shape.
_FREE_FIELD: Final = {"intent": "args", "effect_result": "result", "wallet_event": "data", "join": "opts"}
ODD_NETWORKS: Final = (
    "eip155:1", "eip155:137", "eip155:31337", "eip155:0", "eip155:-1", "eip155:0x1", "eip155:01",
    "eip155:99999999999999999999999999", "eip155:", "eip155", "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp",
    "bip122:000000000019d6689c085ae165831e93", "cosmos:x", ":", "", "eip155:1:2",
)
WALLET_EVENTS: Final = ("accountsChanged", "chainChanged", "disconnect", "announce")
OPTION_KEYS: Final = (
    "networks", "defaultNetwork", "metadata", "features", "themeMode", "themeVariables", "siwx",
    "embedded", "disableAppend", "featuredWalletIds", "includeWalletIds", "excludeWalletIds",
    "customWallets", "manualWCControl", "allowUnsupportedChain", "enableNetworkSwitch",
    "universalProvider", "debug",
)
# PROTOCOL.md "Close codes" (1000 is also the fuzzer's own close); never 1011 or 1006 (abnormal).
ALLOWED_CLOSE_CODES: Final = frozenset({1000, 1001, 1008, 1009, 4001, 4002, 4003, 4004, 4005})
SERVER_FRAME_TYPES: Final = frozenset({
    "joined", "snapshot", "patch", "effect", "effect_cancel", "intent_ack", "host_event",
    "theme", "error", "goodbye", "ack",
})
ERROR_CODES: Final = frozenset({"malformed", "too_large", "not_joined", "bad_origin", "no_project",
                                "over_limit", "too_many_sessions"})
ACK_STATUSES: Final = frozenset({"ok", "stale", "invalid", "rate_limited"})


@dataclass(frozen=True)
class Expect:
    """What the server owes a frame: `error` (with `code`), `ack` (for `iid`), `may_refuse` (a
    well-formed wallet event: applied, or `error over_limit` past a session total), or `none` (no
    reply required: an `ack`, an effect result nobody waits for, a `resync`, which gets a
    snapshot unless the one of the current tree version is already on its way)."""

    kind: str
    code: str = ""
    iid: str = ""


def expected_reply(data: bytes | str) -> Expect:
    """The reply PROTOCOL.md promises for one frame on a joined socket."""
    if isinstance(data, str):
        return Expect("error", "malformed")
    if len(data) > MAX_FRAME_BYTES:
        return Expect("error", "too_large")
    try:
        frame = parse_client_frame(data)
    except FrameError as error:
        return Expect("error", error.code)
    if isinstance(frame, Join):
        return Expect("error", "malformed")
    if isinstance(frame, Intent):
        return Expect("ack", iid=frame.iid)
    if isinstance(frame, WalletEvent):  # its data was checked by parse_client_frame
        return Expect("may_refuse", "over_limit")
    return Expect("none")


# ----- values of every msgpack shape
def random_text(rng: random.Random, limit: int = 24) -> str:
    alphabet = rng.choice((string.ascii_letters + string.digits, string.printable,
                           "aé漢\u0000\u202e\U0001f600\ud7ff\ufffd", ":/._-0x"))
    return "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, limit)))


def random_value(rng: random.Random, depth: int = 3) -> Any:
    roll = rng.randrange(10 if depth > 0 else 7)
    if roll == 0:
        return None
    if roll == 1:
        return rng.random() < 0.5
    if roll == 2:
        return rng.choice((0, 1, -1, 255, 65_536, *HUGE_INTS))
    if roll == 3:
        return rng.choice((0.5, -0.0, 1e308, float("inf"), float("nan")))
    if roll in (4, 5):
        return random_text(rng)
    if roll == 6:
        return rng.randbytes(rng.randrange(0, 16))
    if roll in (7, 8):
        return [random_value(rng, depth - 1) for _ in range(rng.randrange(0, 4))]
    return {random_text(rng, 8): random_value(rng, depth - 1) for _ in range(rng.randrange(0, 4))}


def nested(rng: random.Random, depth: int) -> Any:
    value: Any = random_value(rng, 0)
    for _ in range(depth):
        value = [value] if rng.random() < 0.5 else {"k": value}
    return value


def deep_bytes(depth: int) -> bytes:
    """A msgpack array nested `depth` deep (msgpack-python refuses to pack past 1023)."""
    return b"\x91" * depth + b"\xc0"


def pack(value: Any) -> bytes:
    try:
        return encode(value)
    except (ValueError, OverflowError, TypeError):
        return b"\xc1"  # never used by msgpack: malformed


# ----- frames
class FrameFuzzer:
    """Frames for one joined socket. Sequence numbers count up like a client's would."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.seq = 1  # the join was 1
        self.last = 0
        self.nodes: dict[str, tuple[str, ...]] = {}
        self.eids: list[str] = []
        self.iids: list[str] = []
        self._iid = 0

    # feedback from the server
    def observe(self, frame: dict[str, Any]) -> None:
        seq = frame.get("s")
        if isinstance(seq, int) and seq > self.last:
            self.last = seq
        kind = frame.get("t")
        if kind == "snapshot":
            self.nodes = {}
            self._walk(frame.get("tree"))
        elif kind == "patch":
            for op in frame.get("ops") or ():
                if isinstance(op, list) and op and op[0] in (0, 4):
                    self._walk(op[-1])
        elif kind == "effect" and isinstance(frame.get("eid"), str):
            self.eids = [*self.eids[-15:], frame["eid"]]

    def _walk(self, node: Any) -> None:
        if not isinstance(node, dict):
            return
        props = node.get("p") or {}
        actions = tuple(props.get("on") or ()) if isinstance(props, dict) else ()
        if isinstance(node.get("id"), str) and actions:
            self.nodes[node["id"]] = actions
        for child in node.get("c") or ():
            self._walk(child)

    # building blocks
    def _envelope(self, kind: str) -> dict[str, Any]:
        self.seq += 1
        return {"t": kind, "s": self.seq, "a": self.last}

    def _new_iid(self) -> str:
        self._iid += 1
        iid = f"f{self._iid}"
        self.iids.append(iid)
        return iid

    def _args(self, act: str) -> dict[str, Any]:
        rng = self.rng
        if act in ("change", "submit", "select"):
            return {"value": rng.choice(("", "0x", "1", "metamask", "eip155:1", random_text(rng)))}
        if act == "toggle":
            return {"checked": rng.random() < 0.5}
        if act == "open":
            return {"view": rng.choice(VIEWS)} if rng.random() < 0.7 else {}
        if act == "switch_network":
            return {"network": rng.choice(("eip155:1", "eip155:31337", "eip155:0", "solana:x",
                                           random_text(rng)))}
        if act == "set_theme_mode":
            return {"mode": rng.choice(("light", "dark"))}
        if act == "rpc":  # the host provider's request: past each bound now and then
            return {"id": random_text(rng, rng.choice((1, 8, 65))), "method": rng.choice(RPC_METHODS),
                    "params": [random_text(rng, 8) for _ in range(rng.choice((0, 1, 2, 9)))]}
        if act == "set_theme_variables":
            count = rng.choice((0, 1, 4, 20, 33, 64))  # past the per-call and per-session bound
            return {"variables": {f"--w3m-{random_text(rng, 6)}": random_text(rng, 12)
                                  for _ in range(count)}}
        return {}

    def intent(self, node: str, act: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
        return {**self._envelope("intent"), "iid": self._new_iid(), "node": node, "act": act,
                "args": self._args(act) if args is None else args}

    def valid_frame(self) -> dict[str, Any]:
        """A frame of a random type, well formed."""
        rng = self.rng
        kind = rng.choice(("intent", "intent", "host", "effect_result", "wallet_event",
                           "resync", "ack"))
        if kind == "intent" and self.nodes:
            node = rng.choice(sorted(self.nodes))
            return self.intent(node, rng.choice(self.nodes[node]))
        if kind in ("intent", "host"):
            return self.intent("host", rng.choice(HOST_ACTIONS))
        if kind == "effect_result":
            eid = rng.choice(self.eids) if self.eids and rng.random() < 0.6 else random_text(rng) or "e"
            frame = {**self._envelope("effect_result"), "eid": eid, "ok": rng.random() < 0.6}
            if frame["ok"]:
                frame["result"] = rng.choice(PLAUSIBLE_RESULTS) if rng.random() < 0.6 else random_value(rng)
            else:
                frame["error"] = {"code": rng.choice((4001, -32603, 4100)), "message": random_text(rng)}
            return frame
        if kind == "wallet_event":
            event = rng.choice(WALLET_EVENTS)
            data: Any = {
                "accountsChanged": [rng.choice((ADDRESS, "0x" + "ab" * 20, random_text(rng)))],
                "chainChanged": rng.choice(("0x1", "0x7a69", 31337, random_text(rng))),
                "disconnect": None,
                "announce": {"uuid": random_text(rng, 12) or "u", "name": random_text(rng),
                             "icon": "", "rdns": random_text(rng)},
            }[event]
            connector = rng.choice(("injected", FUZZ_WALLET["uuid"], FUZZ_WALLET["uuid"], "x"))
            return {**self._envelope("wallet_event"), "connector": connector,
                    "event": event, "data": data if rng.random() < 0.8 else random_value(rng)}
        if kind == "resync":
            return {**self._envelope("resync"), "v": rng.choice((0, 1, 2, 2**53))}
        return {"t": "ack", "s": 0, "a": self.last}

    def frame(self, kind: str) -> bytes | str:
        rng = self.rng
        if kind == "valid_intent":
            if self.nodes:
                node = rng.choice(sorted(self.nodes))
                return pack(self.intent(node, rng.choice(self.nodes[node])))
            kind = "host_intent"
        if kind == "host_intent":
            return pack(self.intent("host", rng.choice(HOST_ACTIONS)))
        if kind == "unknown_node":
            node = rng.choice(("nope", "view/Nope", "wallet/" + random_text(rng, 10), "x" * 128))
            return pack(self.intent(node, rng.choice(ACTIONS + HOST_ACTIONS)))
        if kind == "replayed_iid":
            if not self.iids:
                return pack(self.intent("host", "open"))
            frame = self.intent("host", rng.choice(HOST_ACTIONS))
            frame["iid"] = rng.choice(self.iids)
            return pack(frame)
        if kind == "truncated":
            data = pack(self.valid_frame())
            return data[: rng.randrange(0, len(data))]
        if kind == "wrong_type":
            frame = self.valid_frame()
            key = rng.choice(sorted(frame))
            frame[key] = random_value(rng)
            return pack(frame)
        if kind == "huge_int":
            frame = self.valid_frame()
            key = rng.choice([k for k in ("s", "a", "v", "args", "data", "result") if k in frame] or ["s"])
            if key == "args" and isinstance(frame.get("args"), dict):
                frame["args"] = {**frame["args"], rng.choice(("value", "checked", "view")): rng.choice(HUGE_INTS)}
            else:
                frame[key] = rng.choice(HUGE_INTS)
            return pack(frame)
        if kind == "deep":  # nesting in the field that holds free values, past every limit
            depth = rng.choice((8, 31, 32, 33, 200, 1000, 1022, 1023, 1024, 5000))
            frame = self.valid_frame()
            key = _FREE_FIELD.get(frame["t"], "extra")
            frame.pop(key, None)
            body = pack(frame)  # a fixmap (fewer than 16 keys): add the key with a deep value
            value = deep_bytes(depth) if depth >= 1000 else pack(nested(rng, depth))
            if key in ("args", "opts"):
                value = b"\x81" + pack("value") + value
            return bytes([body[0] + 1]) + body[1:] + pack(key) + value
        if kind == "binary":  # msgpack `bin` where free values go (PROTOCOL.md: JSON-like only)
            frame = self.valid_frame()
            key = _FREE_FIELD.get(frame["t"], "extra")
            blob = rng.choice((b"", b"ok", b"\xff\xfe", rng.randbytes(8)))
            frame[key] = rng.choice((blob, [blob], {"k": blob}, {"value": blob}))
            return pack(frame)
        if kind == "unknown_type":
            frame = self.valid_frame()
            frame["t"] = rng.choice(("nope", "JOIN", "snapshot", "goodbye", "", 7, None, b"intent",
                                     random_text(rng)))
            return pack(frame)
        if kind == "random_bytes":
            return rng.randbytes(rng.randrange(1, 200))
        if kind == "text":
            return rng.choice(("", "{}", "intent", random_text(rng)))
        if kind == "join_again":
            return pack(join_frame(rng, seq=self._envelope("join")["s"]))
        if kind == "missing_field":
            frame = self.valid_frame()
            frame.pop(rng.choice(sorted(frame)))
            return pack(frame)
        if kind == "extra_field":
            frame = self.valid_frame()
            frame[rng.choice(("x", "T", "session", "", "s2"))] = random_value(rng)
            return pack(frame)
        if kind in ("effect_result", "wallet_event", "resync", "ack"):
            frame = self.valid_frame()
            while frame["t"] != kind:
                frame = self.valid_frame()
            return pack(frame)
        if kind == "random_value":
            return pack(random_value(rng, 4))
        if kind == "leave":
            return pack(self._envelope("leave"))
        if kind == "too_large":
            return pack({**self._envelope("intent"), "iid": "big", "node": "host", "act": "open",
                         "args": {"view": "x" * (MAX_FRAME_BYTES + rng.randrange(1, 1000))}})
        raise ValueError(f"unknown mutation {kind!r}")

    def frames_of(self, kind: str) -> list[bytes | str]:
        """One frame of `kind`, or BURST host intents in a row for "burst"."""
        if kind == "burst":
            return [self.frame("host_intent") for _ in range(BURST)]
        return [self.frame(kind)]

    def frames(self, count: int, kinds: Sequence[str] = MUTATIONS) -> Iterator[tuple[str, bytes | str]]:
        """About `count` frames, of kinds drawn from `kinds` (a burst counts as one draw)."""
        for _ in range(count):
            kind = self.rng.choice(kinds)
            for data in self.frames_of(kind):
                yield kind, data

    def planned(self, kinds: Sequence[str]) -> Iterator[tuple[str, bytes | str]]:
        """The frames of exactly these kinds, in order."""
        for kind in kinds:
            for data in self.frames_of(kind):
                yield kind, data


def join_frame(rng: random.Random, project: str = "test", seq: int = 1) -> dict[str, Any]:
    return {
        "t": "join", "s": seq, "a": 0, "project": project,
        "env": {"platform": "linux", "timezone": "UTC", "width": 1280},
        "opts": {"networks": ["eip155:1", "eip155:137"], "metadata": {"name": "Fuzz dApp"}},
        "wallets": [FUZZ_WALLET],
    }


def first_frame(rng: random.Random, kind: str, project: str = "test") -> bytes | str:
    """The first frame on a new socket: a join with garbage somewhere, or not a join."""
    frame = join_frame(rng, project)
    if kind == "join_valid":
        return pack(frame)
    if kind == "join_odd_opts":  # well-typed options with edge values, to get past validation
        odd: dict[str, Any] = {
            "networks": rng.sample(ODD_NETWORKS, rng.randrange(0, 6)),
            "defaultNetwork": rng.choice(ODD_NETWORKS),
            "metadata": {"name": random_text(rng, 128), "url": random_text(rng), "icons": [random_text(rng)]},
            "themeMode": rng.choice(("light", "dark")),
            "themeVariables": {f"--w3m-{random_text(rng, 8)}": rng.choice((random_text(rng), 0, -1, 2**31))
                               for _ in range(rng.randrange(0, 8))},
            "siwx": {"required": rng.random() < 0.5, "statement": random_text(rng, 64),
                     "resources": [random_text(rng) for _ in range(rng.randrange(0, 3))],
                     "expirationSeconds": rng.choice((60, 86400, 30 * 86400))},
            "featuredWalletIds": [random_text(rng, 12) for _ in range(rng.randrange(0, 4))],
            "includeWalletIds": rng.choice(([], ["metamask"], [random_text(rng, 12)])),
            "excludeWalletIds": rng.choice(([], ["metamask", "rainbow"], [random_text(rng, 12)])),
            "customWallets": [{"id": random_text(rng, 12) or "c", "name": random_text(rng, 20),
                               "image_url": random_text(rng), "mobile_link": rng.choice((None, random_text(rng))),
                               "desktop_link": rng.choice((None, "https://x.example/", random_text(rng))),
                               "webapp_link": rng.choice((None, "javascript:alert(1)", random_text(rng)))}
                              for _ in range(rng.randrange(0, 3))],
            "features": {"email": rng.random() < 0.5, "socials": [random_text(rng, 8)],
                         "connectMethodsOrder": rng.choice((["wallet"], ["email", "social", "wallet"], []))},
        }
        for flag in ("embedded", "disableAppend", "manualWCControl", "allowUnsupportedChain",
                     "enableNetworkSwitch", "universalProvider", "debug"):
            odd[flag] = rng.random() < 0.5
        frame["opts"] = {key: odd[key] for key in rng.sample(sorted(odd), rng.randrange(1, len(odd)))}
        return pack(frame)
    if kind == "join_garbage_opts":
        opts: dict[str, Any] = dict(frame["opts"])
        for key in rng.sample(OPTION_KEYS, rng.randrange(1, 5)):
            opts[key] = random_value(rng) if rng.random() < 0.7 else nested(rng, rng.randrange(1, 300))
        frame["opts"] = opts if rng.random() < 0.9 else random_value(rng)
        return pack(frame)
    if kind == "join_garbage_env":
        frame["env"] = {key: random_value(rng) for key in
                        rng.sample(("mobile", "platform", "telegram", "safari", "timezone", "origin", "width", "x"), 3)}
        return pack(frame)
    if kind == "join_garbage_wallets":
        frame["wallets"] = [rng.choice(({"uuid": random_text(rng) or "u", "name": random_text(rng)},
                                        random_value(rng))) for _ in range(rng.randrange(0, 70))]
        return pack(frame)
    if kind == "join_garbage_resume":
        alphabet = string.ascii_letters + string.digits + ".-_é漢\u0000\U0001f600"
        garbage = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 120)))
        session = "".join(rng.choice(string.ascii_letters + "-_") for _ in range(22))
        expiry = str(rng.choice((0, 1, 2**31, 10**12 - 1, 10**13)))
        mac = rng.choice(("", "0" * 64, rng.randbytes(32).hex(), garbage))
        frame["resume"] = rng.choice((garbage, f"{session}.{expiry}.{mac}", f"{session}..{mac}"))
        if rng.random() < 0.5:
            frame["last"] = rng.choice((0, 1, 5, 2**53))
        return pack(frame)
    if kind == "first_not_join":
        return FrameFuzzer(rng).frame(rng.choice(MUTATIONS))
    if kind == "truncated_join":
        data = pack(frame)
        return data[: rng.randrange(0, len(data))]
    raise ValueError(f"unknown first-frame mutation {kind!r}")

