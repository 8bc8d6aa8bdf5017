"""The key window (`GET /embedded/key`, server/key_window.py): the engine-origin page that keeps
the device key where the browser gives the frame no storage. It cannot be framed, is never
cached, holds no secret, answers only its own origin and signs only the engine's own texts."""

from __future__ import annotations

from typing import Any

from starlette.applications import Starlette
from starlette.testclient import TestClient

from modalcore.server.frame_page import KEY_BLOCKED, KEY_PATH
from modalcore.server.key_window import TEXT_PREFIX, routes


def _get() -> Any:
    with TestClient(Starlette(routes=routes(object()))) as client:  # type: ignore[arg-type]
        return client.get(KEY_PATH)


def test_the_key_window_cannot_be_framed_is_not_cached_and_answers_its_own_origin_only() -> None:
    response = _get()
    assert response.status_code == 200
    csp = response.headers["content-security-policy"]
    assert "frame-ancestors 'none'" in csp and "connect-src 'self'" in csp
    assert response.headers["cache-control"] == "no-store"
    text = response.text
    assert "e.origin !== location.origin" in text and "d.text.startsWith(W.prefix)" in text
    assert f'"prefix": "{TEXT_PREFIX}"' in text


def test_the_frames_words_for_blocked_storage_come_from_the_engine() -> None:
    text = _get().text
    assert KEY_BLOCKED.replace("'", "\\'") in text or KEY_BLOCKED in text
    assert KEY_BLOCKED.startswith("This browser blocks storage for the wallet frame")
