"""Issue 11 item 3: every sign-in message the engine writes round-trips through an independent
EIP-4361 implementation (SpruceID's `siwe`, run from its own venv): it parses, rebuilds byte for
byte, and verifies the signature; and the engine's own parser takes it back unchanged.

The independent library runs in a subprocess (.venv-siwe, made by `make deps`): see
tests/siwx/interop/requirements.txt for why it cannot share the engine's venv.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest
from eth_account import Account

from modalcore.engine.cmds import Call, CallSettled
from modalcore.siwx.message import SiwxMessage, iso_from_ms
from modalcore.siwx.service import siwx_services
from modalcore.siwx.store import SqliteSiwxStore

from ..driver import Driver
from .conftest import ADDRESS_0, CHAIN_ID, DOMAIN, KEY_0, KEY_1, NOW_MS, URI, sign

ROOT = Path(__file__).resolve().parents[2]
INDEPENDENT_PYTHON = ROOT / ".venv-siwe" / "bin" / "python"
CHECK_SCRIPT = Path(__file__).parent / "interop" / "siwe_check.py"

STATEMENTS = (None, "I accept the ServiceOrg Terms of Service: https://service.org/tos")
TTLS = (None, 3_600_000)
NOT_BEFORES = (None, NOW_MS - 60_000)
REQUEST_IDS = (None, "req-1:a@b")
RESOURCES: tuple[tuple[str, ...] | None, ...] = (
    None,
    (),
    ("https://example.com/my-web2-claim.json",),
    (
        "ipfs://bafybeiemxf5abjwjbikoz4mc3a3dla6ual3jsgpdr4cjr3oz3evfyavhwq/",
        "https://example.com/my-web2-claim.json",
        "urn:uuid:8a6c3d2e-0c1b-4c5e-9f1a-2b3c4d5e6f70",
    ),
)
CHECK_AT = iso_from_ms(NOW_MS + 1_000)  # inside every window above


def independent_check(cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Parse, rebuild and verify each case with the independent library (one subprocess)."""
    if not INDEPENDENT_PYTHON.exists():
        pytest.fail(f"{INDEPENDENT_PYTHON} is missing: run `make deps` (it installs the siwe venv)")
    done = subprocess.run(
        [str(INDEPENDENT_PYTHON), str(CHECK_SCRIPT)],
        input=json.dumps(cases), capture_output=True, text=True, check=False, timeout=300,
    )
    assert done.returncode == 0, done.stderr
    results: list[dict[str, Any]] = json.loads(done.stdout)
    assert len(results) == len(cases)
    return results


def case(text: str, signature: str, nonce: str, domain: str = DOMAIN) -> dict[str, Any]:
    return {"text": text, "signature": signature, "domain": domain, "nonce": nonce, "time": CHECK_AT}


def assert_interoperable(message: SiwxMessage, text: str, result: dict[str, Any]) -> None:
    assert result["parsed"], result["error"]
    assert result["rebuilt"] == text, f"rebuilt differently:\n{result['rebuilt']!r}\n{text!r}"
    assert result["verified"], result["error"]
    fields = result["fields"]
    assert (fields["domain"], fields["address"], fields["uri"]) == (
        message.domain, message.account_address, message.uri)
    assert (fields["chainId"], fields["nonce"], fields["version"]) == (
        message.chain_id, message.nonce, message.version)
    assert fields["statement"] == message.statement
    assert fields["issuedAt"] == message.issued_at
    assert fields["expirationTime"] == message.expiration_time
    assert fields["notBefore"] == message.not_before
    assert fields["requestId"] == message.request_id
    assert (fields["resources"] or None) == (None if message.resources is None else list(message.resources))
    # and the engine's own strict parser takes back exactly what it wrote
    assert SiwxMessage.parse(text) == message
    assert SiwxMessage.parse(text).to_text() == text


