"""Runs the local OpenID Connect provider (oidcprovider/provider.mjs, panva's oidc-provider)
on 127.0.0.1 and a free port, for development and tests of social sign-in (issue 15 §6)."""

from __future__ import annotations

import json
import os
import select
import subprocess
from pathlib import Path

from ..devchain.nodes import free_port

SCRIPT = Path(__file__).resolve().parents[2] / "oidcprovider" / "provider.mjs"
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
        self._process: subprocess.Popen[bytes] | None = None

    def start(self) -> DevOidcProvider:
        port = free_port()
        env = {**os.environ, "PORT": str(port), "REDIRECT_URI": self.redirect_uri,
               "CLIENT_ID": self.client_id}
        if self.client_secret is not None:
            env["CLIENT_SECRET"] = self.client_secret
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
