"""Writes the reference pages that are generated from the pydantic models: the host options
(`modalcore/slices/options.py`, what `createModal` sends) and the operator config
(`modalcore/server/config.py` and the sections other modules read). Types, defaults and bounds
come from the models; descriptions from the comment next to each field in the model's source
(else from NOTES below, for fields whose source says nothing).

    .venv/bin/python docs/gen_reference.py          # rewrite the pages
    .venv/bin/python docs/gen_reference.py --check  # exit 1 when a committed page is stale

tests/test_docs_reference.py runs the check.
"""

from __future__ import annotations

import inspect
import io
import json
import re
import sys
import tokenize
import types
import typing
from pathlib import Path
from typing import Any, Literal, Union

from pydantic import BaseModel
from pydantic.fields import FieldInfo

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's modalcore


from modalcore.aa.config import SmartAccountChain
from modalcore.aa.policy import SponsorPolicy
from modalcore.directory.backend.source import DirectoryConfig
from modalcore.embedded.budget import BudgetLimits
from modalcore.durable.config import DatabaseSection
from modalcore.embedded.setup import EmbeddedSection, FarcasterSection, SmtpSection, SocialSection
from modalcore.server.config import (AnalyticsConfig, EngineConfig, NativeCurrency, Network,
                                     Project, StoreConfig, TokenConfig, WalletConnectConfig)
from modalcore.slices.options import CustomWallet, Features, HostOptions, Metadata, SiwxOptions

DOCS = Path(__file__).resolve().parent
HOST_PAGE = DOCS / "hosts" / "options.md"
OPERATOR_PAGE = DOCS / "operators" / "config.md"