def test_every_combination_of_optional_fields_round_trips_through_an_independent_verifier() -> None:
    combos = list(itertools.product(STATEMENTS, TTLS, NOT_BEFORES, REQUEST_IDS, RESOURCES))
    messages = [
        SiwxMessage.create(
            domain=DOMAIN, address=ADDRESS_0.lower(), uri=URI, chain_id=CHAIN_ID,
            nonce=f"nonce{index:04d}abc", now_ms=NOW_MS, statement=statement, ttl_ms=ttl,
            not_before_ms=not_before, request_id=request_id,
            resources=None if resources is None else list(resources),
        )
        for index, (statement, ttl, not_before, request_id, resources) in enumerate(combos)
    ]
    texts = [message.to_text() for message in messages]
    results = independent_check(
        [case(text, sign(text), message.nonce) for message, text in zip(messages, texts)]
    )
    for message, text, result in zip(messages, texts, results):
        assert_interoperable(message, text, result)


def test_the_independent_verifier_can_fail() -> None:
    """The check is not vacuous: a signature by another key, a message changed after signing,
    and the old empty `Resources:` line (issue 11) are each refused by the independent library."""
    message = SiwxMessage.create(
        domain=DOMAIN, address=ADDRESS_0, uri=URI, chain_id=CHAIN_ID, nonce="abcdEFGH1234",
        now_ms=NOW_MS, statement="Sign in to the demo app",
    )
    text = message.to_text()
    bare_resources = text + "\nResources:"
    results = independent_check([
        case(text, sign(text, KEY_1), message.nonce),
        case(text.replace("the demo app", "the evil app"), sign(text), message.nonce),
        case(bare_resources, sign(bare_resources), message.nonce),
    ])
    assert [r["parsed"] for r in results] == [True, True, True]
    assert [r["verified"] for r in results] == [False, False, False]
    assert results[2]["rebuilt"] == text  # it drops the bare line, so the signature no longer fits


@pytest.mark.parametrize("resources", [[], ["https://example.com/terms"],
                                       ["https://example.com/terms", "ipfs://bafy/x", "urn:a:b"]])
@pytest.mark.parametrize("statement", [None, "Sign in to the demo"])
def test_messages_a_session_asks_the_wallet_to_sign_verify_independently(
    resources: list[str], statement: str | None
) -> None:
    """Drive a session through connect and siwx/sign with the real nonce and verify services:
    the text the wallet is asked to sign verifies on the engine and in the independent library."""
    options: dict[str, Any] = {"required": True, "resources": resources}
    if statement is not None:
        options["statement"] = statement
    driver = Driver({"siwx": options}, now=NOW_MS)
    store = SqliteSiwxStore(":memory:")

    async def run_calls(http: httpx.AsyncClient) -> None:
        """Run every pending siwx.* call and deliver its result, until none is left."""
        services = siwx_services(store, http, Account.from_key("0x" + "11" * 32), clock=lambda: NOW_MS)
        while calls := [c for c in driver.cmds if isinstance(c, Call) and c.service.startswith("siwx.")]:
            for call in calls:
                driver.cmds.remove(call)
                driver.deliver(CallSettled(call.purpose, True, await services[call.service](**call.args)))

    async def flow() -> str:
        async with httpx.AsyncClient() as http:
            driver.connect()
            await run_calls(http)
            driver.intent("siwx/sign")
            await run_calls(http)
            effect = driver.last_effect()
            assert effect["req"]["method"] == "personal_sign"
            text = bytes.fromhex(effect["req"]["params"][0][2:]).decode()
            driver.answer(sign(text, KEY_0))
            await run_calls(http)
            return text

    try:
        text = asyncio.run(flow())
    finally:
        store.close()
    assert driver.model.siwx.has_session is True  # the engine's own verifier accepted it
    message = SiwxMessage.parse(text)
    assert message.statement == (statement or "Sign in to continue")
    assert message.resources == (tuple(resources) or None)
    [result] = independent_check([case(text, sign(text), message.nonce, domain=message.domain)])
    assert_interoperable(message, text, result)
