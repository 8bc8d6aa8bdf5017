"""Dev-chain tests use `devchains`/`devchain`, registered for every folder by tests/conftest.py."""
