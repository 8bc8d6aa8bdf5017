"""Issue 11 item 3: every sign-in message the engine writes round-trips through independent
EIP-4361 implementations (SpruceID's `siwe` for Python and for JavaScript, the libraries host
backends use): each parses it, rebuilds it byte for byte, and verifies the signature; and the
engine's own parser takes it back unchanged.

The libraries run in subprocesses, installed by `make deps`: the Python one in .venv-siwe (see
tests/siwx/interop/requirements.in for why it cannot share the engine's venv), the JavaScript
one with ethers in tests/siwx/interop/node_modules.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from eth_account import Account

from modalcore.siwx.domain.message import SiwxMessage, iso_from_ms
from modalcore.siwx.backend.service import siwx_services
from modalcore.siwx.backend.store import SqliteSiwxStore


from ..devwallet import dev_session
from .conftest import ADDRESS_0, CHAIN_ID, DOMAIN, KEY_0, KEY_1, NOW_MS, URI, sign

ROOT = Path(__file__).resolve().parents[2]
INTEROP = Path(__file__).parent / "interop"
# name → (command, what must exist first)
IMPLEMENTATIONS: dict[str, tuple[list[str], Path]] = {
    "siwe-py": ([str(ROOT / ".venv-siwe" / "bin" / "python"), str(INTEROP / "siwe_check.py")],
                ROOT / ".venv-siwe" / "bin" / "python"),
    "siwe-js": (["node", str(INTEROP / "siwe_check.mjs")], INTEROP / "node_modules" / "siwe"),
}

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


@dataclass(frozen=True)
class Case:
    """One signed text to hand the libraries; `message` is what the engine meant by it."""

    text: str
    signature: str
    nonce: str
    domain: str = DOMAIN
    message: SiwxMessage | None = None

    def wire(self) -> dict[str, Any]:
        return {"text": self.text, "signature": self.signature, "domain": self.domain,
                "nonce": self.nonce, "time": CHECK_AT}


def signed(message: SiwxMessage) -> Case:
    text = message.to_text()
    return Case(text, sign(text), message.nonce, message.domain, message)


def combination_cases() -> list[Case]:
    """The engine's builder over every combination of the optional fields."""
    combos = itertools.product(STATEMENTS, TTLS, NOT_BEFORES, REQUEST_IDS, RESOURCES)
    return [
        signed(SiwxMessage.create(
            domain=DOMAIN, address=ADDRESS_0.lower(), uri=URI, chain_id=CHAIN_ID,
            nonce=f"nonce{index:04d}abc", now_ms=NOW_MS, statement=statement, ttl_ms=ttl,
            not_before_ms=not_before, request_id=request_id,
            resources=None if resources is None else list(resources),
        ))
        for index, (statement, ttl, not_before, request_id, resources) in enumerate(combos)
    ]


SESSION_OPTIONS = list(itertools.product(
    (None, "Sign in to the demo"),
    ([], ["https://example.com/terms"], ["https://example.com/terms", "ipfs://bafy/x", "urn:a:b"]),
))


def session_case(statement: str | None, resources: list[str]) -> Case:
    """Drive a session through connect and siwx/sign with the real nonce and verify services;
    the text the wallet is asked to sign, signed, after the engine's own verifier accepted it."""
    options: dict[str, Any] = {"required": True, "resources": resources}
    if statement is not None:
        options["statement"] = statement
    driver = dev_session({"siwx": options}, now=NOW_MS)
    store = SqliteSiwxStore(":memory:")

    async def run_calls(http: httpx.AsyncClient) -> None:
        """Run every pending siwx.* call and deliver its result, until none is left."""
        services = siwx_services(store, http, Account.from_key("0x" + "11" * 32), clock=lambda: NOW_MS)
        while calls := [c for c in driver.pending_calls() if c.service.name.startswith("siwx.")]:
            for call in calls:
                driver.settle(call, await services[call.service](**call.args_data))

    async def flow() -> str:
        async with httpx.AsyncClient() as http:
            driver.connect_wallet()
            await run_calls(http)
            driver.intent("siwx/sign")
            await run_calls(http)
            effect = driver.last_effect()
            assert effect["req"]["method"] == "personal_sign"
            text = bytes.fromhex(effect["req"]["params"][0][2:]).decode()
            driver.answer_last(sign(text, KEY_0))
            await run_calls(http)
            return text

    try:
        text = asyncio.run(flow())
    finally:
        store.close()
    assert driver.model.siwx.has_session is True  # the engine's own verifier accepted it
    message = SiwxMessage.parse(text)
    return Case(text, sign(text), message.nonce, message.domain, message)


