"""Owner-only files made once and shared by every process that starts with them (the engine's
secret, its signing key, the demo's master key): however many start together, all read the one
complete content that won."""

from __future__ import annotations

import os
import secrets
from pathlib import Path


def create_once(path: Path, content: str) -> str:
    """`path`'s content, after writing `content` there (mode 0600) if the file did not exist.

    The file appears complete or not at all: it is written under a temporary name and linked into
    place, so a process that starts at the same moment never reads it half written, and a file
    someone else made first is never overwritten."""
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w") as handle:
            handle.write(content + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        try:
            os.link(temporary, path)
        except FileExistsError:  # another process made it first: theirs stands
            pass
    finally:
        temporary.unlink(missing_ok=True)
    return path.read_text().strip()
