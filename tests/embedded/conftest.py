"""The embedded tests' shared fixtures: a real local SMTP server and the wallet mailing through it."""

from .world import smtp, wallet

__all__ = ["smtp", "wallet"]
