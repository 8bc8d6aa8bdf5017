"""Every bound the engine puts on what a client or a host page can feed in: one place to read
and change them (docs/operators/limits.md; PROTOCOL.md, "Bounds").

A per-frame bound alone is not enough: inputs that accumulate (theme variables set call after
call, wallets announced one by one) have a total bound too, checked before the input is applied.
Input over a bound is refused with a typed error (`intent_ack invalid`, `error over_limit` or
`malformed`, `goodbye invalid_options` at join) and changes nothing.
"""

from __future__ import annotations

# ----- frames (PROTOCOL.md, "Limits")
MAX_FRAME_BYTES = 64 * 1024  # one client frame, encoded
RATE_BURST = 30.0  # intents per session: a token bucket of 30 …
RATE_PER_S = 30.0  # … refilled at 30 a second; beyond it `intent_ack rate_limited`
RING_SIZE = 256  # server frames a session keeps for a reconnect to replay …
RING_BYTES = 1024 * 1024  # … and their bytes at most (past either, a reconnect gets a snapshot)
INTENT_MEMORY = 256  # intent ids a session remembers (a retransmission is acked, not re-applied)
MAX_NESTING = 32  # levels of maps and lists in a client frame (the frame map is level 1)

# ----- join
ORIGIN_CHARS = 2048  # the handshake Origin header (the session keeps it); longer: bad_origin
PROJECT_ID_CHARS = 128
ENV_TIMEZONE_CHARS = 256
ENV_ORIGIN_CHARS = 2048
ENV_MAX_WIDTH = 100_000
MAX_ENV_LANGUAGES = 8  # join.env.languages: the browser's preferred languages, first ones kept
LOCALE_CHARS = 35  # a BCP 47 language tag: join.env.languages[], opts.locale

# ----- host options (join.opts, behaviour.md §1)
MAX_NETWORKS = 64  # networks, CAIP-2 ids
NETWORK_ID_CHARS = 128  # networks[], defaultNetwork, switch_network
METADATA_NAME_CHARS = 128
METADATA_DESCRIPTION_CHARS = 512
METADATA_URL_CHARS = 512
MAX_METADATA_ICONS = 8
ICON_URL_CHARS = 2048  # metadata.icons[], customWallets[].image_url
MAX_WALLET_IDS = 100  # featuredWalletIds, includeWalletIds, excludeWalletIds, each
WALLET_ID_CHARS = 128  # a directory wallet id, a custom wallet id
MAX_CUSTOM_WALLETS = 16
MAX_DECLARED_CONTRACTS = 32  # the host's `contracts` (issue 43: a call to another one is warned)
WALLET_NAME_CHARS = 128  # a custom wallet's or an announced wallet's name
WALLET_LINK_CHARS = 2048  # customWallets[] mobile, desktop and webapp links
MAX_SOCIALS = 16  # features.socials
SOCIAL_CHARS = 32
MAX_CONNECT_METHODS = 3  # features.connectMethodsOrder (email, social, wallet)
SIWX_STATEMENT_CHARS = 512
MAX_SIWX_RESOURCES = 16
SIWX_RESOURCE_CHARS = 512

# ----- theme (join.opts.themeVariables and the host call set_theme_variables)
MAX_THEME_VARIABLES = 32  # in one call, and in total in a session
THEME_KEY_CHARS = 64
THEME_VALUE_CHARS = 256

# ----- wallets the page announces (join.wallets, wallet_event announce): in total per session
MAX_ANNOUNCED_WALLETS = 32
WALLET_UUID_CHARS = 128
WALLET_ICON_CHARS = 16_384  # a data: URI
MAX_ANNOUNCED_ICON_CHARS = 131_072  # all announced wallets' icons together
WALLET_RDNS_CHARS = 256
MAX_RECENT_WALLETS = 2  # behaviour.md §1: recent wallets shown

# ----- what a wallet answers (wallet_event accountsChanged / chainChanged, effect results)
MAX_WALLET_ACCOUNTS = 32
WALLET_ACCOUNT_CHARS = 128
WALLET_CHAIN_CHARS = 32
WALLET_ERROR_CHARS = 4096  # an effect_result error message
MAX_WALLET_NAMESPACES = 2  # an announced wallet's `namespaces` (eip155, solana)
SOLANA_TRANSACTION_CHARS = 2_000  # a signed transaction (base64 of at most 1,232 bytes)
SOLANA_SIGNATURE_CHARS = 128  # a signMessage signature (base64 of 64 bytes is 88)

