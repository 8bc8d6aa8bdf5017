"""The operator's master key (issue 15 §3): 32 bytes from an environment variable or a file,
written as 64 hex digits or base64. It only wraps per-user data keys; it never touches a
private key directly. Its id (a hash) is stored next to each wrapped key so a wrong key is
recognised before any decryption is tried.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..keyfiles import owner_only

MASTER_KEY_ENV = "MODALCORE_MASTER_KEY"
MASTER_KEY_FILE_ENV = "MODALCORE_MASTER_KEY_FILE"
KEY_BYTES = 32


class MasterKeyError(ValueError):
    """No master key configured, or it is not 32 bytes of hex or base64."""


class WrongMasterKey(MasterKeyError):
    """The master key is not the one the stored data keys were wrapped with."""

    def __init__(self) -> None:
        super().__init__("the master key does not match the stored keys")


@dataclass(frozen=True)
class MasterKey:
    secret: bytes = field(repr=False)

    def __post_init__(self) -> None:
        if len(self.secret) != KEY_BYTES:
            raise MasterKeyError(f"a master key is {KEY_BYTES} bytes")

    @property
    def key_id(self) -> str:
        return hashlib.sha256(b"modalcore master key id\x00" + self.secret).hexdigest()[:16]

    @classmethod
    def parse(cls, text: str) -> MasterKey:
        value = text.strip()
        raw: bytes | None = None
        if len(value) == 2 * KEY_BYTES:
            try:
                raw = bytes.fromhex(value)
            except ValueError:
                raw = None
        if raw is None:
            try:
                raw = base64.b64decode(value + "=" * (-len(value) % 4), altchars=b"-_"
                                       if ("-" in value or "_" in value) else None, validate=True)
            except (binascii.Error, ValueError):
                raw = None
        if raw is None or len(raw) != KEY_BYTES:
            raise MasterKeyError(f"a master key is {KEY_BYTES} bytes written as hex or base64")
        return cls(raw)

    @classmethod
    def read_file(cls, path: str | Path) -> MasterKey:
        try:
            text = Path(path).read_text(encoding="ascii")
            owner_only(Path(path))
        except (OSError, UnicodeDecodeError) as error:
            raise MasterKeyError(f"cannot read the master key file {path}: "
                                 f"{type(error).__name__}") from None
        return cls.parse(text)

    @classmethod
    def generate(cls) -> MasterKey:
        return cls(secrets.token_bytes(KEY_BYTES))

    def hex(self) -> str:
        return self.secret.hex()


def load_master_key(environ: Mapping[str, str] | None = None) -> MasterKey:
    """From MODALCORE_MASTER_KEY (the key itself) or MODALCORE_MASTER_KEY_FILE (a path)."""
    env = os.environ if environ is None else environ
    if env.get(MASTER_KEY_ENV):
        return MasterKey.parse(env[MASTER_KEY_ENV])
    if env.get(MASTER_KEY_FILE_ENV):
        return MasterKey.read_file(env[MASTER_KEY_FILE_ENV])
    raise MasterKeyError(f"set {MASTER_KEY_ENV} or {MASTER_KEY_FILE_ENV}")