# Descriptions of fields whose model source carries no comment, keyed "Model.field".
# tests/test_docs_reference.py fails when a key names no field.
NOTES: dict[str, str] = {
    "HostOptions.networks": "CAIP-2 ids of the networks the dApp offers (e.g. `eip155:1`, `solana:…`); the engine's catalogue and the operator's `[networks]` describe them",
    "HostOptions.defaultNetwork": "the network active before the visitor picks one",
    "HostOptions.metadata": "the dApp as wallets are told about it (WalletConnect proposals, sign-in)",
    "HostOptions.features": "which parts of the modal are offered; the operator's `[projects.<id>.features]` overrides them",
    "HostOptions.themeMode": "dark or light; `setThemeMode()` changes it live",
    "HostOptions.themeVariables": "`--w3m-*` variables (accent, font, radius, …); `setThemeVariables()` changes them live",
    "HostOptions.siwx": "sign-in with the connected account (EIP-4361 / CAIP-122); absent: no sign-in step",
    "HostOptions.embedded": "draw the modal inside `container` instead of as a dialog",
    "HostOptions.disableAppend": "do not append the modal to `document.body`; it mounts in `container`",
    "HostOptions.featuredWalletIds": "directory wallet ids shown first",
    "HostOptions.includeWalletIds": "only these directory wallets are listed",
    "HostOptions.excludeWalletIds": "these directory wallets are never listed",
    "HostOptions.customWallets": "wallets of the dApp's own, listed beside the directory's",
    "HostOptions.manualWCControl": "the host drives WalletConnect pairing itself; `open()` leads to the pairing views",
    "HostOptions.allowUnsupportedChain": "a wallet on a network the dApp does not list stays connected",
    "HostOptions.enableNetworkSwitch": "the visitor may switch networks from the modal",
    "HostOptions.debug": "log refused intents and engine problems to the console",
    "Features.swaps": "Swap in the Account view",
    "Features.onramp": "Buy in the Account view",
    "Features.receive": "Receive in the Account view",
    "Features.send": "Send in the Account view",
    "Features.email": "email sign-in (the embedded wallet), when the engine has `[embedded.smtp]`",
    "Features.emailShowWallets": "false: the wallets are collapsed into one \"Continue with a wallet\" row beside email or socials",
    "Features.history": "the Activity tab",
    "Features.analytics": "false: no tracking event is sent for this page",
    "Features.allWallets": "the All Wallets entry",
    "Features.legalCheckbox": "\"I agree to our terms of service and privacy policy\" must be ticked before any method; "
                              "shown only when `termsConditionsUrl` or `privacyPolicyUrl` is set too (its links)",
    "Features.smartSessions": "accepted for AppKit compatibility; no effect",
    "Features.collapseWallets": "one \"Continue with a wallet\" row instead of the wallet rows",
    "Features.continueOnPhone": "the modal's footer offers \"Continue on your phone\" (a single-use link to this session; [Continue on your phone](../features/continue-on-phone.md))",
    "Features.pay": "accepted for AppKit compatibility; no effect",
    "Features.socials": "social sign-ins offered, in order (each also needs the engine's `[embedded.socials.<name>]`); `farcaster` needs the engine's `[embedded.farcaster]`",
    "Features.connectMethodsOrder": "the order of email, social and wallet on Connect; default behaviour.md §1's (wallet first when one is installed)",
    "Metadata.name": "the dApp's name",
    "Metadata.description": "one line about the dApp",
    "Metadata.url": "the dApp's URL",
    "Metadata.icons": "icon URLs",
    "SiwxOptions.required": "the visitor must sign in; declining disconnects",
    "SiwxOptions.statement": "the statement line of the sign-in message",
    "SiwxOptions.resources": "URIs listed in the message's Resources",
    "SiwxOptions.expirationSeconds": "how long a sign-in session lasts",
    "CustomWallet.id": "a stable id of the dApp's choosing",
    "CustomWallet.name": "shown in the list",
    "CustomWallet.image_url": "its icon",
    "CustomWallet.mobile_link": "deep link on a phone",
    "CustomWallet.desktop_link": "desktop app link",
    "CustomWallet.webapp_link": "web wallet link",
    "EngineConfig.projects": "projects by id: the `project` query parameter of `/ws` names one",
    "EngineConfig.networks": "networks by CAIP-2 id, over the engine's built-in catalogue",
    "EngineConfig.store": "the session store",
    "EngineConfig.analytics": "where tracking events go",
    "EngineConfig.walletconnect": "the WalletConnect relay",
    "Project.name": "shown on the operator pages",
    "Project.origins": "origins allowed to embed the modal (`*` is one host label or any port; no port: the scheme's default; no scheme: http and https)",
    "HostOptions.privacyPolicyUrl": "the legal checkbox's privacy policy link: http(s) only",
    "EngineConfig.secret_file": "where the generated secret is kept (created 0600)",
    "StoreConfig.kind": "`memory` (nothing survives a restart), `sqlite`, or `redis` (several workers share the sessions)",
    "StoreConfig.path": "kind `sqlite`: the database file",
    "StoreConfig.sentinels": "kind `redis` behind Redis Sentinel: the sentinels (`host:port`, at most 16) that name the primary; `url` then gives only the database number ([several hosts](several-hosts.md#redis-sentinel))",
    "StoreConfig.sentinel_service": "the name the sentinels monitor the primary under",
    "StoreConfig.replicas": "a save counts as landed once this many replicas have it (Redis `WAIT`, up to 1 s, else kept and retried); 0: the primary's answer is enough",
    "StoreConfig.ttl_hours": "a saved session and its resume token last this long since last use",
    "NativeCurrency.name": "e.g. Ether",
    "NativeCurrency.symbol": "e.g. ETH",
    "NativeCurrency.decimals": "",
    "Network.name": "shown in the network list",
    "Network.rpc": "JSON-RPC URLs, the first used",
    "Network.native": "the native currency",
    "Network.native_price": "USD price of the native currency, when the operator knows it (fiat shown only then)",
    "Network.explorer": "block explorer URL",
    "Network.image": "the network's image (the host events' `network.image`)",
    "Network.testnet": "show '0.00' instead of fetching balances (behaviour.md §5)",
    "Network.tokens": "ERC-20s whose balances the engine reads",
    "Network.simulation_ms": "how long an approval waits for the node's simulation (and a smart account's bundler check) before it shows the outcome estimated from the call data",
    "TokenConfig.address": "contract address",
    "TokenConfig.symbol": "",
    "TokenConfig.name": "",
    "TokenConfig.decimals": "",
    "TokenConfig.icon": "icon URL",
    "AnalyticsConfig.mode": "`local`: kept in the store, counted at `/operator/analytics`; `hosted`: posted to `{endpoint}/e` (behaviour.md §7); `off`: dropped",
    "AnalyticsConfig.test": "error telemetry (at most 5 per 60 s) only when true",
    "WalletConnectConfig.relay_url": "the relay the engine keeps one connection to (`ws://` or `wss://`)",
    "WalletConnectConfig.project_id": "your WalletConnect projectId, sent to the relay",
    "SmtpSection.host": "the SMTP server",
    "SmtpSection.port": "e.g. 587 with `starttls`, 465 with `ssl`",
    "SmtpSection.tls": "`none`, `starttls` or `ssl`",
    "SmtpSection.user": "login, when the server asks for one",
    "SmtpSection.password": "",
    "SocialSection.client_id": "the client registered at the provider; its redirect is `{public_url}/embedded/oidc/callback/{provider}`",
    "SocialSection.client_secret": "",
    "SocialSection.authorization_endpoint": "kind `oidc` without discovery, or an override",
    "SocialSection.token_endpoint": "kind `oidc` without discovery, or an override",
    "SocialSection.jwks_uri": "kind `oidc` without discovery: the keys ID tokens are signed with",
    "EmbeddedSection.db": "email codes (digests), sealed keys, device keys, passkeys, mail budgets, the gas sponsored per smart account and day and the send intents; one file every worker of a host shares (unused when `[database] url` is set)",
    "DatabaseSection.url": "`postgresql://user:password@host:5432/name`; empty: the SQLite file `[embedded] db`. `MODALCORE_DATABASE_URL` stands in for it (the password then stays out of the file)",
    "DatabaseSection.pool_min": "connections each engine process keeps open",
    "DatabaseSection.pool_max": "connections each engine process opens at most (hosts × workers × this ≤ the server's `max_connections`)",
    "EmbeddedSection.master_key_file": "the master key wrapping the per-user data keys; else `MODALCORE_MASTER_KEY` / `MODALCORE_MASTER_KEY_FILE`",
    "EmbeddedSection.smtp": "absent: email sign-in is not offered",
    "EmbeddedSection.socials": "social providers by name; absent: no social button",
    "EmbeddedSection.mail_budget": "sign-in codes mailed, over sliding windows",
    "SmtpSection.sender": "the From header, e.g. `Wallet <no-reply@example.com>`",
    "SmtpSection.ca_file": "a CA bundle to trust for the server's certificate",
    "SocialSection.kind": "`oidc` (ID token) or `oauth2` (GitHub, X, Discord: identity from the user endpoint)",
    "SocialSection.issuer": "kind `oidc`: the issuer (discovery), or give the three endpoints",
    "SocialSection.userinfo_url": "kind `oauth2`: default the provider's real user endpoint",
    "SocialSection.scope": "default: the provider's (GitHub `read:user user:email`)",
    "SocialSection.id_field": "kind `oauth2`: override of the built-in field mapping",
    "SocialSection.username_field": "kind `oauth2`: override of the built-in field mapping",
    "SocialSection.email_field": "kind `oauth2`: override of the built-in field mapping",
    "BudgetLimits.address_per_minute": "per client address (an IPv6 address: per /64)",
    "BudgetLimits.address_per_hour": "per client address",
    "BudgetLimits.session_per_hour": "per session",
    "FarcasterSection.relay_url": "the Farcaster auth relay (the hosted one, or `python -m modalcore_dev.farcaster`)",
    "FarcasterSection.rpc_url": "an RPC of the ID registry's chain (OP Mainnet)",
    "FarcasterSection.id_registry": "the IdRegistry's address (`idOf(custody)` must be the answer's FID)",
    "FarcasterSection.domain": "the domain the sign-in messages must name",
    "FarcasterSection.siwe_uri": "the URI the sign-in messages must name",
    "FarcasterSection.channel_ttl_ms": "a channel not answered by then is replaced by a fresh one",
    "BudgetLimits.email_per_hour": "per email, besides one code per 30 s per email",
    "BudgetLimits.project_per_hour": "per project",
    "BudgetLimits.engine_per_hour": "engine-wide",
    "DirectoryConfig.file": "the wallet directory file; default the packaged `modalcore/data/wallets.json`",
    "DirectoryConfig.images": "a folder of wallet images the engine serves",
    "DirectoryConfig.api_url": "a hosted directory instead of the file",
    "DirectoryConfig.project_id": "sent to the hosted directory",
    "DirectoryConfig.public_url": "the engine's public address, needed when hosts load the engine from another origin (wallet image URLs)",
}