# ----- intents (PROTOCOL.md, "Intents")
INTENT_ID_CHARS = 64
NODE_ID_CHARS = 128
# a device key: the SubjectPublicKeyInfo of a browser's WebCrypto key (a P-256 one is 91 bytes)
DEVICE_KEY_SPKI_BYTES = 256
DEVICE_KEY_CHARS = 4 * -(-DEVICE_KEY_SPKI_BYTES // 3)  # its base64 (url): 344
# a companion join (PROTOCOL.md, "Companion"): the phone's device key and signature (64 bytes)
# in base64url, the engine's nonce
COMPANION_KEY_CHARS = DEVICE_KEY_CHARS
COMPANION_NONCE_CHARS = 128
COMPANION_SIGNATURE_CHARS = 88
ACTION_CHARS = 32
TEXT_INPUT_CHARS = 256  # change / submit: search text, send amount, send receiver, …
SELECT_CHARS = 128
VIEW_NAME_CHARS = 64

# ----- sign-in
MAX_OPEN_NONCES = 4  # unused SIWX nonces kept per engine session (older ones are dropped)

# ----- lists a session grows as the visitor scrolls
MAX_HISTORY_TRANSACTIONS = 200  # Activity: pages of 10 stop being offered past this
MAX_NAME_LOOKUPS = 24  # addresses whose names a session looks up: the account, Activity's counterparties
MAX_KNOWN_NAMES = 64  # names a session remembers (5 minutes each, behaviour.md §9); the oldest go first
MAX_NAME_SUGGESTIONS = 3  # free names offered while a name is typed
MAX_NFTS = 100  # NFTs kept from a scan of the account (the count of the rest is kept)
MAX_LISTED_WALLETS = 1000  # All Wallets: pages of 40 stop being offered past this (search finds the rest)

MAX_SWAP_TOKENS = 200  # tokens of a hosted swap token list kept for the pickers (the rest dropped)

# ----- demo mode only
MAX_LOCAL_ONRAMP_ORDERS = 1000  # the local onramp provider's open orders, engine-wide (the oldest dropped)

# ----- connection handling (operator settings are in server/config.py)
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

# A network's `simulation_ms` (how long an approval keeps Approve off waiting for its simulation):
# under 0.1 s no node answers; over 10 s the visitor waits on a check that only informs
MIN_SIMULATION_MS = 100
MAX_SIMULATION_MS = 10_000

# Saves that failed (the store down, issue 27) wait in memory to be retried: one, the newest, per
# session, at most this many sessions and bytes per engine process (past them the oldest waiting
# is dropped, logged and counted). Retries back off from SAVE_RETRY_FIRST_MS to SAVE_RETRY_MAX_MS.
UNSAVED_SESSIONS = 10_000
UNSAVED_BYTES = 64 * 1024 * 1024
SAVE_RETRY_FIRST_MS = 50
SAVE_RETRY_MAX_MS = 1000

# ----- WalletConnect (modalcore/walletconnect): what the relay connection may feed the engine
WC_MESSAGE_CHARS = 256 * 1024  # one relayed message; longer: dropped with a log line
WC_FRAME_BYTES = 1024 * 1024  # one relay websocket frame (beyond it the library closes, 1009)
WC_DEDUPE_IDS = 4096  # delivery ids and message digests remembered against replays
WC_BATCH_TOPICS = 500  # topics per irn_batchSubscribe / irn_batchUnsubscribe
WC_SEEN_REQUESTS = 64  # a wallet's request ids a dApp state remembers (a replay is dropped)
WC_AUTH_CACAOS = 16  # CACAOs in one wc_sessionAuthenticate answer (more: the answer is refused)
WC_AUTH_RESOURCES = 16  # resources of one authPayload or CACAO
WC_AUTH_RECAP_CHARS = 8192  # one `urn:recap:` resource
WC_AUTH_MESSAGE_CHARS = 8192  # a one-click sign-in's EIP-4361 message handed to siwx.verify
WC_AUTH_SIGNATURE_CHARS = 1024  # its signature

# ----- the embedded wallet (issue 15)
EMAIL_CHARS = 254  # an email address (RFC 5321's path); longer is 'Invalid email'
APPROVAL_BODY_BYTES = 2048  # POST /embedded/approve: larger is 400
APPROVAL_ID_CHARS = 128  # its session and request ids
APPROVAL_TIMEOUT_MS = 10 * 60 * 1000  # an approval not decided by then fails ("timeout")
SOCIAL_PENDING = 10_000  # social sign-ins between popup and callback, engine-wide (oldest dropped)
SOCIAL_PENDING_MS = 10 * 60 * 1000  # … each kept this long
# The linked phone's companion join (issue 44; PROTOCOL.md, "Companion"): its nonce joins once,
# within this time, and at most this many nonces wait for their join, engine-wide (oldest dropped)
COMPANION_NONCE_MS = 60 * 1000
COMPANION_NONCES = 10_000
SOCIAL_PARAM_CHARS = 4096  # a callback query value (longer is cut)
SOCIAL_USER_ID_CHARS = 128  # an OAuth 2.0 provider user endpoint's id (longer is refused)
SOCIAL_USER_NAME_CHARS = 64  # … its username / email (longer is cut)
SOCIAL_USER_EMAILS = 100  # entries of a GitHub-style /user/emails list read for the primary one

# The host dApp's EIP-1193 requests to the embedded wallet (host intent `rpc`, issue 15 §4)
HOST_RPC_ID_CHARS = 64  # the request id the renderer picks
HOST_RPC_METHOD_CHARS = 64  # an EIP-1193 method name
HOST_RPC_PARAMS = 8  # positional params
EMBEDDED_READ_CHARS = 65_538  # an eth_call or eth_getBalance answer the embedded wallet relays (0x + 32 KiB)
# wallet_getAssets (EIP-7811) params: chains in chainFilter / assetFilter, assets per chain in
# assetFilter, types in assetTypeFilter and the length of one type name; over them: -32602
ASSETS_CHAINS = 16
ASSETS_PER_CHAIN = 32
ASSETS_TYPES = 8
ASSET_TYPE_CHARS = 32
