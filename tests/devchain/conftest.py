"""Dev-chain tests use the fixtures of modalcore.devchain.pytest_plugin (`devchains`,
`devchain`). The top-level tests/conftest.py may register that plugin for every test; when it
does not, it is registered here (once, so the nodes are started once per session)."""

from __future__ import annotations

import pytest

PLUGIN = "modalcore.devchain.pytest_plugin"


def pytest_configure(config: pytest.Config) -> None:
    if not config.pluginmanager.has_plugin(PLUGIN):
        config.pluginmanager.import_plugin(PLUGIN)