# Sections the server reads as plain tables (no model): key, default, meaning.
PLAIN_INTRO = {
    "siwx": "Sign-in (SIWX): the store of nonces and sessions, and the engine's signing key.",
    "names": "Account names (see [Account names](../features/names.md)).",
    "blockchain_api": "The hosted Blockchain API; unset, the engine's own services answer.",
}
PLAIN_SECTIONS: dict[str, list[tuple[str, str, str]]] = {
    "siwx": [
        ("db", '".modalcore/siwx.db"', "sign-in nonces and sessions (SQLite; `:memory:` for tests; unused when `[database] url` is set: they go to PostgreSQL)"),
        ("key_file", '".modalcore/engine.key"', "the engine's secp256k1 key: signs session tokens and audit heads; its address is `GET /v1/engine`"),
    ],
    "names": [
        ("db", '".modalcore/names.db"', "the engine's own name registry (SQLite; unused when `[database] url` is set: it goes to PostgreSQL)"),
        ("suffix", '".reown.id"', "the suffix registered names carry"),
        ("api_url", '""', "the hosted profile API ([behaviour §7](../contributors/behaviour.md#s7)) instead of the db"),
        ("project_id", '""', "sent to the hosted profile API"),
    ],
    "blockchain_api": [
        ("base_url", '""', "the hosted Blockchain API ([behaviour §7](../contributors/behaviour.md#s7)): history with onramp purchases, swap quotes on its networks, onramp options, quotes and URLs; unset, the engine's own services answer"),
        ("project_id", '""', "sent to the hosted API"),
    ],
}


