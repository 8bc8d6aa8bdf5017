"""Write protocol/vectors/codec.json and diff.json from the Python values below.

Run from anywhere: `.venv/bin/python protocol/vectors/make_vectors.py`. The bytes come from
`modalcore.wire.codec.encode`; every diff case states its expected ops by hand and the script
refuses to write a file when `modalcore.wire.diff` disagrees, so a change in either the engine
or this file shows up as a failure here, not as a silently regenerated vector.

Only JSON-representable values are used (no bin, no floats), so the TypeScript renderer's tests
can read the same files.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))

from modalcore.wire.codec import decode, encode  # noqa: E402
from modalcore.wire.diff import apply, diff  # noqa: E402
from modalcore.wire.nodes import Node  # noqa: E402

# ----- codec vectors: client frames (PROTOCOL.md key order)

ENV = {
    "mobile": False,
    "platform": "mac",
    "telegram": False,
    "safari": False,
    "timezone": "Europe/Paris",
    "origin": "http://localhost:8000",
    "width": 1280,
}
OPTS = {
    "networks": ["eip155:1", "eip155:31337"],
    "defaultNetwork": "eip155:31337",
    "metadata": {"name": "Demo dApp", "description": "A demo", "url": "http://localhost:8000", "icons": []},
    "features": {"swaps": False, "email": False},
    "themeMode": "light",
    "themeVariables": {"--w3m-accent": "#ff0000"},
    "embedded": False,
}
WALLETS = [
    {"uuid": "9b1e4c1e-7d1f-4f57-8a55-6f3b7d8c0a11", "name": "Dev Wallet",
     "icon": "data:image/svg+xml,<svg/>", "rdns": "dev.modal.wallet"},
    {"uuid": "injected", "name": "Browser Wallet", "icon": "", "rdns": ""},
]

# A companion join's key and signature (shapes only: base64url of a P-256 SPKI and of r || s)
COMPANION_KEY = ("MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE" + "A" * 86 + "8")
COMPANION_SIGNATURE = "Q" * 86

CLIENT: list[tuple[str, Any]] = [
    ("client/join", {"t": "join", "s": 1, "a": 0, "project": "demo-project", "env": ENV,
                     "opts": OPTS, "wallets": WALLETS}),
    ("client/join-resume", {"t": "join", "s": 7, "a": 12, "project": "demo-project",
                            "resume": "s1.2.1700000000.ab12", "last": 12,
                            "env": {"mobile": True, "platform": "ios", "telegram": False,
                                    "safari": True, "timezone": "UTC", "origin": "", "width": 390},
                            "opts": {}, "wallets": []}),
    ("client/join-locale", {"t": "join", "s": 1, "a": 0, "project": "demo-project",
                            "env": {**ENV, "languages": ["ar-EG", "ar", "en-US"]},
                            "opts": {**OPTS, "locale": "de-AT"}, "wallets": []}),
    ("client/join-companion", {"t": "join", "s": 1, "a": 0, "project": "demo-project",
                               "companion": {"session": "s1", "public_key": COMPANION_KEY,
                                             "nonce": "1700000000.9f2c", "signature": COMPANION_SIGNATURE},
                               "env": {"mobile": True, "platform": "ios", "telegram": False,
                                       "safari": True, "timezone": "UTC", "origin": "", "width": 390},
                               "opts": {"embedded": True}, "wallets": []}),
    ("client/intent-press", {"t": "intent", "s": 2, "a": 5, "iid": "i1", "node": "connect/all-wallets",
                             "act": "press", "args": {}}),
    ("client/intent-change", {"t": "intent", "s": 3, "a": 6, "iid": "i2", "node": "search",
                              "act": "change", "args": {"value": "meta"}}),
    ("client/intent-host-open", {"t": "intent", "s": 4, "a": 6, "iid": "i3", "node": "host",
                                 "act": "open", "args": {"view": "Account"}}),
    ("client/effect_result-ok", {"t": "effect_result", "s": 5, "a": 7, "eid": "e1", "ok": True,
                                 "result": ["0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266"]}),
    ("client/effect_result-error", {"t": "effect_result", "s": 6, "a": 8, "eid": "e2", "ok": False,
                                    "error": {"code": 4001, "message": "User rejected the request."}}),
    ("client/wallet_event-accounts", {"t": "wallet_event", "s": 7, "a": 8, "connector": "injected",
                                      "event": "accountsChanged",
                                      "data": ["0x70997970c51812dc3a010c7d01b50e0d17dc79c8"]}),
    ("client/wallet_event-chain", {"t": "wallet_event", "s": 8, "a": 8, "connector": "injected",
                                   "event": "chainChanged", "data": "0x7a69"}),
    ("client/wallet_event-disconnect", {"t": "wallet_event", "s": 9, "a": 8, "connector": "injected",
                                        "event": "disconnect", "data": None}),
    ("client/resync", {"t": "resync", "s": 10, "a": 9, "v": 4}),
    ("client/leave", {"t": "leave", "s": 11, "a": 9}),
    ("client/ack", {"t": "ack", "s": 0, "a": 9}),
]

# ----- codec vectors: server frames

TREE = {
    "id": "modal", "t": "modal",
    "p": {"open": True, "closable": True, "shake": 0, "embedded": False, "view": "Connect",
          "loading": False, "on": {"close": "close"}},
    "c": [
        {"id": "header", "t": "header", "p": {"title": "Connect Wallet", "back": False, "close": True},
         "c": [{"id": "header/title", "t": "text", "p": {"text": "Connect Wallet", "variant": "title"}}]},
        {"id": "view/Connect", "t": "view", "p": {"name": "Connect"},
         "c": [{"id": "connect/all-wallets", "t": "wallet-item",
                "p": {"name": "All Wallets", "image": "", "on": {"press": "busy"}}},
               {"id": "back-hint", "t": "button",
                "p": {"text": "Back", "variant": "ghost", "on": {"press": {"back": "view/Connect"}}}},
               {"id": "spacer", "t": "separator"}]},
        {"id": "snackbar", "t": "snackbar", "p": {"message": "", "variant": "success", "open": False}},
    ],
}

# Two views on the stack: the one "back" returns to is held hidden, with its header title.
TREE_BACK = {
    "id": "modal", "t": "modal",
    "p": {"open": True, "closable": True, "shake": 0, "embedded": False, "view": "AllWallets",
          "loading": False, "on": {"close": "close"}},
    "c": [
        {"id": "header", "t": "header", "p": {"title": "All Wallets", "back": True, "close": True},
         "c": [{"id": "header/back", "t": "button",
                "p": {"text": "", "icon": "back", "variant": "ghost", "label": "Back",
                      "on": {"press": {"back": "view/Connect"}}}},
               {"id": "header/title", "t": "text", "p": {"text": "All Wallets", "variant": "title"}},
               {"id": "header/close", "t": "button",
                "p": {"text": "", "icon": "close", "variant": "ghost", "label": "Close", "on": {"press": "close"}}}]},
        {"id": "view/Connect", "t": "view", "p": {"name": "Connect", "hidden": True, "title": "Connect Wallet"},
         "c": [{"id": "connect/all-wallets", "t": "wallet-item",
                "p": {"name": "All Wallets", "image": "", "on": {"press": "busy"}}}]},
        {"id": "view/AllWallets", "t": "view", "p": {"name": "AllWallets"},
         "c": [{"id": "all/skeleton", "t": "skeleton", "p": {"w": 76, "h": 96}}]},
        {"id": "snackbar", "t": "snackbar", "p": {"message": "", "variant": "success", "open": False}},
    ],
}

SERVER: list[tuple[str, Any]] = [
    ("server/joined", {"t": "joined", "s": 0, "a": 1, "session": "s1",
                       "resume": "s1.2.1700000000.ab12", "resumed": False}),
    ("server/snapshot", {"t": "snapshot", "s": 2, "a": 1, "v": 1, "tree": TREE}),
    ("server/snapshot-back-hint", {"t": "snapshot", "s": 2, "a": 1, "v": 1, "tree": TREE_BACK}),
    ("server/patch-all-ops", {"t": "patch", "s": 3, "a": 2, "base": 1, "v": 2, "ops": [
        [1, "spacer"],
        [4, "header/title", {"id": "header/title", "t": "text",
                             "p": {"text": "All Wallets", "variant": "title"}}],
        [3, "modal", {"view": "AllWallets", "shake": None}],
        [0, "view/Connect", 0, {"id": "all/search", "t": "input",
                                "p": {"value": "", "placeholder": "Search wallet", "kind": "search"}}],
        [2, "view/Connect", "back-hint", 1],
    ]}),
    ("server/patch-locale-rtl", {"t": "patch", "s": 3, "a": 2, "base": 1, "v": 2, "ops": [
        [3, "modal", {"lang": "ar", "dir": "rtl"}],
        [3, "header/title", {"text": "\u0631\u0628\u0637 \u0627\u0644\u0645\u062d\u0641\u0638\u0629"}],
    ]}),
    ("server/effect", {"t": "effect", "s": 4, "a": 2, "eid": "e1", "kind": "eip1193", "timeout": 120000,
                       "req": {"connector": "9b1e4c1e-7d1f-4f57-8a55-6f3b7d8c0a11",
                               "method": "eth_requestAccounts", "params": []}}),
    ("server/effect-clipboard", {"t": "effect", "s": 5, "a": 2, "eid": "e2", "kind": "clipboard",
                                 "timeout": 10000, "req": {"text": "0xf39f"}}),
    ("server/effect_cancel", {"t": "effect_cancel", "s": 6, "a": 3, "eid": "e1"}),
    ("server/intent_ack-ok", {"t": "intent_ack", "s": 7, "a": 3, "iid": "i1", "status": "ok"}),
    ("server/intent_ack-invalid", {"t": "intent_ack", "s": 8, "a": 4, "iid": "i2", "status": "invalid",
                                   "error": "no node 'gone' in the current tree"}),
    ("server/host_event-state", {"t": "host_event", "s": 9, "a": 4, "kind": "state", "data": {
        "open": True, "connected": False, "loading": False, "view": "Connect", "selectedNetworkId": "eip155:1",
        "activeChain": "eip155", "initialized": True}}),
    ("server/host_event-account", {"t": "host_event", "s": 10, "a": 4, "kind": "account", "data": {
        "address": "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
        "caipAddress": "eip155:1:0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
        "isConnected": True, "status": "connected", "connector": "injected",
        "walletInfo": {"name": "Dev Wallet", "icon": "", "type": "INJECTED"}}}),
    ("server/host_event-network", {"t": "host_event", "s": 10, "a": 4, "kind": "network", "data": {
        "caipNetworkId": "eip155:1", "chainId": "1", "name": "Ethereum", "image": "", "supported": True,
        "networks": [{"caipNetworkId": "eip155:1", "name": "Ethereum", "image": ""},
                     {"caipNetworkId": "eip155:8453", "name": "Base", "image": ""}]}}),
    ("server/theme", {"t": "theme", "s": 11, "a": 4, "mode": "dark", "vars": {
        "--w3m-modal-width": "360px", "--w3m-font-size-master": "10px",
        "--w3m-border-radius-master": "4px", "--w3m-z-index": "999", "--w3m-color-mix-strength": "0%"}}),
    ("server/error", {"t": "error", "s": 12, "a": 4, "code": "malformed", "message": "a frame is a msgpack map"}),
    ("server/error-unknown_link", {"t": "error", "s": 0, "a": 1, "code": "unknown_link",
                                   "message": "no live session of that id"}),
    ("server/error-foreign_origin", {"t": "error", "s": 0, "a": 1, "code": "foreign_origin",
                                     "message": "a companion joins from the engine's own origin"}),
    ("server/error-not_linked", {"t": "error", "s": 0, "a": 1, "code": "not_linked",
                                 "message": "not the phone linked to this session"}),
    ("server/joined-companion", {"t": "joined", "s": 0, "a": 1, "session": "s1", "resume": "",
                                 "resumed": False}),
    ("server/goodbye", {"t": "goodbye", "s": 13, "a": 4, "code": "expired", "message": "The session ended"}),
    ("server/ack", {"t": "ack", "s": 0, "a": 5}),
]

# ----- codec vectors: scalars and containers at msgpack size boundaries

SCALARS: list[tuple[str, Any]] = [
    ("int/0", 0),
    ("int/127-positive-fixint", 127),
    ("int/128-uint8", 128),
    ("int/255-uint8", 255),
    ("int/256-uint16", 256),
    ("int/65535-uint16", 65535),
    ("int/65536-uint32", 65536),
    ("int/4294967295-uint32", 2**32 - 1),
    ("int/4294967296-uint64", 2**32),
    ("int/2^53-uint64", 2**53),
    ("int/-1-negative-fixint", -1),
    ("int/-32-negative-fixint", -32),
    ("int/-33-int8", -33),
    ("int/-128-int8", -128),
    ("int/-129-int16", -129),
    ("int/-32768-int16", -32768),
    ("int/-32769-int32", -32769),
    ("int/-2147483648-int32", -(2**31)),
    ("int/-2147483649-int64", -(2**31) - 1),
    ("nil", None),
    ("true", True),
    ("false", False),
    ("str/empty", ""),
    ("str/31-fixstr", "a" * 31),
    ("str/32-str8", "b" * 32),
    ("str/255-str8", "c" * 255),
    ("str/256-str16", "d" * 256),
    ("str/unicode", "Ünïcødé ✓ — 日本語 🦊"),
    ("str/emoji-only", "🔒🦊"),
    ("map/empty", {}),
    ("array/empty", []),
    ("array/15-fixarray", list(range(15))),
    ("array/16-array16", list(range(16))),
    ("map/15-fixmap", {f"k{i:02d}": i for i in range(15)}),
    ("map/16-map16", {f"k{i:02d}": i for i in range(16)}),
    ("map/nested", {"a": {"b": {"c": [1, [2, [3]]]}}}),
    ("props-delta/nil-deletes", [3, "header/back", {"hidden": None, "text": "Back", "busy": True}]),
    ("node/no-props-no-children", {"id": "x", "t": "spinner"}),
]


def codec_vectors() -> list[dict[str, Any]]:
    vectors = []
    for name, value in CLIENT + SERVER + SCALARS:
        data = encode(value)
        if decode(data) != value:
            raise SystemExit(f"{name}: does not survive a round trip")
        vectors.append({"name": name, "value": value, "hex": data.hex()})
    return vectors


# ----- diff vectors: each case states its ops by hand


def n(id: str, t: str, p: dict[str, Any] | None = None, c: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    wire: dict[str, Any] = {"id": id, "t": t}
    if p:
        wire["p"] = p
    if c:
        wire["c"] = c
    return wire


def text(id: str, value: str) -> dict[str, Any]:
    return n(id, "text", {"text": value, "variant": "body"})


BASE = n("root", "modal", {"open": True, "view": "Connect"}, [
    n("header", "header", {"title": "Connect", "back": False, "close": True}),
    n("body", "stack", {"dir": "col", "gap": 8}, [text("a", "A"), text("b", "B"), text("c", "C")]),
    n("side", "stack", {"dir": "row", "gap": 4}, [text("d", "D")]),
])


def edit(tree: dict[str, Any], path: list[int], **changes: Any) -> dict[str, Any]:
    """A deep copy of `tree` with the node at `path` (child indexes) updated."""
    copy: dict[str, Any] = json.loads(json.dumps(tree))
    node = copy
    for index in path:
        node = node["c"][index]
    node.update(changes)
    for key in ("p", "c"):
        if key in node and not node[key]:
            del node[key]
    return copy


# Latency hiding (PROTOCOL.md, "Local guesses"): going forward keeps the previous view as a hidden
# sibling named by the back button's hint; going back removes the current view and shows it again.
BACK_HINT = {"back": "view/Connect"}


def _modal(view: str, header: dict[str, Any], views: list[dict[str, Any]]) -> dict[str, Any]:
    return n("modal", "modal", {"open": True, "view": view},
             [header, *views, n("snackbar", "snackbar", {"message": "", "open": False})])


ON_CONNECT = _modal("Connect", n("header", "header", {"title": "Connect Wallet", "back": False}, [
    n("header/start", "icon", {"name": "info", "hidden": True}), text("header/title", "Connect Wallet"),
]), [n("view/Connect", "view", {"name": "Connect"}, [text("c1", "MetaMask")])])
ON_ALL_WALLETS = _modal("AllWallets", n("header", "header", {"title": "All Wallets", "back": True}, [
    n("header/back", "button", {"icon": "back", "on": {"press": BACK_HINT}}), text("header/title", "All Wallets"),
]), [
    n("view/Connect", "view", {"name": "Connect", "hidden": True, "title": "Connect Wallet"}, [text("c1", "MetaMask")]),
    n("view/AllWallets", "view", {"name": "AllWallets"}, [text("w1", "Rainbow")]),
])

DIFFS: list[tuple[str, dict[str, Any], dict[str, Any], list[Any]]] = [
    ("no change", BASE, BASE, []),
    ("props change", BASE, edit(BASE, [0], p={"title": "All Wallets", "back": True, "close": True}),
     [[3, "header", {"title": "All Wallets", "back": True}]]),
    ("prop deletion", BASE, edit(BASE, [1], p={"dir": "col"}),
     [[3, "body", {"gap": None}]]),
    ("prop added and deleted", BASE, edit(BASE, [1], p={"dir": "col", "pad": 16}),
     [[3, "body", {"pad": 16, "gap": None}]]),
    ("insert at the start", BASE, edit(BASE, [1], c=[text("z", "Z"), text("a", "A"), text("b", "B"), text("c", "C")]),
     [[0, "body", 0, text("z", "Z")]]),
    ("insert at the end", BASE, edit(BASE, [1], c=[text("a", "A"), text("b", "B"), text("c", "C"), text("z", "Z")]),
     [[0, "body", 3, text("z", "Z")]]),
    ("insert into a leaf", BASE, edit(BASE, [0], c=[text("t", "Title")]),
     [[0, "header", 0, text("t", "Title")]]),
    ("remove", BASE, edit(BASE, [1], c=[text("a", "A"), text("c", "C")]),
     [[1, "b"]]),
    ("remove the last child", BASE, edit(BASE, [2], c=[]),
     [[1, "d"]]),
    ("remove a subtree", BASE, edit(BASE, [], c=[BASE["c"][0], BASE["c"][2]]),
     [[1, "body"]]),
    ("move (reorder)", BASE, edit(BASE, [1], c=[text("c", "C"), text("a", "A"), text("b", "B")]),
     [[2, "body", "c", 0]]),
    ("move (reverse)", BASE, edit(BASE, [1], c=[text("c", "C"), text("b", "B"), text("a", "A")]),
     [[2, "body", "c", 0], [2, "body", "b", 1]]),
    ("move across parents (remove+insert)", BASE,
     edit(edit(BASE, [1], c=[text("a", "A"), text("c", "C")]), [2], c=[text("d", "D"), text("b", "B")]),
     [[1, "b"], [0, "side", 1, text("b", "B")]]),
    ("move across parents with new props", BASE,
     edit(edit(BASE, [1], c=[text("b", "B"), text("c", "C")]), [2], c=[n("a", "text", {"text": "A!", "variant": "body"}), text("d", "D")]),
     [[1, "a"], [0, "side", 0, n("a", "text", {"text": "A!", "variant": "body"})]]),
    ("replace on type change", BASE,
     edit(BASE, [1], c=[text("a", "A"), n("b", "button", {"text": "B", "variant": "main"}), text("c", "C")]),
     [[4, "b", n("b", "button", {"text": "B", "variant": "main"})]]),
    ("replace on type change keeps position after a move", BASE,
     edit(BASE, [1], c=[n("c", "spinner"), text("a", "A"), text("b", "B")]),
     [[2, "body", "c", 0], [4, "c", n("c", "spinner")]]),
    ("root replace (type change)", BASE, n("root", "view", {"name": "Account"}),
     [[4, "root", n("root", "view", {"name": "Account"})]]),
    ("root replace (id change)", BASE, n("root2", "modal", {"open": False}),
     [[4, "root", n("root2", "modal", {"open": False})]]),
    ("many ops", BASE,
     n("root", "modal", {"open": False, "view": "AllWallets", "shake": 1}, [
         n("side", "stack", {"dir": "row", "gap": 4}, [text("d", "D2"), text("a", "A")]),
         n("header", "header", {"title": "All Wallets", "back": True, "close": True}),
         n("body", "stack", {"dir": "col", "gap": 8}, [text("c", "C"), n("e", "spinner", {"size": 24})]),
         n("snackbar", "snackbar", {"message": "Copied", "variant": "success", "open": True}),
     ]),
     [
         [1, "a"],
         [1, "b"],
         [3, "root", {"open": False, "view": "AllWallets", "shake": 1}],
         [2, "root", "side", 0],
         [3, "d", {"text": "D2"}],
         [0, "side", 1, text("a", "A")],
         [3, "header", {"title": "All Wallets", "back": True}],
         [0, "body", 1, n("e", "spinner", {"size": 24})],
         [0, "root", 3, n("snackbar", "snackbar", {"message": "Copied", "variant": "success", "open": True})],
     ]),
    ("node moves out of a replaced parent", BASE,
     edit(edit(BASE, [1], t="view", p={"name": "X"}, c=[text("a", "A"), text("c", "C")]), [2], c=[text("d", "D"), text("b", "B")]),
     [[1, "b"], [4, "body", n("body", "view", {"name": "X"}, [text("a", "A"), text("c", "C")])],
      [0, "side", 1, text("b", "B")]]),
    ("forward: the previous view stays, hidden, named by the back hint", ON_CONNECT, ON_ALL_WALLETS,
     [[1, "header/start"], [3, "modal", {"view": "AllWallets"}], [3, "header", {"title": "All Wallets", "back": True}],
      [0, "header", 0, n("header/back", "button", {"icon": "back", "on": {"press": BACK_HINT}})],
      [3, "header/title", {"text": "All Wallets"}], [3, "view/Connect", {"hidden": True, "title": "Connect Wallet"}],
      [0, "modal", 2, n("view/AllWallets", "view", {"name": "AllWallets"}, [text("w1", "Rainbow")])]]),
    ("back: the current view goes, the hidden one is shown", ON_ALL_WALLETS, ON_CONNECT,
     [[1, "header/back"], [1, "view/AllWallets"], [3, "modal", {"view": "Connect"}],
      [3, "header", {"title": "Connect Wallet", "back": False}],
      [0, "header", 0, n("header/start", "icon", {"name": "info", "hidden": True})],
      [3, "header/title", {"text": "Connect Wallet"}], [3, "view/Connect", {"hidden": None, "title": None}]]),
    ("parent and child swap", n("r", "stack", None, [n("p", "stack", None, [n("q", "stack")])]),
     n("r", "stack", None, [n("q", "stack", None, [n("p", "stack")])]),
     [[1, "p"], [0, "r", 0, n("q", "stack", None, [n("p", "stack")])]]),
]


def diff_vectors() -> list[dict[str, Any]]:
    vectors = []
    for name, a, b, ops in DIFFS:
        got = diff(Node.from_wire(a), Node.from_wire(b))
        if got != ops:
            raise SystemExit(f"diff case {name!r}: engine gives {got}, the vector says {ops}")
        if apply(a, ops) != b:
            raise SystemExit(f"diff case {name!r}: applying the ops does not give b")
        vectors.append({"name": name, "a": a, "b": b, "ops": ops})
    return vectors


def write(path: Path, value: Any) -> None:
    path.write_text(json.dumps(value, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def main() -> None:
    write(HERE / "codec.json", codec_vectors())
    write(HERE / "diff.json", diff_vectors())
    print(f"wrote {HERE / 'codec.json'} and {HERE / 'diff.json'}")


if __name__ == "__main__":
    main()
