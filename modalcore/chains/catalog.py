"""Networks by CAIP-2 id: a built-in list of well-known chains plus what the operator configures."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class NativeCurrency:
    name: str
    symbol: str
    decimals: int


@dataclass(frozen=True)
class Token:
    address: str
    symbol: str
    name: str
    decimals: int
    price: float | None = None  # USD, when the operator knows it
    icon_url: str = ""


# How long an approval waits for the node's simulation and the bundler's check before it shows
# the outcome estimated from the call data (issue 43: a simulation never blocks an approval longer);
# a network's `simulation_ms` sets its own
SIMULATION_MS = 1500


@dataclass(frozen=True)
class Network:
    id: str  # CAIP-2
    name: str
    native: NativeCurrency
    rpc_urls: tuple[str, ...] = ()
    explorer_url: str = ""
    testnet: bool = False
    image_url: str = ""
    native_price: float | None = None
    tokens: tuple[Token, ...] = field(default_factory=tuple)
    ens_registry: str = ""  # the chain's ENS registry (names for addresses, behaviour.md §7), if any
    # the operator runs ERC-4337 smart accounts here (issue 32): an embedded sign-in's account on
    # this chain is its counterfactual smart account (slices/smart_account.py)
    smart_accounts: bool = False
    # the projects whose EIP-5792 batches the operator's verifying paymaster sponsors here
    # ([smart_accounts.sponsor]; wallet_getCapabilities' paymasterService, flows/calls.py)
    sponsored_projects: tuple[str, ...] = ()
    # the projects whose smart-account eth_sendTransaction the paymaster sponsors here (the same
    # policy for that method): the Send and Swap previews show the fee as sponsored
    sponsored_send_projects: tuple[str, ...] = ()
    simulation_ms: int = SIMULATION_MS  # the approval's wait for its simulation here (flows/simulation.py)

    @property
    def namespace(self) -> str:
        return self.id.split(":", 1)[0]

    @property
    def reference(self) -> str:
        return self.id.split(":", 1)[1]

    @property
    def chain_id_hex(self) -> str:
        return hex(int(self.reference))


ETH = NativeCurrency("Ether", "ETH", 18)
SOL = NativeCurrency("Solana", "SOL", 9)

# Solana CAIP-2 ids: `solana:` + the first 32 characters of the cluster's genesis hash (CAIP-30)
SOLANA_MAINNET = "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp"
SOLANA_DEVNET = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1"
SOLANA_TESTNET = "solana:4uhcVJyU9pJkvQyS88uRDiswHXSCkY3z"
SOLANA_LOCAL = "solana:CmpNeggWJ4JaWJeJ8YKN1Zypmk7uvQq3"  # LiteSVM's genesis blockhash
# Wallet Standard names the clusters instead (solana:mainnet, ...); any other is a local one
WALLET_STANDARD_CHAINS = {SOLANA_MAINNET: "solana:mainnet", SOLANA_DEVNET: "solana:devnet",
                          SOLANA_TESTNET: "solana:testnet"}


def wallet_standard_chain(network_id: str) -> str:
    """The Wallet Standard chain id of a Solana CAIP-2 network (`solana:localnet` for others)."""
    return WALLET_STANDARD_CHAINS.get(network_id, "solana:localnet")

BUILTIN: tuple[Network, ...] = (
    Network("eip155:1", "Ethereum", ETH, ("https://cloudflare-eth.com",), "https://etherscan.io"),
    Network("eip155:10", "OP Mainnet", ETH, ("https://mainnet.optimism.io",), "https://optimistic.etherscan.io"),
    Network("eip155:137", "Polygon", NativeCurrency("POL", "POL", 18), ("https://polygon-rpc.com",), "https://polygonscan.com"),
    Network("eip155:42161", "Arbitrum One", ETH, ("https://arb1.arbitrum.io/rpc",), "https://arbiscan.io"),
    Network("eip155:8453", "Base", ETH, ("https://mainnet.base.org",), "https://basescan.org"),
    Network("eip155:56", "BNB Smart Chain", NativeCurrency("BNB", "BNB", 18), ("https://bsc-dataseed.binance.org",), "https://bscscan.com"),
    Network("eip155:43114", "Avalanche", NativeCurrency("Avalanche", "AVAX", 18), ("https://api.avax.network/ext/bc/C/rpc",), "https://snowtrace.io"),
    Network("eip155:11155111", "Sepolia", NativeCurrency("Sepolia Ether", "ETH", 18), ("https://rpc.sepolia.org",), "https://sepolia.etherscan.io", testnet=True),
    Network("eip155:31337", "Hardhat", ETH, ("http://127.0.0.1:8545",), testnet=False),
    Network("eip155:31338", "Hardhat Two", ETH, ("http://127.0.0.1:8546",), testnet=False),
    Network(SOLANA_MAINNET, "Solana", SOL, ("https://api.mainnet-beta.solana.com",), "https://solscan.io"),
    Network(SOLANA_DEVNET, "Solana Devnet", SOL, ("https://api.devnet.solana.com",),
            "https://explorer.solana.com/?cluster=devnet", testnet=True),
    Network(SOLANA_TESTNET, "Solana Testnet", SOL, ("https://api.testnet.solana.com",),
            "https://explorer.solana.com/?cluster=testnet", testnet=True),
    # the local Solana dev chain (python -m modalcore_dev.solana_devchain); like the Hardhat nodes a
    # non-test network, so its balances show; `make run` and the tests set its RPC URL
    Network(SOLANA_LOCAL, "Solana Local", SOL, ("http://127.0.0.1:8899",), testnet=False,
            tokens=(Token("DT7iqkXzuftKJvyjkgx35cJNRQZmw246qtHqnetM1bJV", "DUSD", "Dev USD", 6, 1.0),)),
)


def catalog(overrides: Iterable[Network] = ()) -> dict[str, Network]:
    merged = {network.id: network for network in BUILTIN}
    merged.update({network.id: network for network in overrides})
    return merged


def pick(known: Mapping[str, Network], ids: Iterable[str]) -> tuple[Network, ...]:
    """The networks the host asked for; unknown ids get an unsupported-network placeholder."""
    return tuple(known.get(network_id) or placeholder(network_id) for network_id in ids)


def placeholder(network_id: str) -> Network:
    reference = network_id.split(":", 1)[-1]
    return Network(network_id, f"Unknown Network ({reference})", NativeCurrency("", "", 18))
