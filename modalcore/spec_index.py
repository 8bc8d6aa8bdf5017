"""Where each section of docs/contributors/behaviour.md has its rules (issue 12 item 9):
section -> topic -> modules, and section -> the pages that state its rules (`PAGES`).

A comment that cites "behaviour.md §4" means section 4 of that page; read the page for the rule
and this index for the modules that follow it. tests/test_spec_index.py checks that every module
named here exists, every section 1-9 is listed, and every page and anchor in `PAGES` exists.
The quoted strings themselves are in `modalcore.rules.texts`.
Views of behaviour.md §2 that have no module yet are listed under "not built" (see
`slices.router.VIEWS`).
"""

from __future__ import annotations

SPEC_INDEX: dict[str, dict[str, tuple[str, ...]]] = {
    "1. What the product does and for whom": {
        "host options and feature flags": ("modalcore.slices.options",),
        "account view features (onramp, swaps, receive, send)": ("modalcore.views.account",),
    },
    "2. Screens and routes": {
        "views (one module each)": ("modalcore.views", "modalcore.slices.router"),
        "opening rules, closing, shake": ("modalcore.slices.modal",),
        "stack rules, transaction stack": ("modalcore.slices.router",),
        "header and host navigation": ("modalcore.slices.navigation",),
        "account tabs": ("modalcore.slices.account_ui", "modalcore.views.account"),
        "RegisterAccountName, RegisterAccountNameSuccess": (
            "modalcore.views.register_account_name", "modalcore.views.register_account_name_success"),
        "continue on your phone (issue 44)": (
            "modalcore.slices.handoff", "modalcore.views.continue_on_phone", "modalcore.server.handoff",
            "modalcore.server.handoff_confirm", "modalcore.server.handoff_code"),
        "not built (no view module): ConnectingWalletConnect, ConnectingSiwe, "
        "ApproveTransaction, Swap": (),
    },
    "3. Entities and their fields": {
        "wallet (directory)": ("modalcore.directory.domain.wallets",),
        "connector": ("modalcore.slices.connectors",),
        "network": ("modalcore.slices.networks", "modalcore.chains.catalog"),
        "account state per namespace": ("modalcore.slices.accounts",),
        "token balance, wallet asset": ("modalcore.slices.balances", "modalcore.services.backend.balances"),
        "send state": ("modalcore.slices.send_form",),
        "transaction and its store": ("modalcore.slices.history", "modalcore.services.backend.history"),
        "snack message": ("modalcore.slices.snack",),
        "theme": ("modalcore.slices.theme",),
        "SIWX session and message": ("modalcore.siwx.domain.message", "modalcore.siwx.backend.store"),
    },
    "4. States and transitions": {
        "connect, reconnect after reload": ("modalcore.flows.connect", "modalcore.slices.connecting"),
        "disconnect": ("modalcore.flows.disconnect", "modalcore.slices.disconnect"),
        "switching network, wallet chain and account changes": ("modalcore.slices.switching",),
        "send": ("modalcore.slices.send_tx", "modalcore.slices.send_fee", "modalcore.services.domain.transfer", "modalcore.services.backend.send"),
        "snack": ("modalcore.slices.snack",),
        "balance fetch": ("modalcore.slices.balances",),
        "transactions": ("modalcore.slices.history",),
        "SIWX": ("modalcore.slices.siwx", "modalcore.flows.signin", "modalcore.siwx.backend.verify"),
        "NFTs tab": ("modalcore.slices.nfts", "modalcore.services.backend.nfts"),
        "name registration": ("modalcore.slices.register_name", "modalcore.services.backend.name_registry"),
        "names for addresses, send to a name": ("modalcore.slices.names", "modalcore.slices.send_name"),
    },
    "5. Validation rules": {
        "CAIP-10, CAIP-2, EVM chain id": ("modalcore.rules.caip",),
        "EVM and Solana addresses": ("modalcore.rules.addresses",),
        "send amount, receiver, token": ("modalcore.slices.send_form",),
        "spam and chain filters on transactions": ("modalcore.slices.history",),
        "balance display, fiat": ("modalcore.rules.format",),
        "Telegram socials, mobile wallets": ("modalcore.directory.domain.platform",),
        "siweConfig and siwx together": ("modalcore.slices.options",),
        "origin allow-list": ("modalcore.server.origins",),
        "email-code requests one per 30 s": ("modalcore.embedded.otp",),
        "social provider of a sign-in": ("modalcore.embedded.oidc",),
        "account name, what registration needs": ("modalcore.rules.names",),
    },
    "6. Roles and permissions": {
        "allowed origins": ("modalcore.server.origins", "modalcore.server.endpoint"),
        "feature flags": ("modalcore.slices.options",),
    },
    "7. Calls": {
        "wallet directory API": ("modalcore.directory.backend.hosted", "modalcore.directory.domain.query",
                                 "modalcore.directory.backend.routes"),
        "blockchain API": ("modalcore.services.backend.blockchain_api", "modalcore.services.backend.hosted"),
        "history call": ("modalcore.services.backend.history",),
        "sessions (SIWX) for the host's backend": ("modalcore.siwx.backend.http",),
        "chain RPC": ("modalcore.services.backend.jsonrpc", "modalcore.services.backend.send"),
        "analytics": ("modalcore.ports.analytics", "modalcore.analytics.sinks"),
        "profile (name) endpoints, ENS over eth_call": ("modalcore.services.backend.profile_api", "modalcore.services.backend.ens",
                                                       "modalcore.services.backend.names"),
    },
    "8. Error catalogue": {
        "every quoted message": ("modalcore.rules.texts",),
        "name errors": ("modalcore.rules.names",),
        "RPC codes": ("modalcore.rules.rpc_errors",),
        "tracking events": ("modalcore.slices.send_tx", "modalcore.slices.history", "modalcore.slices.siwx"),
    },
    "9. Business constants and limits": {
        "wallet list pages, search, recommended": ("modalcore.slices.directory_listing", "modalcore.slices.directory_search", "modalcore.directory.domain.query"),
        "balance retry window, caches": ("modalcore.slices.balances",),
        "snack re-show delay, modal shake": ("modalcore.slices.snack", "modalcore.slices.modal"),
        "recent wallets": ("modalcore.slices.connectors",),
        "default allowed ancestors": ("modalcore.server.origins",),
        "email code rate limit 30 s": ("modalcore.embedded.otp",),
        "modal theme defaults": ("modalcore.slices.theme",),
        "sdk type string": ("modalcore.rules.texts", "modalcore.services.backend.hosted"),
        "names: eip155 only, suffix, ENS cached 5 minutes": ("modalcore.rules.names", "modalcore.slices.names"),
    },
}

