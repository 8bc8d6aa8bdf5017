"""Client frames at the socket edge: good frames become models, bad ones a typed FrameError."""

from __future__ import annotations

from typing import Any

import pytest

from modalcore.wire.codec import MAX_FRAME_BYTES, encode
from modalcore.wire.frames import (
    Ack,
    EffectResult,
    FrameError,
    Intent,
    Join,
    NoArgs,
    OpenArgs,
    Resync,
    TextArgs,
    ThemeModeArgs,
    ToggleArgs,
    WalletEvent,
    parse_client_frame,
    validate_args,
)

JOIN: dict[str, Any] = {
    "t": "join", "s": 1, "a": 0, "project": "p1",
    "env": {"mobile": True, "platform": "ios", "telegram": False, "safari": True,
            "timezone": "UTC", "origin": "http://localhost", "width": 390},
    "opts": {"networks": ["eip155:1"]},
    "wallets": [{"uuid": "u1", "name": "Dev", "icon": "", "rdns": "dev.wallet"}],
}
INTENT: dict[str, Any] = {"t": "intent", "s": 2, "a": 3, "iid": "i1", "node": "n", "act": "press", "args": {}}


def test_join_parses_with_env_opts_and_wallets() -> None:
    frame = parse_client_frame(encode(JOIN))
    assert isinstance(frame, Join)
    assert frame.env.mobile and frame.env.platform == "ios" and frame.env.width == 390
    assert frame.opts == {"networks": ["eip155:1"]}
    assert frame.wallets[0].rdns == "dev.wallet"
    assert frame.resume is None and frame.last is None


def test_join_env_defaults_when_left_out() -> None:
    frame = parse_client_frame(encode({"t": "join", "s": 1, "a": 0, "project": "p1"}))
    assert isinstance(frame, Join)
    assert frame.env.mobile is False and frame.env.platform == "other"
    assert frame.wallets == []


def test_join_with_resume_and_last() -> None:
    frame = parse_client_frame(encode({**JOIN, "resume": "s.1.ab", "last": 12}))
    assert isinstance(frame, Join)
    assert (frame.resume, frame.last) == ("s.1.ab", 12)


def test_intent_parses() -> None:
    frame = parse_client_frame(encode(INTENT))
    assert isinstance(frame, Intent)
    assert (frame.iid, frame.node, frame.act, frame.args, frame.s, frame.a) == ("i1", "n", "press", {}, 2, 3)


def test_effect_result_ok_and_error_parse() -> None:
    ok = parse_client_frame(encode({"t": "effect_result", "s": 3, "a": 1, "eid": "e1", "ok": True,
                                    "result": ["0xabc"]}))
    assert isinstance(ok, EffectResult) and ok.ok and ok.result == ["0xabc"] and ok.error is None
    failed = parse_client_frame(encode({"t": "effect_result", "s": 4, "a": 1, "eid": "e1", "ok": False,
                                        "error": {"code": 4001, "message": "User rejected"}}))
    assert isinstance(failed, EffectResult) and failed.error is not None
    assert (failed.error.code, failed.error.message) == (4001, "User rejected")


@pytest.mark.parametrize("event,data", [
    ("accountsChanged", ["0x1"]), ("chainChanged", "0x1"), ("disconnect", None),
    ("announce", {"uuid": "u", "name": "W", "icon": "", "rdns": ""}),
])
def test_wallet_events_parse(event: str, data: Any) -> None:
    frame = parse_client_frame(encode({"t": "wallet_event", "s": 5, "a": 1, "connector": "injected",
                                       "event": event, "data": data}))
    assert isinstance(frame, WalletEvent) and frame.event == event and frame.data == data


def test_resync_and_ack_parse() -> None:
    assert isinstance(parse_client_frame(encode({"t": "resync", "s": 6, "a": 1, "v": 3})), Resync)
    assert isinstance(parse_client_frame(encode({"t": "ack", "s": 0, "a": 9})), Ack)


