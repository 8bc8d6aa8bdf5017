"""Owner-only files: made once and shared by every process that starts with them (the engine's
secret, its signing key, the demo's master key): however many start together, all read the one
complete content that won; and the stores' SQLite files, created 0600. A key file or store file
that exists already with group or other permissions (made 0644 by hand, or by an older engine)
is narrowed to 0600 when the engine reads it (issue 38 item 7)."""

from __future__ import annotations

import logging
import os
import secrets
import sqlite3
from pathlib import Path
from typing import Literal


log = logging.getLogger(__name__)


def owner_only(path: Path) -> None:
    """`path` (which exists) loses group and other permissions; a file the engine may not chmod
    (another owner, a read-only mount) is left as it is, with a warning naming it."""
    try:
        if path.stat().st_mode & 0o077:
            path.chmod(0o600)
            log.info("%s was readable by others: narrowed to 0600", path)
    except OSError as error:
        log.warning("%s is readable by others and could not be narrowed to 0600 (%s)", path,
                    type(error).__name__)


def read_private(path: Path) -> str:
    """The stripped text of an existing key file, narrowed to 0600 first (FileNotFoundError if
    there is none)."""
    text = path.read_text().strip()
    owner_only(path)
    return text


def create_once(path: Path, content: str) -> str:
    """`path`'s content, after writing `content` there (mode 0600) if the file did not exist.

    The file appears complete or not at all: it is written under a temporary name and linked into
    place, so a process that starts at the same moment never reads it half written, and a file
    someone else made first is never overwritten."""
    try:
        return read_private(path)
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


def private_file(path: Path) -> None:
    """Make `path` (empty) readable by its owner only if it does not exist; an existing file
    loses group and other permissions. Store files hold sessions, code digests and sealed keys
    (issue 27): created 0600, never through the umask's 0644."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        owner_only(path)
        return
    os.close(fd)


def private_sqlite(path: str | Path, *,
                   isolation_level: Literal["DEFERRED", "IMMEDIATE"] | None = None) -> sqlite3.Connection:
    """A SQLite connection to `path` (":memory:" too) whose file is made by `private_file` first;
    SQLite gives its -wal and -shm files the database file's permissions."""
    if str(path) != ":memory:":
        private_file(Path(path))
    return sqlite3.connect(str(path), check_same_thread=False, isolation_level=isolation_level)