def field_comments(model: type[BaseModel]) -> dict[str, str]:
    """The comment on each field's line, or the comment lines right above it."""
    source = inspect.getsource(model)
    lines = source.splitlines()
    comments: dict[int, str] = {}
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            comments[token.start[0]] = token.string.lstrip("#").strip()
    found: dict[str, str] = {}
    for number, line in enumerate(lines, start=1):
        match = re.match(r"^    (\w+)\s*:", line)
        if match is None or match.group(1) not in model.model_fields:
            continue
        above: list[str] = []
        previous = number - 1
        while previous in comments and lines[previous - 1].lstrip().startswith("#"):
            above.insert(0, comments[previous])
            previous -= 1
        parts = [*above, comments.get(number, "") if not line.lstrip().startswith("#") else ""]
        text = " ".join(part for part in parts if part)
        if text:
            found[match.group(1)] = text
    return found


def describe(model: type[BaseModel], name: str) -> str:
    text = field_comments(model).get(name) or NOTES.get(f"{model.__name__}.{name}", "")
    text = re.sub(r"\s*\([^()]*\bissue \d+[^()]*\)", "", text)  # user docs name features, not issues
    # a code comment's "behaviour.md §N" becomes a link to that section (both pages sit one level down)
    text = re.sub(r"behaviour\.md (§(\d))", r"[behaviour \1](../contributors/behaviour.md#s\2)", text)
    return text.replace("|", "\\|")


def bounds(metadata: list[Any], annotation: Any) -> list[str]:
    """Length bounds say what they count: entries of a list or table, characters of a string."""
    base = typing.get_args(annotation)[0] if typing.get_origin(annotation) is typing.Annotated else annotation
    unit = " entries" if typing.get_origin(base) in (tuple, list, dict) else " chars" if base is str else ""
    words: list[str] = []
    for item in metadata:
        for attribute, template in (("min_length", "at least {}" + unit), ("max_length", "at most {}" + unit),
                                    ("ge", "≥ {}"), ("gt", "> {}"), ("le", "≤ {}"), ("lt", "< {}"),
                                    ("pattern", "matches `{}`")):
            value = getattr(item, attribute, None)
            if value is None:
                continue
            if attribute == "min_length" and value == 1:
                words.append("not empty")
            else:
                words.append(template.format(f"{value:,}" if isinstance(value, int) else value))
    return words