# The pages that state each section's rules, in our words (paths from the repository root).
PAGES: dict[str, tuple[str, ...]] = {
    "1. What the product does and for whom": (
        "docs/contributors/behaviour.md#s1",
        "docs/features/connect.md",
        "docs/hosts/options.md",
    ),
    "2. Screens and routes": (
        "docs/contributors/behaviour.md#s2",
        "docs/features/connect.md",
        "docs/features/continue-on-phone.md",
    ),
    "3. Entities and their fields": (
        "docs/contributors/behaviour.md#s3",
    ),
    "4. States and transitions": (
        "docs/contributors/behaviour.md#s4",
        "docs/features/names.md",
        "docs/features/solana.md",
    ),
    "5. Validation rules": (
        "docs/contributors/behaviour.md#s5",
        "docs/operators/security.md#allowed-origins",
    ),
    "6. Roles and permissions": (
        "docs/contributors/behaviour.md#s6",
        "docs/features/embedded-wallet.md",
    ),
    "7. Calls": (
        "docs/contributors/behaviour.md#s7",
        "docs/features/walletconnect.md",
        "docs/operators/analytics.md",
    ),
    "8. Error catalogue": (
        "docs/contributors/behaviour.md#s8",
    ),
    "9. Business constants and limits": (
        "docs/contributors/behaviour.md#s9",
        "docs/features/swap-buy.md",
        "docs/hosts/theming.md",
    ),
}
