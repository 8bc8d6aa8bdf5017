"""Every user-visible string of docs/contributors/behaviour.md the engine shows, raises or sends,
defined once (issue 12 item 9).

Quoted exactly as behaviour.md quotes them; its section is named beside each. Modules import these names and
never repeat the text: tests/test_spec_index.py fails on a copy anywhere else in `modalcore`.
Templates (`{n}`, `{chain}`) are filled with `str.format`.
"""

from __future__ import annotations

# §5 Validation rules
INVALID_CAIP10 = "Invalid CAIP-10 address"
INVALID_CAIP2 = "Invalid CAIP-2 network id"
INVALID_CHAIN_ID = "Invalid chainId"
AMOUNT_AND_RECEIVER_REQUIRED = "An amount and receiver address are required"
TOKEN_REQUIRED = "A token is required"
BOTH_SIWE_AND_SIWX = "Cannot set both `siweConfig` and `siwx` options"
RPC_CALL_NOT_ALLOWED = "Requested RPC call is not allowed"
ACTION_NOT_ALLOWED = "Action not allowed"  # the UI's words for it
ZERO_BALANCE = "0.00"  # unsupported namespace or test network
ZERO_AMOUNT = "0.000"  # a balance floored to 3 decimals

# §8 Error catalogue: snack messages
TOKEN_BALANCE_UNAVAILABLE = "Token Balance Unavailable"
FAILED_TO_FETCH_TRANSACTIONS = "Failed to fetch transactions"
SIWX_INIT_FAILED = "A problem occurred while trying initialize authentication"
SMART_ACCOUNTS = "This application might not support Smart Accounts"
SIGNATURE_DECLINED = "Signature declined"
AUTHENTICATING = "Authenticating..."

# §8 alerts
INVALID_APP_CONFIGURATION = "Invalid App Configuration"

# §8 thrown or reported
UNSUPPORTED_CHAIN = "Unsupported chain"
NO_ACTIVE_CAIP_ADDRESS = "No ActiveCaipAddress found"
NO_ACCOUNT_ADDRESS_FOR_TRANSACTIONS = "Transactions can't be fetched without an accountAddress"
HTTP_STATUS = "HTTP status code: {n}"
CHAIN_NOT_SUPPORTED = "Chain is not supported"
EMAIL_CODE_RATE_LIMITED = "Please try again after {n} seconds"  # n rounded up

# §8 disconnect
FAILED_TO_DISCONNECT = "Failed to disconnect"
FAILED_TO_DISCONNECT_CHAIN = "Failed to disconnect chain {chain}: {reason}"

# §8 name errors (account names)
ERROR_RESOLVING_NAME = "Error resolving name"
ERROR_NAME_SUGGESTIONS = "Error fetching name suggestions"
ERROR_NAMES_FOR_ADDRESS = "Error fetching names for address"
ERROR_REGISTERING_NAME = "Error registering name {name}"
NETWORK_NOT_FOUND = "Network not found"
NO_ADDRESS_OR_AUTH = "Address or auth connector not found"

# §8 error parsing
UNKNOWN_ERROR = "Unknown error"

# §9 constants
SDK_TYPE = "html-wagmi-4.2.2"


def email_code_rate_limited(seconds: int) -> str:
    return EMAIL_CODE_RATE_LIMITED.format(n=seconds)


def http_status(code: int) -> str:
    return HTTP_STATUS.format(n=code)


def error_registering_name(name: str) -> str:
    return ERROR_REGISTERING_NAME.format(name=name)


def failed_to_disconnect_chain(chain: str, reason: str) -> str:
    return FAILED_TO_DISCONNECT_CHAIN.format(chain=chain, reason=reason)
