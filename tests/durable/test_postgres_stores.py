"""The embedded wallet's stores on the shared PostgreSQL (issue 42) keep the SQLite store's
guarantees: a budget decided and charged in one transaction (two hosts racing for the last of a
mail budget or of a sponsoring budget: exactly one wins), keys sealed before they are written
and nothing secret in clear in any table, the same identity the same address from any host."""

from __future__ import annotations

import multiprocessing
from collections.abc import Iterator
from multiprocessing.synchronize import Barrier
from typing import Any

import psycopg
import pytest
from eth_account import Account
from eth_account.messages import encode_defunct

from modalcore.aa.ledger import SponsorLedger
from modalcore.aa.policy import DAY_MS, SponsorPolicy, SponsorRequest
from modalcore.durable.postgres import PostgresDb
from modalcore.durable.schema import EMBEDDED_TABLES, upgrade
from modalcore.embedded.budget import BudgetStore, OverBudget, Receipt, Rule
from modalcore.embedded.codes import EmailCodes
from modalcore.embedded.codestore import CodeStore
from modalcore.embedded.devicekeys import MAX_PER_IDENTITY, DeviceKeys
from modalcore.embedded.intents import SendIntent, SendIntents
from modalcore.embedded.keys import Identity, KeyVault
from modalcore.embedded.masterkey import MasterKey

MASTER = MasterKey(bytes(range(32)))
ALICE = Identity("email", "alice@example.com")
CHAIN = "eip155:31337"
T0 = 20_000 * DAY_MS + 3_600_000
POLICY = SponsorPolicy(projects=["demo"], chains=[CHAIN], budget_wei_per_day=100)
RANDOM = bytes(range(64))


@pytest.fixture
def db(db_url: str) -> Iterator[PostgresDb]:
    opened = PostgresDb(db_url)
    yield opened
    opened.close()


def _all_bytes(url: str) -> bytes:
    """Every value of every table, as PostgreSQL returns it (text, and bytea's raw bytes)."""
    out = b""
    with psycopg.connect(url) as conn:
        for table in EMBEDDED_TABLES:
            for row in conn.execute(f"SELECT * FROM {table}").fetchall():
                for value in row:
                    out += bytes(value) if isinstance(value, (bytes, memoryview)) else str(value).encode()
                    out += b"\x00"
    return out


def test_rule_a_key_is_sealed_before_it_is_written_nothing_secret_in_clear(db_url: str, db: PostgresDb) -> None:
    vault = KeyVault(db, MASTER)
    address = vault.get_or_create(ALICE, 1)
    secret = bytes(vault.account(ALICE).key)
    code = EmailCodes(CodeStore(db), b"k" * 32).request("alice@example.com", 1, RANDOM)[1]
    stored = _all_bytes(db_url)
    assert address.encode() in stored  # the table was read
    hexed = secret.hex()
    for form in (secret, hexed.encode(), hexed.upper().encode(), ("0x" + hexed).encode(), MASTER.secret,
                 MASTER.secret.hex().encode()):
        assert form not in stored
    assert code.encode() + b"\x00" not in stored and f"\x00{code}".encode() not in stored


def test_the_same_identity_has_the_same_address_and_key_from_another_host(db_url: str, db: PostgresDb) -> None:
    address = KeyVault(db, MASTER).get_or_create(ALICE, 1)
    other = PostgresDb(db_url)  # a second host: its own pool
    try:
        vault = KeyVault(other, MASTER)
        assert vault.get_or_create(ALICE, 2) == address
        signed = vault.account(ALICE).sign_message(encode_defunct(text="hi"))
        assert Account.recover_message(encode_defunct(text="hi"), signature=signed.signature) == address
    finally:
        other.close()


def test_a_code_asked_on_one_host_is_checked_on_another(db_url: str, db: PostgresDb) -> None:
    email, code = EmailCodes(CodeStore(db), b"k" * 32).request("alice@example.com", 1_000, RANDOM, "s1")
    other = PostgresDb(db_url)
    try:
        result = EmailCodes(CodeStore(other), b"k" * 32).submit(email, code, 2_000, "s1")
    finally:
        other.close()
    assert result.verdict.value == "accepted"


def test_a_withdrawn_code_puts_the_row_back(db: PostgresDb) -> None:
    codes = EmailCodes(CodeStore(db), b"k" * 32)
    issued = codes.issue("bob@example.com", 1_000, RANDOM)
    assert codes.withdraw(issued)
    assert CodeStore(db).get("bob@example.com") is None