def refused_cases() -> list[Case]:
    """Cases every library must refuse: another key, a changed text, another nonce; and the
    old bare `Resources:` line (issue 11), signed as it stands."""
    message = SiwxMessage.create(
        domain=DOMAIN, address=ADDRESS_0, uri=URI, chain_id=CHAIN_ID, nonce="abcdEFGH1234",
        now_ms=NOW_MS, statement="Sign in to the demo app",
    )
    text = message.to_text()
    bare = text + "\nResources:"
    return [
        Case(text, sign(text, KEY_1), message.nonce),
        Case(text.replace("the demo app", "the evil app"), sign(text), message.nonce),
        Case(text, sign(text), "otherNonce123"),
        Case(bare, sign(bare), message.nonce),
    ]


@dataclass(frozen=True)
class Checked:
    cases: dict[str, list[Case]]
    results: dict[str, list[dict[str, Any]]]


@pytest.fixture(scope="module")
def all_cases() -> dict[str, list[Case]]:
    return {
        "combinations": combination_cases(),
        "sessions": [session_case(statement, resources) for statement, resources in SESSION_OPTIONS],
        "refused": refused_cases(),
    }


@pytest.fixture(scope="module", params=sorted(IMPLEMENTATIONS))
def checked(request: pytest.FixtureRequest, all_cases: dict[str, list[Case]]) -> tuple[str, Checked]:
    """Every case through one library, in one subprocess."""
    library = str(request.param)
    flat = [case for group in all_cases.values() for case in group]
    results = iter(independent_check(library, [case.wire() for case in flat]))
    grouped = {name: [next(results) for _ in group] for name, group in all_cases.items()}
    return library, Checked(all_cases, grouped)


def independent_check(library: str, cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Parse, rebuild and verify each case with an independent library (one subprocess)."""
    command, needed = IMPLEMENTATIONS[library]
    if not needed.exists():
        pytest.fail(f"{needed} is missing: run `make deps` (it installs the {library} library)")
    done = subprocess.run(
        command, input=json.dumps(cases), capture_output=True, text=True, check=False, timeout=300,
    )
    assert done.returncode == 0, done.stderr
    results: list[dict[str, Any]] = json.loads(done.stdout)
    assert len(results) == len(cases)
    return results


def assert_interoperable(case: Case, result: dict[str, Any]) -> None:
    message, text = case.message, case.text
    assert message is not None
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


def test_every_combination_of_optional_fields_round_trips_through_an_independent_verifier(
    checked: tuple[str, Checked],
) -> None:
    """statement, expirationTime, notBefore, requestId each present or not, resources absent,
    empty, one or three: 64 messages, each parsed, rebuilt byte for byte and verified."""
    _, run = checked
    assert len(run.cases["combinations"]) == 64
    for case, result in zip(run.cases["combinations"], run.results["combinations"], strict=True):
        assert_interoperable(case, result)


def test_messages_a_session_asks_the_wallet_to_sign_verify_independently(
    checked: tuple[str, Checked],
) -> None:
    """The texts sessions really sent to the wallet (siwx options with and without a statement,
    with 0, 1 and 3 resources) verify in the independent library as they did in the engine."""
    _, run = checked
    for (statement, resources), case, result in zip(
        SESSION_OPTIONS, run.cases["sessions"], run.results["sessions"], strict=True
    ):
        assert case.message is not None
        assert case.message.statement == (statement or "Sign in to continue")
        assert case.message.resources == (tuple(resources) or None)
        assert ("Resources:" in case.text) == bool(resources)
        assert_interoperable(case, result)


def test_the_independent_verifiers_can_fail(checked: tuple[str, Checked]) -> None:
    """The check is not vacuous: another key, a changed text and another nonce are refused by
    each library; the old bare `Resources:` line (issue 11) by the Python one, which rebuilds the
    message without it (the JavaScript one keeps the line, an empty array being truthy there, so
    it alone would not have caught the bug)."""
    library, run = checked
    results = run.results["refused"]
    assert [r["parsed"] for r in results] == [True, True, True, True]
    assert [r["verified"] for r in results[:3]] == [False, False, False]
    if library == "siwe-py":
        assert results[3]["verified"] is False
        assert results[3]["rebuilt"] == run.cases["refused"][0].text  # the bare line dropped
