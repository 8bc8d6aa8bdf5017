"""Social sign-in with OAuth 2.0 providers that issue no ID token (issue 15: GitHub, X,
Discord): who signed in comes from the provider's user endpoint, called with the access token
(`Authorization: Bearer`). Each provider's endpoints, scope and field mapping are built in; the
operator may point `userinfo_url` (and the fields, as dotted paths) elsewhere."""

from __future__ import annotations

from dataclasses import dataclass

from ..rules import limits as L

MAX_ID_CHARS = L.SOCIAL_USER_ID_CHARS
MAX_NAME_CHARS = L.SOCIAL_USER_NAME_CHARS
MAX_EMAILS = L.SOCIAL_USER_EMAILS


class UserInfoError(ValueError):
    """The user endpoint's answer names nobody (no id, or not a string/number)."""


@dataclass(frozen=True)
class UserEndpoint:
    url: str
    id_field: str  # dotted path in the JSON answer: "id", "data.id"
    username_field: str = ""
    email_field: str = ""
    # asked when the user answer has no email (GitHub: a private email is not in /user): a
    # list of {email, primary, verified}; the primary verified one is taken
    emails_url: str = ""


@dataclass(frozen=True)
class OAuth2Defaults:
    authorization_endpoint: str
    token_endpoint: str
    scope: str
    user: UserEndpoint


BUILT_IN: dict[str, OAuth2Defaults] = {
    "github": OAuth2Defaults(
        "https://github.com/login/oauth/authorize", "https://github.com/login/oauth/access_token",
        "read:user user:email", UserEndpoint("https://api.github.com/user", "id", "login", "email",
                                             "https://api.github.com/user/emails")),
    "discord": OAuth2Defaults(
        "https://discord.com/oauth2/authorize", "https://discord.com/api/oauth2/token",
        "identify email",
        UserEndpoint("https://discord.com/api/users/@me", "id", "username", "email")),
    "x": OAuth2Defaults(
        "https://x.com/i/oauth2/authorize", "https://api.x.com/2/oauth2/token",
        "users.read tweet.read",
        UserEndpoint("https://api.x.com/2/users/me", "data.id", "data.username")),
}


def _at(doc: object, path: str) -> object:
    for part in path.split(".") if path else ():
        if not isinstance(doc, dict):
            return None
        doc = doc.get(part)
    return doc if path else None


def identity(endpoint: UserEndpoint, doc: object) -> tuple[str, str | None, str | None]:
    """(id, username, email) from the user endpoint's JSON; UserInfoError when there is no id."""
    raw = _at(doc, endpoint.id_field)
    if isinstance(raw, bool) or not isinstance(raw, (str, int)):
        raise UserInfoError("the provider's user endpoint names no user (no id)")
    subject = str(raw)
    if not subject or len(subject) > MAX_ID_CHARS:
        raise UserInfoError("the provider's user endpoint sent an empty or oversized id")
    return subject, _text(_at(doc, endpoint.username_field)), _text(_at(doc, endpoint.email_field))


def _text(value: object) -> str | None:
    return value[:MAX_NAME_CHARS] if isinstance(value, str) and value else None


def primary_email(doc: object) -> str | None:
    """The primary, verified address of a GitHub-style email list (`GET /user/emails`:
    [{email, primary, verified, ...}]); None when there is none (only the first MAX_EMAILS
    entries are read)."""
    if not isinstance(doc, list):
        return None
    for entry in doc[:MAX_EMAILS]:
        if isinstance(entry, dict) and entry.get("primary") is True and entry.get("verified") is True:
            return _text(entry.get("email"))
    return None
