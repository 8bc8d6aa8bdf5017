"""Keeping credentials out of recordings: resume tokens and sign-in session tokens become
placeholders such as `<resume-token-1>`.

Whoever holds a session's resume token can take the session over while it is valid, and a
sign-in token speaks for the account at the host's backend. A recording is meant to be handed
around, so the recorder learns every such value as it appears and writes a placeholder instead:

- the token a socket was welcomed with, and the `resume` of every `join` and `joined` frame;
- any string under a key naming a token in `siwx` host events (`data.token`) and in command
  results (e.g. `SiwxVerified` → `{"ok": true, "token": ...}`).

Nothing here knows how tokens are built (their format may change); it replaces the values seen
in those places, wherever they appear later. The engine only passes these values through, so a
replay fed placeholders produces the same placeholders and stays exact.
"""

from __future__ import annotations


MIN_SECRET = 8  # shorter values are not credentials worth hiding (and would match by accident)
TOKEN_KEYS = ("token", "resume", "sessiontoken", "session_token", "accesstoken", "jwt")


def _is_token_key(key: object) -> bool:
    return isinstance(key, str) and key.lower() in TOKEN_KEYS


class Scrubber:
    def __init__(self) -> None:
        self.secrets: dict[str, str] = {}  # value -> placeholder
        self._counts: dict[str, int] = {}

    def learn(self, value: object, kind: str) -> None:
        """Remember `value` (a string) as a secret of `kind` ("resume-token", "session-token")."""
        if not isinstance(value, str) or len(value) < MIN_SECRET or value in self.secrets:
            return
        if value.startswith("<") and value.endswith(">"):
            return  # already a placeholder (a recording of a replay)
        self._counts[kind] = self._counts.get(kind, 0) + 1
        self.secrets[value] = f"<{kind}-{self._counts[kind]}>"

    def learn_keys(self, value: object, kind: str) -> None:
        """Learn every string found under a key naming a token, at any depth of `value`."""
        if isinstance(value, dict):
            for key, item in value.items():
                if _is_token_key(key):
                    self.learn(item, kind)
                self.learn_keys(item, kind)
        elif isinstance(value, list):
            for item in value:
                self.learn_keys(item, kind)

    def learn_frame(self, frame: dict[str, object]) -> None:
        """The secrets an outbound frame reveals."""
        if frame.get("t") == "joined":
            self.learn(frame.get("resume"), "resume-token")
        elif frame.get("t") == "host_event" and frame.get("kind") == "siwx":
            self.learn_keys(frame.get("data"), "session-token")

    def scrub(self, value: object) -> object:
        """`value` with every known secret replaced by its placeholder (a copy)."""
        if not self.secrets:
            return value
        if isinstance(value, str):
            exact = self.secrets.get(value)
            if exact is not None:
                return exact
            for secret in sorted(self.secrets, key=len, reverse=True):  # a token holding another
                if secret in value:
                    value = value.replace(secret, self.secrets[secret])
            return value
        if isinstance(value, dict):
            return {key: self.scrub(item) for key, item in value.items()}
        if isinstance(value, list):
            return [self.scrub(item) for item in value]
        return value