def type_text(annotation: Any) -> str:
    origin = typing.get_origin(annotation)
    arguments = typing.get_args(annotation)
    if origin is typing.Annotated:
        inner, *metadata = arguments
        words = bounds([m for m in metadata if not isinstance(m, FieldInfo)]
                       + [x for m in metadata if isinstance(m, FieldInfo) for x in m.metadata], inner)
        return type_text(inner) + (f" ({', '.join(words)})" if words else "")
    if origin in (Union, types.UnionType):
        kept = [a for a in arguments if a is not type(None)]
        text = " or ".join(type_text(a) for a in kept)
        return text + (" or unset" if len(kept) < len(arguments) else "")
    if origin is Literal:
        return " \\| ".join(json.dumps(a) for a in arguments)
    if origin in (tuple, list):
        return f"list of {type_text(arguments[0])}"
    if origin is dict:
        return f"table of {type_text(arguments[1])} by {type_text(arguments[0])}"
    if annotation is Any or annotation is object:
        return "any value"
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return f"[{annotation.__name__}](#{annotation.__name__.lower()})"
    if isinstance(annotation, type):
        return {"str": "string", "int": "integer", "float": "number", "bool": "boolean"}.get(
            annotation.__name__, annotation.__name__)
    return str(annotation)


def default_text(field: FieldInfo) -> str:
    if field.is_required():
        return "required"
    value = field.get_default(call_default_factory=True)
    if isinstance(value, BaseModel):
        return "its defaults"
    if isinstance(value, tuple):
        value = list(value)
    if value is None:
        return "unset"
    return f"`{json.dumps(value, ensure_ascii=False)}`"


def table(model: type[BaseModel], skip: tuple[str, ...] = ()) -> list[str]:
    rows = ["| key | type | default | meaning |", "| --- | --- | --- | --- |"]
    for name, field in model.model_fields.items():
        if name in skip:
            continue
        words = bounds(field.metadata, field.annotation)
        kind = type_text(field.annotation) + (f" ({', '.join(words)})" if words else "")
        rows.append(f"| `{name}` | {kind} | {default_text(field)} | {describe(model, name)} |")
    return rows


def section(title: str, anchor_model: type[BaseModel], intro: str, skip: tuple[str, ...] = ()) -> list[str]:
    return [f"## `{title}` {{#{anchor_model.__name__.lower()}}}", "", intro, "", *table(anchor_model, skip), ""]


HEADER = "<!-- generated by docs/gen_reference.py from the pydantic models: do not edit by hand -->"


def host_page() -> str:
    lines = [
        "# Host options reference", "", HEADER, "",
        "What `createModal({...})` sends the engine, validated by `HostOptions` in "
        "`modalcore/slices/options.py` (unknown keys are ignored; a value out of bounds refuses "
        "the join with `goodbye invalid_options`). Besides these, the script itself reads "
        "`projectId`, `engineUrl`, `container` and, for tests, `socket` and `storage` "
        "(see [Embedding](embedding.md)). Bounds are those of [Limits](../operators/limits.md).", "",
        *section("createModal options", HostOptions, "The top level."),
        *section("features", Features, "`features: {...}`; the operator's project config may override each."),
        *section("metadata", Metadata, "`metadata: {...}`."),
        *section("siwx", SiwxOptions, "`siwx: {...}`: sign-in. `siweConfig` together with `siwx` is refused."),
        *section("customWallets", CustomWallet, "Each entry of `customWallets: [...]`."),
    ]
    return "\n".join(lines).rstrip("\n") + "\n"


