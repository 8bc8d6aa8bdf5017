"""Server tests run a real uvicorn on 127.0.0.1 (a free port, in a thread) per test module."""

from __future__ import annotations

from modalcore_testing import running_server  # noqa: F401  (the module-scoped server fixture)
