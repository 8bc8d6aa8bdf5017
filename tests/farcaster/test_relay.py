"""The local Farcaster auth relay (issue 33) answers the auth-client's API: channel create →
201 with the farcaster://connect URL, status 202 pending then 200 completed with the client's
answer once (then the channel is closed, as the hosted relay does), a second answer refused,
the relay key when one is set, expiry, and bounds on every input."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from starlette.testclient import TestClient

from modalcore_dev.farcaster.relay import Limits, create_relay_app


class Clock:
    def __init__(self) -> None:
        self.ms = 1_000_000

    def __call__(self) -> int:
        return self.ms


def _relay(limits: Limits | None = None) -> tuple[TestClient, Clock]:
    clock = Clock()
    return TestClient(create_relay_app(limits, clock)), clock


ANSWER = {"message": "m", "signature": "0x" + "11" * 65, "fid": 2, "username": "bob",
          "displayName": "Bob", "pfpUrl": "https://example.invalid/bob.png",
          "custody": "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC"}


def test_a_channel_is_created_with_the_connect_url_and_the_given_nonce() -> None:
    client, _ = _relay()
    r = client.post("/v1/channel", json={"siweUri": "https://app.example/login", "domain": "app.example",
                                         "nonce": "abcdef123456", "expirationTime": "2030-01-01T00:00:00.000Z"})
    assert r.status_code == 201
    body = r.json()
    assert set(body) == {"channelToken", "url", "connectUri", "nonce"} and body["nonce"] == "abcdef123456"
    assert body["connectUri"] == body["url"]
    url = urlsplit(body["url"])
    assert (url.scheme, url.netloc) == ("farcaster", "connect")
    query = {k: v[0] for k, v in parse_qs(url.query).items()}
    assert query == {"channelToken": body["channelToken"], "nonce": "abcdef123456",
                     "siweUri": "https://app.example/login", "domain": "app.example",
                     "expirationTime": "2030-01-01T00:00:00.000Z"}


def test_status_is_pending_then_completed_with_the_answer() -> None:
    client, _ = _relay()
    token = client.post("/v1/channel", json={"siweUri": "https://a.example", "domain": "a.example"}).json()["channelToken"]
    auth = {"Authorization": f"Bearer {token}"}
    pending = client.get("/v1/channel/status", headers=auth)
    assert pending.status_code == 202 and pending.json()["state"] == "pending"
    assert client.post("/v1/channel/authenticate", headers=auth, json=ANSWER).status_code == 201
    done = client.get("/v1/channel/status", headers=auth)
    assert done.status_code == 200
    assert {k: done.json()[k] for k in ANSWER} == ANSWER and done.json()["state"] == "completed"
    assert client.get("/v1/channel/status", headers=auth).status_code == 401  # read once, then closed


def test_a_channel_is_answered_once() -> None:
    client, _ = _relay()
    token = client.post("/v1/channel", json={"siweUri": "https://a.example", "domain": "a.example"}).json()["channelToken"]
    auth = {"Authorization": f"Bearer {token}"}
    assert client.post("/v1/channel/authenticate", headers=auth, json=ANSWER).status_code == 201
    assert client.post("/v1/channel/authenticate", headers=auth, json=ANSWER).status_code == 409


def test_with_a_relay_key_only_the_keyed_client_answers() -> None:
    client, _ = _relay(Limits(auth_key="k" * 32))
    token = client.post("/v1/channel", json={"siweUri": "https://a.example", "domain": "a.example"}).json()["channelToken"]
    auth = {"Authorization": f"Bearer {token}"}
    assert client.post("/v1/channel/authenticate", headers=auth, json=ANSWER).status_code == 401
    keyed = {**auth, "X-Farcaster-Auth-Relay-Key": "k" * 32}
    assert client.post("/v1/channel/authenticate", headers=keyed, json=ANSWER).status_code == 201


def test_an_unknown_or_expired_channel_is_unauthorized() -> None:
    client, clock = _relay(Limits(ttl_ms=60_000))
    assert client.get("/v1/channel/status").status_code == 401
    assert client.get("/v1/channel/status", headers={"Authorization": "Bearer " + "x" * 32}).status_code == 401
    token = client.post("/v1/channel", json={"siweUri": "https://a.example", "domain": "a.example"}).json()["channelToken"]
    clock.ms += 60_000
    auth = {"Authorization": f"Bearer {token}"}
    assert client.get("/v1/channel/status", headers=auth).status_code == 401
    assert client.post("/v1/channel/authenticate", headers=auth, json=ANSWER).status_code == 401


def test_inputs_are_bounded() -> None:
    client, _ = _relay(Limits(max_channels=2))
    assert client.post("/v1/channel", json={"domain": "a.example"}).status_code == 400
    assert client.post("/v1/channel", json={"siweUri": "x" * 2000, "domain": "a"}).status_code == 400
    assert client.post("/v1/channel", json={"siweUri": "https://a", "domain": "a", "nonce": "short"}).status_code == 400
    assert client.post("/v1/channel", content=b"{" + b" " * 20_000).status_code == 400
    for _ in range(2):
        assert client.post("/v1/channel", json={"siweUri": "https://a", "domain": "a"}).status_code == 201
    assert client.post("/v1/channel", json={"siweUri": "https://a", "domain": "a"}).status_code == 429
    token = client.app.state.channels._open.__iter__().__next__()  # type: ignore[attr-defined]
    auth = {"Authorization": f"Bearer {token}"}
    for bad in ({**ANSWER, "fid": 0}, {**ANSWER, "fid": True}, {**ANSWER, "message": "m" * 5000},
                {**ANSWER, "verifications": ["v"] * 17}, {**ANSWER, "signature": ""}):
        assert client.post("/v1/channel/authenticate", headers=auth, json=bad).status_code == 400
    assert client.get("/v1/channel/status", headers=auth).status_code == 202