def operator_page() -> str:
    lines = [
        "# Operator config reference", "", HEADER, "",
        "`python -m modalcore serve --config engine.toml` (TOML, or JSON with the same shape in a "
        "file ending in `.json`). Relative paths resolve against the config file's folder. "
        "`config/engine.example.toml` is a commented example; [Install and run](install.md) "
        "says what `serve` does with it.", "",
        *section("Top level", EngineConfig, "Keys outside any section.",
                 skip=("base_dir",)),
        *section("[projects.<id>]", Project, "One table per project; `projects` are keyed by the id hosts pass as `projectId`. "
                 "By default a project allows only its `origins` and pages on the visitor's own machine: "
                 "hosting domains anyone can register are listed explicitly "
                 "([Security: allowed origins](security.md#allowed-origins))."),
        *section("[networks.\"<caip2>\"]", Network, "One table per network, keyed by CAIP-2 id; the built-in catalogue is under them."),
        *section("native", NativeCurrency, "`native = {...}` of a network."),
        *section("tokens", TokenConfig, "Each entry of a network's `tokens = [...]`."),
        *section("[store]", StoreConfig, "The session store."),
        *section("[analytics]", AnalyticsConfig, "Tracking events (see [Analytics](analytics.md))."),
        *section("[walletconnect]", WalletConnectConfig, "The relay (see [WalletConnect](../features/walletconnect.md))."),
        *section("[embedded]", EmbeddedSection, "The embedded wallet (see [Embedded wallet](../features/embedded-wallet.md))."),
        *section("[embedded.smtp]", SmtpSection, "The mail server sign-in codes go through."),
        *section("[embedded.mail_budget]", BudgetLimits, "Codes mailed over sliding windows; 0 turns one budget off."),
        *section("[embedded.socials.<name>]", SocialSection, "One provider: `google`, `x`, `discord`, `github`, `apple` or `facebook`."),
        *section("[embedded.farcaster]", FarcasterSection,
                 "Sign in with Farcaster (see [Embedded wallet](../features/embedded-wallet.md))."),
        *section("[smart_accounts.chains.\"<caip2>\"]", SmartAccountChain,
                 "ERC-4337 smart accounts on one eip155 chain: its bundler, EntryPoint v0.7, account factory and verifying paymaster; a chain without a table has no smart accounts."),
        *section("[smart_accounts.sponsor]", SponsorPolicy,
                 "Which operations the paymaster sponsors; outside it the account pays its gas; absent: nothing is sponsored."),
        *section("[directory]", DirectoryConfig, "The wallet directory."),
        *section("[database]", DatabaseSection,
                 "PostgreSQL for the durable records, shared by several hosts (see [Several hosts](several-hosts.md)). "
                 "Without a `url` the embedded wallet keeps its records in the SQLite file `[embedded] db` (one host, "
                 "no database server), and sign-in and names in `[siwx] db` and `[names] db`. With one, the wallet's sealed "
                 "keys, device keys, passkeys, email codes, mail budgets, sponsoring ledger and send intents, and the "
                 "sign-in nonces and sessions and the engine's names, go to PostgreSQL, through the same stores and with the same "
                 "guarantees: a budget is decided and charged in one transaction (advisory locks per budget key, so "
                 "two hosts never both spend its last unit), keys are sealed before they are written. The schema is "
                 "migrations: run `modalcore db upgrade --config engine.toml` once per release before starting the "
                 "engines (`serve` refuses an older schema with one line, exit 2); `modalcore db status` names the "
                 "versions; `modalcore db copy --config engine.toml` moves a one-host `embedded.db`, `siwx.db` and `names.db` "
                 "into an upgraded, empty database in one transaction (stop the host first). The driver is psycopg 3 with its pool (the `postgres` extra, "
                 "in the lock). `modalcore keys rotate-master-key --db postgresql://...` re-wraps the shared keys. "
                 "While the server cannot be reached, the call that finds it so waits at most 5 s for a connection "
                 "and fails, typed (nothing is retried behind the visitor's back); every next call first checks that "
                 "the server accepts a connection at all (0.25 s at most) and fails the same way at once when it does "
                 "not, so the worker's other sessions are not held for 5 s a call. That engine's `/healthz` answers "
                 "503 with `postgres: ...` (no password) until the server answers again; the first call after it is back "
                 "connects ([when a part fails](several-hosts.md#when-a-part-fails)). Every host uses the same "
                 "`url`, and a user of its own with rights on that database only; hosts × workers × `pool_max` stay under "
                 "the server's `max_connections`. [Three hosts by hand](several-hosts.md#three-hosts-by-hand-no-compose) "
                 "starts a server for a trial."),
    ]
    for name, keys in PLAIN_SECTIONS.items():
        lines += [f"## `[{name}]`", "", PLAIN_INTRO[name], "", "| key | default | meaning |", "| --- | --- | --- |",
                  *(f"| `{key}` | `{default}` | {meaning} |" for key, default, meaning in keys), ""]
    return "\n".join(lines).rstrip("\n") + "\n"


def pages() -> dict[Path, str]:
    return {HOST_PAGE: host_page(), OPERATOR_PAGE: operator_page()}


def main(argv: list[str]) -> int:
    stale = [path for path, text in pages().items()
             if not path.is_file() or path.read_text(encoding="utf-8") != text]
    if "--check" in argv:
        for path in stale:
            print(f"stale: {path} (run .venv/bin/python docs/gen_reference.py)")
        return 1 if stale else 0
    for path, text in pages().items():
        path.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
