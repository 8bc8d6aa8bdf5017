"""Continue on your phone in the session's language (issue 44 item 1): the phone's page, its
answers and the computer's confirmation frame speak the language the modal draws (the host's
`locale`, else the browser's), through the same catalogues (modalcore/i18n/locales); a link of
no session answers in the phone's own language (Accept-Language)."""

from __future__ import annotations

import json
import re
from typing import Any

import httpx
import pytest

from modalcore.i18n.catalog import catalogue
from modalcore.i18n.extract import is_text
from modalcore.server import handoff_texts as T
from modalcore_dev.devmail import LocalSmtpServer
from modalcore_testing import RunningServer

from ..embedded.device import DeviceKey, frame_headers
from .test_handoff_routes import OPTS, _claim, _link, _signed_in, engine, mail

__all__ = ["engine", "mail"]


def _script_data(page: str) -> dict[str, Any]:
    found = re.search(r"const S = (\{.*?\});\n", page)
    assert found is not None, "no data for the page's script"
    data: dict[str, Any] = json.loads(found.group(1))
    return data


def _de(text: str) -> str:
    found = catalogue("de").translate(text)
    assert found is not None and found != text, text
    return found


def test_every_word_of_the_phone_pages_is_in_every_catalogue() -> None:
    """Rule: the pages' words are extracted and translated like the modal's (i18n check)."""
    texts = {value for name, value in vars(T).items() if name.isupper() and isinstance(value, str) and is_text(value)}
    assert len(texts) >= 20
    for language in ("de", "es", "ja", "ar"):
        missing = sorted(text for text in texts if catalogue(language).translate(text) is None)
        assert not missing, (language, missing)


async def test_the_phone_page_its_refusals_and_the_confirmation_frame_are_in_the_sessions_language(
        engine: RunningServer, mail: LocalSmtpServer) -> None:
    async with engine.client() as client, httpx.AsyncClient(base_url=engine.http_url, timeout=10) as http:
        await _signed_in(client, http, mail, "lena@example.com", DeviceKey(), {**OPTS, "locale": "de"})
        link = await _link(client)
        path = link.removeprefix(engine.http_url)

        # the phone's page: the host chose German, the phone's browser says English
        page = await http.get(path, headers={"Accept-Language": "en-US,en"})
        assert page.status_code == 200
        assert " lang=de dir=ltr>" in page.text
        assert f"<title>{_de(T.TITLE)}</title>" in page.text
        assert _de(T.CONNECTING) in page.text and ">Continue on your phone<" not in page.text
        words = _script_data(page.text)["t"]
        assert words["check"] == _de(T.CHECK_CODE)
        assert words["connected"] == _de(T.CONNECTED)

        # claimed; a second claim and the page opened again are refused in German, typed the same
        assert (await _claim(http, link, DeviceKey())).status_code == 202
        await client.recv_until(lambda f: "Zeigt dein Handy diesen Code?" in str(f))
        again = await _claim(http, link, DeviceKey())
        assert (again.status_code, again.json()) == (410, {"error": "used_link", "text": _de(T.USED_LINK)})
        reopened = await http.get(path)
        assert reopened.status_code == 410 and "data-refusal=used_link" in reopened.text
        assert _de(T.USED_LINK) in reopened.text

        # the computer's confirmation frame
        frame = await http.get("/continue-confirm", params={"session": client.session})
        assert frame.status_code == 200 and " lang=de dir=ltr>" in frame.text
        assert f">{_de(T.YES)}</button>" in frame.text
        assert _script_data(frame.text)["t"]["confirmed"] == _de(T.CONFIRMED)


@pytest.mark.parametrize(("accept", "language", "direction"), [("es-MX,es;q=0.9", "es", "ltr"), ("ar", "ar", "rtl"),
                                                                ("x" * 500, "en", "ltr")])
async def test_a_link_of_no_session_is_refused_in_the_phones_own_language(
        engine: RunningServer, accept: str, language: str, direction: str) -> None:
    async with httpx.AsyncClient(base_url=engine.http_url, timeout=10) as http:
        page = await http.get("/continue/no-such-session.token", headers={"Accept-Language": accept})
        claim = await http.post("/continue/claim", json={"link": "no-such-session.token", "public_key": DeviceKey().spki},
                                headers={**frame_headers(engine.http_url), "Accept-Language": accept})
    text = T.UNKNOWN_LINK if language == "en" else catalogue(language).translate(T.UNKNOWN_LINK)
    assert text is not None
    assert page.status_code == 404 and f"lang={language} dir={direction}>" in page.text and text in page.text
    assert (claim.status_code, claim.json()) == (403, {"error": "unknown_link", "text": text})
