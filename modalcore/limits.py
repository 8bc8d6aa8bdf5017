"""Fixed limits of the session engine's connection handling (README, "Limits the engine enforces").

Operator settings live in the config (`modalcore/server/config.py`, documented in
`config/engine.example.toml`); the numbers here are constants, kept in this one module so that
an operator reading the code finds them together.
"""

from __future__ import annotations

# A new socket must send its `join` within this time (else close 4003); until then no session
# exists for it.
JOIN_TIMEOUT_S = 10.0

# Frames over the size limit are answered `error too_large`; the socket is closed (1009) at
# this many.
TOO_LARGE_LIMIT = 3

# A resume token stays valid this long after the next `joined` replaced it (a reconnect that
# raced the `joined` frame still resumes); older generations are refused.
RESUME_GRACE_MS = 30_000

# A session none of whose intents was ever applied leaves memory this long after its last
# socket closed (a used one stays `idle_evict_s`); it is never written to the store.
UNUSED_SESSION_EVICT_MS = 60_000

# Live sessions one client address may hold, unless the config says otherwise
# (`max_sessions_per_address`).
DEFAULT_MAX_SESSIONS_PER_ADDRESS = 64
