"""modalcore: the session engine of a server-driven wallet-connection modal."""

# The version when the package's metadata cannot be read (a checkout on sys.path, not installed);
# pyproject.toml's `version` is the one published (tests/test_installable.py keeps them equal).
__version__ = "0.1.0"
