"""Fixtures every test folder may use: the local dev chains (`devchains`, `devchain`)."""

pytest_plugins = ["modalcore.devchain.pytest_plugin"]
