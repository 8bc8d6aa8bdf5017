"""Runs the local OpenID Connect provider (oidcprovider/provider.mjs, panva's oidc-provider)
on 127.0.0.1 and a free port, for development and tests of social sign-in (issue 15 §6).

One provider process stands in for every social provider (issue 28): `for_socials` registers
one client per provider name (`modalcore-<name>`, redirecting to the engine's callback for that
name), so each provider is its own client of the same issuer and an ID token made for one is
refused by another (its audience differs)."""

from __future__ import annotations

import json
import os
import select
import subprocess
from collections.abc import Iterable
from pathlib import Path

from modalcore_dev.devchain.nodes import free_port

SCRIPT = Path(__file__).resolve().parents[1] / "oidcprovider" / "provider.mjs"
READY_TIMEOUT_S = 30.0


class OidcProviderStartError(Exception):
    """The provider process exited or did not report ready (is `make deps` done?)."""


class DevOidcProvider:
    def __init__(self, redirect_uri: str, client_id: str = "modalcore-dev",
                 client_secret: str | None = None) -> None:
        self.redirect_uri = redirect_uri
        self.client_id = client_id
        self.client_secret = client_secret
        self.issuer = ""
        self.clients: dict[str, str] = {}  # social provider name -> its redirect URI (for_socials)
        self._process: subprocess.Popen[bytes] | None = None

    @classmethod
    def for_socials(cls, engine_url: str, providers: Iterable[str]) -> DevOidcProvider:
        """One public client per social provider, each redirecting to its own callback."""
        names = tuple(providers)
        made = cls(f"{engine_url}/embedded/oidc/callback/{names[0]}", f"modalcore-{names[0]}")
        made.clients = {name: f"{engine_url}/embedded/oidc/callback/{name}" for name in names}
        return made

    def client_id_for(self, provider: str) -> str:
        return f"modalcore-{provider}" if self.clients else self.client_id

    def socials_section(self) -> dict[str, dict[str, str]]:
        """The engine's `[embedded.socials]` entries: every provider this process stands in for."""
        names = tuple(self.clients) or ("google",)
        return {name: {"issuer": self.issuer, "client_id": self.client_id_for(name)} for name in names}

    def start(self) -> DevOidcProvider:
        port = free_port()
        env = {**os.environ, "PORT": str(port), "REDIRECT_URI": self.redirect_uri,
               "CLIENT_ID": self.client_id}
        if self.client_secret is not None:
            env["CLIENT_SECRET"] = self.client_secret
        if self.clients:
            env["CLIENTS"] = json.dumps([
                {"client_id": self.client_id_for(name), "redirect_uri": uri}
                for name, uri in self.clients.items()])
        self._process = subprocess.Popen(
            ["node", str(SCRIPT)], cwd=SCRIPT.parent, env=env, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL)
        assert self._process.stdout is not None
        ready, _, _ = select.select([self._process.stdout], [], [], READY_TIMEOUT_S)
        line = self._process.stdout.readline() if ready else b""
        try:
            self.issuer = str(json.loads(line)["issuer"])
        except (ValueError, KeyError, TypeError):
            self.stop()
            raise OidcProviderStartError(
                f"the OpenID provider did not start (node {SCRIPT})") from None
        return self

    def stop(self) -> None:
        if self._process is not None:
            self._process.terminate()
            try:
                self._process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
            self._process = None
