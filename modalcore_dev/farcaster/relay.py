"""A local Farcaster auth relay following the API `@farcaster/auth-client` 0.7.1 calls (the
hosted relay.farcaster.xyz cannot be reached here):

- ``POST /v1/channel`` {siweUri, domain, nonce?, notBefore?, expirationTime?, requestId?,
  redirectUrl?} → 201 {channelToken, url, connectUri, nonce}; the url is
  ``farcaster://connect?channelToken=…&nonce=…&siweUri=…&domain=…`` (+ the optional fields).
- ``GET /v1/channel/status`` (``Authorization: Bearer <channelToken>``) → 202 {state: pending,
  nonce} or 200 {state: completed, nonce, message, signature, fid, username, displayName, bio,
  pfpUrl, custody, verifications}, after which the channel is closed (as the hosted relay's
  handlers do); 401 for an unknown, closed or expired channel.
- ``POST /v1/channel/authenticate`` (the Farcaster client, with the channel token; with
  `auth_key` set, also the ``X-Farcaster-Auth-Relay-Key`` header, as the hosted relay requires of
  Warpcast) {message, signature, fid, username?, displayName?, bio?, pfpUrl?, custody?,
  verifications?} → 201 the completed channel; 409 when it was answered already.

Like the hosted relay it checks nothing of the answer: the app verifies the message, the
signature and the ID registry itself (unlike it, this one does not look the FID's addresses up:
the client's `custody` is passed on, and the app checks it). Bounded: body size, field lengths,
open channels; a channel lives `ttl_ms` from its creation (the hosted relay: 3600 s).
"""

from __future__ import annotations

import logging
import re
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import urlencode

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from modalcore.farcaster.bodies import json_body
from modalcore_dev.farcaster.democlient import client_routes

log = logging.getLogger(__name__)

MAX_FIELD = 1024
MAX_MESSAGE = 4096
NONCE = re.compile(r"^[A-Za-z0-9]{8,64}$")
TOKEN = re.compile(r"^[A-Za-z0-9_-]{16,64}$")
CREATE_FIELDS = ("siweUri", "domain", "nonce", "notBefore", "expirationTime", "requestId", "redirectUrl")
ANSWER_TEXT = ("message", "signature", "username", "displayName", "bio", "pfpUrl", "custody")


@dataclass(frozen=True)
class Limits:
    max_channels: int = 1000
    ttl_ms: int = 300_000
    auth_key: str = ""  # required of /authenticate when set


@dataclass(frozen=True)
class Channel:
    token: str
    nonce: str
    url: str
    created_ms: int
    request: dict[str, str]
    answer: dict[str, Any] = field(default_factory=dict)

    def view(self) -> dict[str, Any]:
        state = "completed" if self.answer else "pending"
        return {"state": state, "nonce": self.nonce, **self.answer}


def connect_url(token: str, nonce: str, request: dict[str, str]) -> str:
    query = {"channelToken": token, "nonce": nonce, "siweUri": request["siweUri"], "domain": request["domain"]}
    for key in ("notBefore", "expirationTime", "requestId"):
        if key in request:
            query[key] = request[key]
    return "farcaster://connect?" + urlencode(query)


class Channels:
    """The open channels, oldest first; expired ones are swept on every call."""

    def __init__(self, limits: Limits, clock: Callable[[], int]) -> None:
        self.limits = limits
        self.clock = clock
        self._open: OrderedDict[str, Channel] = OrderedDict()

    def _sweep(self) -> None:
        now = self.clock()
        while self._open:
            channel = next(iter(self._open.values()))
            if now - channel.created_ms < self.limits.ttl_ms:
                return
            del self._open[channel.token]

    def create(self, request: dict[str, str]) -> Channel | None:
        self._sweep()
        if len(self._open) >= self.limits.max_channels:
            return None
        token = secrets.token_urlsafe(24)
        nonce = request.get("nonce") or secrets.token_hex(8)
        channel = Channel(token, nonce, connect_url(token, nonce, request), self.clock(), request)
        self._open[token] = channel
        return channel

    def get(self, token: str) -> Channel | None:
        self._sweep()
        return self._open.get(token)

    def pending_urls(self) -> list[str]:
        self._sweep()
        return [c.url for c in self._open.values() if not c.answer][-20:]

    def close(self, token: str) -> None:
        self._open.pop(token, None)

    def answer(self, token: str, answer: dict[str, Any]) -> Channel | None:
        channel = self.get(token)
        if channel is None or channel.answer:
            return None
        self._open[token] = replace(channel, answer=answer)
        return self._open[token]


