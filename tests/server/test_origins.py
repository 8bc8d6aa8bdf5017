from __future__ import annotations

import pytest

from modalcore.server.origins import (
    DEFAULT_ALLOWED_ANCESTORS,
    SPEC_DEFAULT_ANCESTORS,
    OriginPolicy,
    PatternError,
    parse_origin,
    parse_pattern,
)


@pytest.mark.parametrize(("pattern", "origin", "allowed"), [
    ("https://app.example.com", "https://app.example.com", True),
    ("https://app.example.com", "https://app.example.com:443", True),
    ("https://app.example.com", "https://APP.example.com", True),
    ("https://app.example.com", "http://app.example.com", False),
    ("https://app.example.com", "https://app.example.com:8443", False),
    ("https://app.example.com", "https://evil-app.example.com", False),
    ("https://app.example.com", "https://app.example.com.evil.io", False),
    ("https://*.example.com", "https://a.example.com", True),
    ("https://*.example.com", "https://example.com", False),
    ("https://*.example.com", "https://a.b.example.com", False),
    ("https://*.example.com", "https://a.example.com.evil.io", False),
    ("http://localhost:*", "http://localhost:5173", True),
    ("http://localhost:*", "http://localhost", True),
    ("http://localhost:*", "https://localhost:5173", False),
    ("http://dev.test:8080", "http://dev.test:8081", False),
    ("example.com", "http://example.com", True),
    ("example.com", "https://example.com", True),
    ("*", "https://anything.io:1234", True),
    ("https://app.example.com", "null", False),
    ("https://app.example.com", "https://app.example.com/path", False),
    ("https://app.example.com", "javascript:alert(1)", False),
    ("https://app.example.com", "", False),
])
def test_patterns(pattern: str, origin: str, allowed: bool) -> None:
    assert OriginPolicy([pattern], include_defaults=False).allows(origin) is allowed


@pytest.mark.parametrize("origin", ["http://localhost:3000", "http://localhost", "http://127.0.0.1:8700"])
def test_default_allowed_ancestors(origin: str) -> None:
    assert OriginPolicy([]).allows(origin)
    assert not OriginPolicy([], include_defaults=False).allows(origin)


@pytest.mark.parametrize("origin", ["https://vercel.app", "https://evil.com", "http://x.pages.dev",
                                    "https://localhost:3000", "http://localhost.evil.com"])
def test_not_default_ancestors(origin: str) -> None:
    assert not OriginPolicy([]).allows(origin)


@pytest.mark.parametrize("origin", ["https://my-app.pages.dev", "https://x.vercel.app", "https://abc.ngrok-free.app",
                                    "https://secure-mobile.walletconnect.com", "https://secure-mobile.walletconnect.org"])
def test_hosting_wildcards_anyone_can_register_are_not_allowed_by_default(origin: str) -> None:
    """Issue 38 §3: behaviour.md §9's hosting wildcards are sites anyone can register (an attacker's
    page there could frame the approval page); a project allows them only by listing them."""
    assert not OriginPolicy([]).allows(origin)
    assert OriginPolicy(list(SPEC_DEFAULT_ANCESTORS)).allows(origin)


def test_defaults_are_the_local_part_of_the_spec_list() -> None:
    assert DEFAULT_ALLOWED_ANCESTORS == ("http://localhost:*", "http://127.0.0.1:*")
    assert len(SPEC_DEFAULT_ANCESTORS) == 7 and set(DEFAULT_ALLOWED_ANCESTORS) < set(SPEC_DEFAULT_ANCESTORS)


@pytest.mark.parametrize("bad", ["https://", "ftp://x.com", "https://a..b", "https://x.com:99999",
                                 "https://x.com/path", "https://ex*ample.com"])
def test_bad_patterns(bad: str) -> None:
    with pytest.raises(PatternError):
        parse_pattern(bad)


def test_parse_origin() -> None:
    origin = parse_origin("http://[::1]:3000")
    assert origin is not None and origin.port == 3000
    assert parse_origin("https://user@x.com") is None
    assert parse_origin("http://x.com:bad") is None
