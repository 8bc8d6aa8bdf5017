"""Values and inputs in words, for people reading replay output."""

from __future__ import annotations

import json
from typing import Any

LIMIT = 80


def quote(value: object, limit: int = LIMIT) -> str:
    """'text' for strings, JSON for the rest, shortened to about `limit` characters."""
    if isinstance(value, str):
        text = "'" + value.replace("\n", "\\n") + "'"
    else:
        text = json.dumps(value, separators=(", ", ": "), sort_keys=True)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _args(args: object) -> str:
    if not args:
        return ""
    if isinstance(args, dict):
        return " " + ", ".join(f"{key}={quote(value, 40)}" for key, value in args.items())
    return " " + quote(args, 40)


class Describer:
    """Says what each input of a recording was, remembering which effect an `eid` asked."""

    def __init__(self) -> None:
        self.effects: dict[str, str] = {}  # eid -> method or kind

    def saw(self, frame: dict[str, Any]) -> None:
        if frame.get("t") == "effect":
            req = frame.get("req") or {}
            self.effects[str(frame.get("eid"))] = str(req.get("method") or frame.get("kind") or "?")

    def describe(self, event: dict[str, Any]) -> str:
        kind = event.get("k")
        if kind == "join":
            frame = event.get("frame") or {}
            wallets = ", ".join(str(w.get("name")) for w in frame.get("wallets") or []) or "none"
            return f"join project {frame.get('project')} from {event.get('origin')} (wallets announced: {wallets})"
        if kind == "welcome":
            if not event.get("resumed"):
                return "socket joined (new session)"
            if event.get("last") is None:
                return "socket rejoined after a page reload"
            return f"socket rejoined (had frames up to {event.get('last')})"
        if kind == "in" and event.get("by") == "companion":
            return "phone: " + self._client(event.get("frame") or {})
        if kind == "in":
            return self._client(event.get("frame") or {})
        if kind == "companion":
            return f"phone joined as companion (key {quote(event.get('public_key'), 40)})"
        if kind == "companion_left":
            return "phone's socket left"
        if kind == "msg":
            return self._msg(event.get("msg") or {})
        return str(kind)

    def _client(self, frame: dict[str, Any]) -> str:
        t = frame.get("t")
        if t == "intent":
            node, act = frame.get("node"), frame.get("act")
            if node == "host":
                return f"host {act}{_args(frame.get('args'))}"
            if act == "press":
                return f"press {node}{_args(frame.get('args'))}"
            return f"{act} {node}{_args(frame.get('args'))}"
        if t == "effect_result":
            eid = str(frame.get("eid"))
            what = f"effect_result {eid} for {self.effects.get(eid, 'an unknown effect')}"
            if frame.get("ok"):
                return f"{what}: {quote(frame.get('result'), 60)}"
            error = frame.get("error") or {}
            return f"{what}: error {error.get('code')} {quote(error.get('message', ''), 60)}"
        if t == "wallet_event":
            return f"wallet_event {frame.get('event')}{_args(frame.get('data'))}"
        if t == "resync":
            return f"resync (client at version {frame.get('v')})"
        return str(t)

    def _msg(self, msg: dict[str, Any]) -> str:
        name, data = msg.get("type"), msg.get("data") or {}
        if name == "CallSettled":
            service = str(data.get("purpose", "")).split("|", 1)[0]
            if data.get("ok"):
                return f"{service} call returned {quote(data.get('result'), 60)}"
            return f"{service} call failed: {quote(data.get('error', ''))}"
        if name == "EffectSettled":
            eid = str(data.get("eid"))
            method = self.effects.get(eid, str(data.get("purpose")))
            if data.get("timed_out", data.get("error_message") == "timeout"):  # older recordings: the text
                return f"effect {eid} for {method} timed out"
            return f"effect {eid} for {method} settled"
        fields = ", ".join(f"{k}={quote(v, 30)}" for k, v in data.items()) if isinstance(data, dict) else ""
        return f"{name}({fields})" if fields else f"{name}"
