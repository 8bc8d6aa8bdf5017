"""SqliteSiwxStore: nonces, sessions, revocation, persistence across reopening the file."""

from __future__ import annotations

from pathlib import Path

from modalcore.siwx.backend.store import NonceStatus, SiwxSession, SqliteSiwxStore, build_cacao

from .conftest import ADDRESS_0, ADDRESS_1, CHAIN_ID, DOMAIN, NOW_MS, make_message, sign


def _session(nonce: str = "abcdefgh1", *, now_ms: int = NOW_MS, **overrides: object) -> SiwxSession:
    message = make_message(nonce, now_ms=now_ms, **overrides)
    text = message.to_text()
    return SiwxSession.from_message(message, text, sign(text), now_ms=now_ms)


async def test_nonce_lifecycle(store: SqliteSiwxStore) -> None:
    nonce = await store.issue_nonce("s1", NOW_MS)
    assert len(nonce) == 32 and nonce.isalnum()
    assert nonce != await store.issue_nonce("s1", NOW_MS)
    assert await store.check_nonce(nonce, "s1", NOW_MS) is NonceStatus.OK
    assert await store.check_nonce(nonce, "s2", NOW_MS) is NonceStatus.OTHER_SESSION
    assert await store.consume_nonce(nonce, "s2", NOW_MS) is NonceStatus.OTHER_SESSION
    assert await store.consume_nonce(nonce, "s1", NOW_MS) is NonceStatus.OK
    assert await store.consume_nonce(nonce, "s1", NOW_MS) is NonceStatus.USED
    assert await store.check_nonce("nope12345", "s1", NOW_MS) is NonceStatus.UNKNOWN


async def test_nonce_expiry(store: SqliteSiwxStore) -> None:
    nonce = await store.issue_nonce("s1", NOW_MS)
    assert await store.check_nonce(nonce, "s1", NOW_MS + store.nonce_ttl_ms) is NonceStatus.OK
    later = NOW_MS + store.nonce_ttl_ms + 1
    assert await store.consume_nonce(nonce, "s1", later) is NonceStatus.EXPIRED
    # a day later the row is pruned when the next nonce is issued
    await store.issue_nonce("s1", NOW_MS + 25 * 3_600_000)
    assert await store.check_nonce(nonce, "s1", later) is NonceStatus.UNKNOWN


async def test_sessions_filter_and_revoke(store: SqliteSiwxStore) -> None:
    a = _session("aaaaaaaa1")
    b = _session("bbbbbbbb1", domain="other.example.com")
    c = _session("cccccccc1", chain_id=1)
    d = _session("dddddddd1", address=ADDRESS_1)
    for session in (a, b, c, d):
        await store.add_session(session)

    def ids(found: list[SiwxSession]) -> set[str]:
        return {session.id for session in found}

    assert ids(await store.sessions_for(ADDRESS_0, None, None, NOW_MS)) == {a.id, b.id, c.id}
    assert ids(await store.sessions_for(ADDRESS_0.lower(), DOMAIN, None, NOW_MS)) == {a.id, c.id}
    assert ids(await store.sessions_for(ADDRESS_0, DOMAIN, CHAIN_ID, NOW_MS)) == {a.id}
    assert ids(await store.sessions_for(ADDRESS_1, None, None, NOW_MS)) == {d.id}

    assert await store.revoke(ADDRESS_0, DOMAIN) == 2
    assert ids(await store.sessions_for(ADDRESS_0, None, None, NOW_MS)) == {b.id}
    assert await store.revoke(ADDRESS_0, DOMAIN) == 0
    assert await store.revoke_session(b.id) is True
    assert await store.revoke_session(b.id) is False
    assert await store.sessions_for(ADDRESS_0, None, None, NOW_MS) == []
    fetched = await store.get_session(b.id)
    assert fetched is not None and fetched.revoked
    assert ids(await store.sessions_for(ADDRESS_1, None, None, NOW_MS)) == {d.id}


async def test_expired_sessions_are_not_listed(store: SqliteSiwxStore) -> None:
    session = _session(ttl_ms=1000)
    await store.add_session(session)
    assert session.expires_at == NOW_MS + 1000
    assert len(await store.sessions_for(ADDRESS_0, None, None, NOW_MS + 999)) == 1
    assert await store.sessions_for(ADDRESS_0, None, None, NOW_MS + 1000) == []


async def test_store_survives_reopening_the_file(tmp_path: Path) -> None:
    path = tmp_path / "db" / "siwx.sqlite"
    first = SqliteSiwxStore(path)
    nonce = await first.issue_nonce("s1", NOW_MS)
    used = await first.issue_nonce("s1", NOW_MS)
    assert await first.consume_nonce(used, "s1", NOW_MS) is NonceStatus.OK
    session = _session()
    await first.add_session(session)
    first.close()

    second = SqliteSiwxStore(path)
    try:
        assert await second.get_session(session.id) == session
        assert await second.sessions_for(ADDRESS_0, DOMAIN, CHAIN_ID, NOW_MS) == [session]
        assert await second.check_nonce(nonce, "s1", NOW_MS) is NonceStatus.OK
        assert await second.consume_nonce(used, "s1", NOW_MS) is NonceStatus.USED
        assert await second.revoke(ADDRESS_0, None) == 1
    finally:
        second.close()
    third = SqliteSiwxStore(path)
    try:
        assert await third.sessions_for(ADDRESS_0, None, None, NOW_MS) == []
    finally:
        third.close()


def test_cacao_is_built_from_the_message() -> None:
    message = make_message(
        "abcdefgh1", not_before_ms=NOW_MS, request_id="r-1", resources=["https://a.example/x"]
    )
    cacao = build_cacao(message, "0xsig")
    assert cacao == {
        "h": {"t": "caip122"},
        "p": {
            "domain": DOMAIN,
            "iss": f"did:pkh:eip155:{CHAIN_ID}:{ADDRESS_0}",
            "aud": message.uri,
            "version": "1",
            "nonce": "abcdefgh1",
            "iat": message.issued_at,
            "exp": message.expiration_time,
            "nbf": message.not_before,
            "requestId": "r-1",
            "resources": ["https://a.example/x"],
            "statement": message.statement,
        },
        "s": {"t": "eip191", "s": "0xsig"},
    }
    bare = build_cacao(make_message("abcdefgh1", statement=None, ttl_ms=None), "0xsig")
    assert set(bare["p"]) == {"domain", "iss", "aud", "version", "nonce", "iat"}


async def test_open_nonces_per_session_are_bounded(store: SqliteSiwxStore) -> None:
    """Pressing Sign again and again (each press issues a nonce) holds at most MAX_OPEN_NONCES
    unused nonces for the session; the newest stay usable, other sessions' are untouched."""
    from modalcore.rules.limits import MAX_OPEN_NONCES

    other = await store.issue_nonce("s2", NOW_MS)
    nonces = [await store.issue_nonce("s1", NOW_MS + n) for n in range(500)]
    statuses = [await store.check_nonce(n, "s1", NOW_MS + 500) for n in nonces]
    assert statuses[-MAX_OPEN_NONCES:] == [NonceStatus.OK] * MAX_OPEN_NONCES
    assert set(statuses[:-MAX_OPEN_NONCES]) == {NonceStatus.UNKNOWN}
    assert await store.check_nonce(other, "s2", NOW_MS + 500) is NonceStatus.OK
    found = store._run("SELECT COUNT(*) FROM siwx_nonces WHERE session_key = 's1'").fetchone()
    assert found is not None
    (rows,) = found
    assert rows == MAX_OPEN_NONCES