def _error(status: int, message: str) -> JSONResponse:
    log.info("farcaster relay refused: %s", message)
    return JSONResponse({"error": message}, status_code=status)


def _bearer(request: Request) -> str:
    value = request.headers.get("authorization", "")
    token = value[7:].strip() if value[:7].lower() == "bearer " else ""
    return token if TOKEN.match(token) else ""


def _create_request(data: dict[str, Any]) -> dict[str, str] | str:
    request: dict[str, str] = {}
    for key in CREATE_FIELDS:
        value = data.get(key)
        if value is None:
            continue
        if not isinstance(value, str) or not value or len(value) > MAX_FIELD:
            return f"{key} must be a string of at most {MAX_FIELD} characters"
        request[key] = value
    if "siweUri" not in request or "domain" not in request:
        return "siweUri and domain are required"
    if "nonce" in request and not NONCE.match(request["nonce"]):
        return "nonce must be 8 to 64 letters or digits"
    return request


def _answer(data: dict[str, Any]) -> dict[str, Any] | str:
    answer: dict[str, Any] = {}
    for key in ANSWER_TEXT:
        value = data.get(key, "")
        limit = MAX_MESSAGE if key == "message" else MAX_FIELD
        if not isinstance(value, str) or len(value) > limit:
            return f"{key} must be a string of at most {limit} characters"
        answer[key] = value
    fid = data.get("fid")
    if not isinstance(fid, int) or isinstance(fid, bool) or not 0 < fid < 2**63:
        return "fid must be a positive integer"
    if not answer["message"] or not answer["signature"]:
        return "message and signature are required"
    verifications = data.get("verifications", [])
    if (not isinstance(verifications, list) or len(verifications) > 16
            or not all(isinstance(v, str) and len(v) <= 128 for v in verifications)):
        return "verifications must be at most 16 short strings"
    return {**answer, "fid": fid, "verifications": verifications}


def create_relay_app(limits: Limits | None = None, clock: Callable[[], int] | None = None, *,
                     demo_client: bool = False) -> Starlette:
    """The relay; with `demo_client`, the demo Farcaster client page at /client too."""
    now = clock or (lambda: time.time_ns() // 1_000_000)
    channels = Channels(limits or Limits(), now)

    async def create(request: Request) -> Response:
        data = await json_body(request)
        if data is None:
            return _error(400, "the body must be a JSON object of at most 16 KB")
        parsed = _create_request(data)
        if isinstance(parsed, str):
            return _error(400, parsed)
        channel = channels.create(parsed)
        if channel is None:
            return _error(429, "too many open channels")
        return JSONResponse({"channelToken": channel.token, "url": channel.url, "connectUri": channel.url,
                             "nonce": channel.nonce}, status_code=201)

    async def status(request: Request) -> Response:
        channel = channels.get(_bearer(request))
        if channel is None:
            return _error(401, "unknown or expired channel")
        if channel.answer:
            channels.close(channel.token)
        return JSONResponse(channel.view(), status_code=200 if channel.answer else 202)

    async def authenticate(request: Request) -> Response:
        key = channels.limits.auth_key
        if key and not secrets.compare_digest(request.headers.get("x-farcaster-auth-relay-key", ""), key):
            return _error(401, "the relay key is missing or wrong")
        token = _bearer(request)
        data = await json_body(request)
        if data is None:
            return _error(400, "the body must be a JSON object of at most 16 KB")
        answer = _answer(data)
        if isinstance(answer, str):
            return _error(400, answer)
        if channels.get(token) is None:
            return _error(401, "unknown or expired channel")
        channel = channels.answer(token, answer)
        if channel is None:
            return _error(409, "the channel was answered already")
        return JSONResponse(channel.view(), status_code=201)

    routes = [
        Route("/v1/channel", create, methods=["POST"]),
        Route("/v1/channel/status", status, methods=["GET"]),
        Route("/v1/channel/authenticate", authenticate, methods=["POST"]),
    ]
    if demo_client:
        routes += client_routes(channels, now)
    app = Starlette(routes=routes)
    app.state.channels = channels
    return app