def _code(data: bytes) -> str:
    with pytest.raises(FrameError) as caught:
        parse_client_frame(data)
    return caught.value.code


@pytest.mark.parametrize("data", [
    b"",                                   # nothing
    b"\xc1",                               # the never-used msgpack byte
    b"\x82\xa1t",                          # truncated map
    encode({"t": "ack", "s": 0, "a": 0}) + b"\x00",  # trailing bytes
    b"\x81\x01\xa1x",                     # a non-string map key: {1: "x"}
])
def test_bytes_that_are_not_one_msgpack_value_are_malformed(data: bytes) -> None:
    assert _code(data) == "malformed"


@pytest.mark.parametrize("value", [[1, 2], "intent", 7, None])
def test_a_frame_that_is_not_a_map_is_malformed(value: Any) -> None:
    assert _code(encode(value)) == "malformed"


@pytest.mark.parametrize("frame", [
    {"t": "hello", "s": 1, "a": 0},                    # unknown type
    {"s": 1, "a": 0},                                   # no type
    {"t": "ack", "s": 0},                               # no `a`
    {"t": "ack", "s": "1", "a": 0},                     # seq of the wrong type
    {"t": "ack", "s": True, "a": 0},                    # bool is not an int
    {"t": "ack", "s": -1, "a": 0},                      # negative seq
    {"t": "ack", "s": 2**60, "a": 0},                   # seq past 2^53
    {"t": "ack", "s": 0, "a": 0, "extra": 1},           # unknown field
    {**INTENT, "iid": "x" * 65},                        # iid longer than 64
    {**INTENT, "iid": ""},                              # empty iid
    {**INTENT, "node": 5},                              # node of the wrong type
    {**INTENT, "args": [1]},                            # args not a map
    {k: v for k, v in INTENT.items() if k != "act"},   # missing act
    {"t": "effect_result", "s": 1, "a": 0, "eid": "e", "ok": "yes"},
    {"t": "effect_result", "s": 1, "a": 0, "eid": "e", "ok": False, "error": {"code": "4001"}},
    {"t": "wallet_event", "s": 1, "a": 0, "connector": "c", "event": "exploded", "data": None},
    {"t": "resync", "s": 1, "a": 0},                    # no v
    {**JOIN, "env": {"platform": "amiga"}},
    {**JOIN, "wallets": [{"name": "no uuid"}]},
    {**JOIN, "project": 5},
])
def test_frames_with_bad_fields_are_malformed(frame: dict[str, Any]) -> None:
    assert _code(encode(frame)) == "malformed"


def _nested(depth: int) -> Any:
    value: Any = 0
    for level in range(depth):
        value = [value] if level % 2 else {"k": value}
    return value


EFFECT: dict[str, Any] = {"t": "effect_result", "s": 1, "a": 0, "eid": "e", "ok": True}


def test_values_may_nest_32_levels() -> None:
    """PROTOCOL.md "Limits": the frame map is level 1, its `result` level 2 ... 32."""
    frame = parse_client_frame(encode({**EFFECT, "result": _nested(31)}))
    assert isinstance(frame, EffectResult)


@pytest.mark.parametrize("frame", [
    {**EFFECT, "result": _nested(32)},                          # 33 levels
    {**EFFECT, "result": _nested(1000)},                        # what msgpack still decodes
    {"t": "wallet_event", "s": 1, "a": 0, "connector": "c", "event": "announce",
     "data": {"uuid": "u", "name": "n", "x": _nested(40)}},
    {**INTENT, "args": {"value": _nested(40)}},
    {**JOIN, "opts": {"networks": ["eip155:1"], "features": _nested(40)}},
])
def test_values_nested_deeper_than_32_levels_are_malformed(frame: dict[str, Any]) -> None:
    """Issue 11 fuzz: with recording on (`serve --record-dir`), such a frame made the recorder
    raise (a traceback, and the frame went unanswered); now the socket edge refuses it."""
    assert _code(encode(frame)) == "malformed"


