"""Issue 28 item 9: a message approval says what it is. The modal's header and the approval
frame's heading read "Sign message" / "Sign typed data" (a transaction stays "Approve
Transaction"); a personal_sign message is shown as its UTF-8 text when it is readable text, its
hex otherwise; typed data as named fields (domain name, primary type, each message field), not
raw JSON; and the frame's text wraps between words, breaking only a token longer than the line."""

from __future__ import annotations

import json

from modalcore.embedded.decode import MAX_FIELDS, describe
from modalcore_dev.devmail import LocalSmtpServer
from modalcore.embedded.service import EmbeddedWallet
from modalcore.server.approval import _page_body
from modalcore.server.approval_theme import style
from modalcore.slices.theme import ThemeState

from .world import EmailWorld

EMAIL = "dora@example.com"
MAIL = {"types": {"EIP712Domain": [{"name": "name", "type": "string"}, {"name": "version", "type": "string"},
                                   {"name": "chainId", "type": "uint256"}],
                  "Person": [{"name": "name", "type": "string"}, {"name": "wallet", "type": "address"}],
                  "Mail": [{"name": "from", "type": "Person"}, {"name": "contents", "type": "string"}]},
        "primaryType": "Mail", "domain": {"name": "Ether Mail", "version": "1", "chainId": 31337},
        "message": {"from": {"name": "Cow", "wallet": "0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826"},
                    "contents": "Hello, Bob!"}}


def _asked(wallet: EmbeddedWallet, smtp: LocalSmtpServer, method: str, params: list[object]) -> tuple[EmailWorld, str]:
    world = EmailWorld(wallet, smtp)
    address = world.sign_in(EMAIL)
    world.ask_wallet(method, [p if p != "ADDRESS" else address for p in params])
    request = world.h.model.embedded.request
    assert request is not None and world.h.view == "ApproveTransaction"
    return world, _page_body(world.h.model, request.eid)


def test_rule_a_personal_sign_is_titled_sign_message_and_shows_its_text(
        wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    world, page = _asked(wallet, smtp, "personal_sign", ["0x" + "Hello, Bob!".encode().hex(), "ADDRESS"])
    assert world.h.node("header/title").p["text"] == "Sign message"
    assert "<h1>Sign message</h1>" in page
    assert "<dt>Message</dt><dd>Hello, Bob!</dd>" in page
    assert "Approve Transaction" not in page


def test_rule_typed_data_is_titled_sign_typed_data_and_shown_as_fields(
        wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    world, page = _asked(wallet, smtp, "eth_signTypedData_v4", ["ADDRESS", json.dumps(MAIL)])
    assert world.h.node("header/title").p["text"] == "Sign typed data"
    assert "<h1>Sign typed data</h1>" in page
    for label, text in (("Domain", "Ether Mail"), ("Version", "1"), ("Chain ID", "31337"),
                        ("Primary type", "Mail"), ("from.name", "Cow"),
                        ("from.wallet", "0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826"),
                        ("contents", "Hello, Bob!")):
        assert f"<dt>{label}</dt><dd>{text}</dd>" in page, label
    assert "{" not in page.split("<dl>")[1].split("</dl>")[0]  # no raw JSON


def test_a_transaction_keeps_approve_transaction(wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    world, page = _asked(wallet, smtp, "eth_sendTransaction",
                         [{"to": "0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65", "value": "0x1"}])
    assert world.h.node("header/title").p["text"] == "Approve Transaction"
    assert "<h1>Send transaction</h1>" in page


def test_a_message_that_is_not_readable_text_is_shown_as_hex() -> None:
    for raw in ("0xdeadbeef", "0x00010203", "0x" + "hi\x07".encode().hex()):
        assert describe("personal_sign", json.dumps([raw, "0x0"]), None)[-1] == ("Message", raw)
    text = "line one\nline two"
    assert describe("personal_sign", json.dumps(["0x" + text.encode().hex(), "0x0"]), None)[-1] == ("Message", text)


def test_typed_data_fields_are_bounded_and_nested_lists_named_by_index() -> None:
    many = {**MAIL, "message": {f"f{i}": i for i in range(MAX_FIELDS + 5)}}
    rows = describe("eth_signTypedData_v4", json.dumps(["0x0", many]), None)
    assert rows[-1] == ("More fields", "5") and len(rows) < MAX_FIELDS + 8
    listed = {**MAIL, "message": {"to": [{"name": "Bob"}, {"name": "Alice"}], "ok": True}}
    rows = describe("eth_signTypedData_v4", json.dumps(["0x0", listed]), None)
    assert ("to[0].name", "Bob") in rows and ("to[1].name", "Alice") in rows and ("ok", "true") in rows


def test_rule_the_frame_never_breaks_a_word_mid_word() -> None:
    css = style(ThemeState())
    assert "break-all" not in css and "overflow-wrap:anywhere" not in css
    assert "overflow-wrap:break-word" in css.split("dd{")[1].split("}")[0]