def test_device_keys_are_bounded_per_identity(db: PostgresDb) -> None:
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
    import base64
    keys = DeviceKeys(db)
    ids = []
    for n in range(MAX_PER_IDENTITY + 1):
        spki = ec.generate_private_key(ec.SECP256R1()).public_key().public_bytes(
            Encoding.DER, PublicFormat.SubjectPublicKeyInfo)
        ids.append(keys.register("email:alice@example.com", base64.urlsafe_b64encode(spki).decode(), n))
    assert keys.public_key("email:alice@example.com", ids[0]) is None  # the oldest dropped
    assert keys.public_key("email:alice@example.com", ids[-1]) is not None


def test_send_intents_are_read_back_from_another_host(db_url: str, db: PostgresDb) -> None:
    intent = SendIntent("s1", "e1", "tx", CHAIN, "0xabc", 7, "0xhash", "0xraw", T0)
    SendIntents(db).record(intent)
    other = PostgresDb(db_url)
    try:
        assert SendIntents(other).get("s1", "e1") == intent
    finally:
        other.close()


def test_a_mail_budget_given_back_has_room_again(db: PostgresDb) -> None:
    store = BudgetStore(db)
    rules = [Rule("email:a", 1, 60_000)]
    taken = store.take(rules, 1_000)
    assert isinstance(taken, Receipt)
    assert isinstance(store.take(rules, 1_001), OverBudget)
    store.give_back(taken)
    assert isinstance(store.take(rules, 1_002), Receipt)


def _mail_host(url: str, barrier: Barrier, key: str, answers: Any) -> None:
    db = PostgresDb(url)
    try:
        store = BudgetStore(db)
        barrier.wait()
        answers.put(type(store.take([Rule(key, 3, 60_000)], 10_000)).__name__)
    finally:
        db.close()


def _sponsor_host(url: str, barrier: Barrier, account: str, answers: Any) -> None:
    db = PostgresDb(url)
    try:
        ledger = SponsorLedger(db)
        barrier.wait()
        decision, _ = ledger.reserve(POLICY, SponsorRequest("demo", CHAIN, "eth_sendTransaction", account, 30), T0)
        answers.put(type(decision).__name__)
    finally:
        db.close()


def _race(target: Any, url: str, key: str) -> list[str]:
    context = multiprocessing.get_context("fork")
    barrier, answers = context.Barrier(2), context.Queue()
    hosts = [context.Process(target=target, args=(url, barrier, key, answers)) for _ in range(2)]
    for host in hosts:
        host.start()
    for host in hosts:
        host.join(60)
    return sorted(answers.get(timeout=5) for _ in hosts)


def test_rule_two_hosts_racing_for_the_last_code_of_a_mail_budget_exactly_one_wins(db_url: str) -> None:
    """Two processes, each with its own pool (two hosts), take the last of a budget at once."""
    for n in range(4):
        key = f"email:race{n}"
        setup = PostgresDb(db_url)
        store = BudgetStore(setup)
        assert all(isinstance(store.take([Rule(key, 3, 60_000)], 9_000 + i), Receipt) for i in range(2))
        setup.close()
        assert _race(_mail_host, db_url, key) == ["OverBudget", "Receipt"]


def test_rule_two_hosts_racing_for_the_last_of_a_sponsoring_budget_exactly_one_wins(db_url: str) -> None:
    for n in range(1, 5):
        account = f"0x{n:040x}"
        setup = PostgresDb(db_url)
        SponsorLedger(setup).reserve(POLICY, SponsorRequest("demo", CHAIN, "eth_sendTransaction", account, 70), T0)
        setup.close()
        assert _race(_sponsor_host, db_url, account) == ["BudgetSpent", "Sponsor"]
    check = PostgresDb(db_url)
    try:
        assert SponsorLedger(check).spent(CHAIN, "0x" + "0" * 39 + "1", T0) == 100
    finally:
        check.close()


def _submit_host(url: str, barrier: Barrier, code: str, answers: Any) -> None:
    db = PostgresDb(url)
    try:
        codes = EmailCodes(CodeStore(db), b"k" * 32)
        barrier.wait()
        answers.put(codes.submit("alice@example.com", code, 2_000, "s1").verdict.value)
    finally:
        db.close()


def test_rule_two_hosts_checking_the_same_right_code_accept_it_once(db_url: str) -> None:
    """The read, decision and write of a code check hold the row's lock: a code is used once."""
    for n in range(3):
        setup = PostgresDb(db_url)
        code = EmailCodes(CodeStore(setup), b"k" * 32).request("alice@example.com", 1_000 + n * 60_000,
                                                                bytes([n]) * 64, "s1")[1]
        setup.close()
        assert _race(_submit_host, db_url, code) == ["accepted", "no_code"]