@pytest.mark.parametrize("frame", [
    {**EFFECT, "result": b"\xff\xfe"},
    {**EFFECT, "result": ["0x1", {"k": b"ok"}]},
    {"t": "wallet_event", "s": 1, "a": 0, "connector": "c", "event": "announce", "data": b"\x80"},
    {**INTENT, "args": {"value": b"x"}},
    {**EFFECT, "result": {b"key": 1}},
])
def test_binary_values_and_keys_are_malformed(frame: dict[str, Any]) -> None:
    """Issue 11 fuzz: a msgpack `bin` (not UTF-8) in `result`/`data` made the session recorder
    raise UnicodeDecodeError; client frames hold JSON-like values only."""
    assert _code(encode(frame)) == "malformed"


def test_a_frame_over_64_kib_is_too_large() -> None:
    data = encode({**INTENT, "args": {"value": "x" * MAX_FRAME_BYTES}})
    assert len(data) > MAX_FRAME_BYTES
    assert _code(data) == "too_large"


def test_frame_error_carries_code_and_message() -> None:
    with pytest.raises(FrameError) as caught:
        parse_client_frame(encode({"t": "ack", "s": "x", "a": 0}))
    assert caught.value.code == "malformed"
    assert "s" in caught.value.message


@pytest.mark.parametrize("action,args,model", [
    ("press", {}, NoArgs), ("change", {"value": "meta"}, TextArgs), ("submit", {"value": ""}, TextArgs),
    ("toggle", {"checked": True}, ToggleArgs), ("open", {}, OpenArgs), ("open", {"view": "Account"}, OpenArgs),
    ("set_theme_mode", {"mode": "light"}, ThemeModeArgs),
])
def test_intent_args_are_validated_per_action(action: str, args: dict[str, Any], model: type) -> None:
    assert isinstance(validate_args(action, args), model)


@pytest.mark.parametrize("action,args", [
    ("change", {"value": 5}),
    ("change", {"value": "x", "extra": 1}),
    ("change", {"value": "x" * 257}),
    ("change", {}),
    ("select", {"value": "x" * 129}),
    ("toggle", {"checked": "yes"}),
    ("toggle", {"checked": 1}),
    ("press", {"x": 1}),
    ("close", {"force": True}),
    ("open", {"view": 5}),
    ("set_theme_mode", {"mode": "sepia"}),
    ("switch_network", {"network": 1}),
    ("set_theme_variables", {"variables": {"--w3m-accent": ["red"]}}),
    ("explode", {}),
])
def test_intent_args_of_the_wrong_shape_are_invalid(action: str, args: dict[str, Any]) -> None:
    with pytest.raises(FrameError) as caught:
        validate_args(action, args)
    assert caught.value.code == "invalid"


def test_wallet_event_data_is_validated_at_the_socket_edge() -> None:
    """Rule (issue 12 item 4): a wallet event's data is parsed with the other frames, into a typed
    payload; data of the wrong shape never reaches the session."""
    def frame(event: str, data: object) -> bytes:
        return encode({"t": "wallet_event", "s": 1, "a": 0, "connector": "c", "event": event, "data": data})

    accounts = parse_client_frame(frame("accountsChanged", ["0x" + "1" * 40]))
    assert isinstance(accounts, WalletEvent) and accounts.payload == ("0x" + "1" * 40,)
    chain = parse_client_frame(frame("chainChanged", 10))
    assert isinstance(chain, WalletEvent) and chain.payload == "0xa"
    with pytest.raises(FrameError, match="accountsChanged: data is a list of addresses"):
        parse_client_frame(frame("accountsChanged", "0x1"))
    with pytest.raises(FrameError, match="announce: "):
        parse_client_frame(frame("announce", {"name": "no uuid"}))
