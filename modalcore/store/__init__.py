"""Where sessions live between inputs and across engine restarts: msgpack bytes per session."""

from .base import DEFAULT_TTL_MS, SessionStore
from .memory import MemoryStore
from .sqlite import SqliteStore

__all__ = ["DEFAULT_TTL_MS", "MemoryStore", "SessionStore", "SqliteStore"]
