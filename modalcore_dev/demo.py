"""`python -m modalcore_dev demo` (what `make run` starts): the two local chains with their
contracts and an ERC-4337 bundler each (alto, issue 32), the local Solana dev chain, the local WalletConnect relay, the engine (its
WalletConnect relay is that one), and the demo page on its own port (its own origin, the only one the demo project allows:
behaviour.md "Trust boundaries"), on 127.0.0.1; for the embedded wallet (issue
15) a local SMTP server whose mail is shown at /dev/mail (to read the sign-in code), and the local
OpenID provider as every social provider (google, x, discord, github, apple, facebook: one client
each) when `oidcprovider/` is installed.

The engine's port is checked before anything starts (a port in use stops here with what to do).
The chains listen on free ports by default, so two demos run side by side (the Dev Wallet
reaches them through the engine's `/devchain/{chainId}` proxy); `CHAIN_PORTS=8545,8546` pins
them. One line per RPC call is not logged (httpx stays at WARNING).
"""

from __future__ import annotations

import json
import logging
import logging.config
import os
import shutil
import socket
import subprocess
import sys
import threading
from collections.abc import Sequence, Iterable
from pathlib import Path

from modalcore_dev.demopage import create_page_app, demo_project
from modalcore_dev.devchain.bundler import BundlerStartError, DevBundler, start_bundlers, stop_bundlers
from modalcore_dev.devchain.deploy import deploy_all
from modalcore_dev.devchain.smart_accounts import dev_smart_accounts_section
from modalcore_dev.devmail import LocalSmtpServer
from modalcore_dev.devoidc import SCRIPT as OIDC_SCRIPT
from modalcore.keyfiles import create_once
from modalcore.flows.social import NAMES
from modalcore.rules.embedded import SOCIAL_PROVIDERS
from modalcore_dev.devoidc import DevOidcProvider, OidcProviderStartError
from modalcore_dev.devpage import PATH as MAIL_PATH
from modalcore_dev.devpage import mail_route
from modalcore.embedded.masterkey import MasterKey
from modalcore_dev.farcaster.devrelay import FarcasterRelayStartError, farcaster_section, start_farcaster_relay
from modalcore_dev.devchain.nodes import NodeStartError, ensure_node_modules, free_port, start_nodes, stop_nodes
from modalcore.server.config import dev_networks, parse_config
from modalcore.server.logs import log_config
from modalcore_dev.solana_devchain.network import solana_dev_network
from modalcore_dev.solana_devchain.process import SolanaDevchain, SolanaDevchainError
from modalcore_dev.solana_devchain.process import start as start_solana

CHAIN_IDS = (31337, 31338)
MASTER_KEY_FILE = Path(".modalcore/demo-master.key")


def demo_master_key(path: Path = MASTER_KEY_FILE) -> Path:
    """The demo's master key file (made once, owner-only): a real deployment brings its own
    (MODALCORE_MASTER_KEY or MODALCORE_MASTER_KEY_FILE, docs/features/embedded-wallet.md)."""
    if not path.exists():
        create_once(path, MasterKey.generate().hex())
    return path


def embedded_section(engine_url: str, smtp_port: int, provider: DevOidcProvider | None,
                     farcaster: dict[str, object] | None = None) -> dict[str, object]:
    """The demo's [embedded] section: the local SMTP server, the local OpenID provider as every
    social provider when it runs (its login page takes any name), and Farcaster through the
    local relay and the dev chain's ID registry."""
    section: dict[str, object] = {
        "db": ".modalcore/embedded.db", "master_key_file": str(demo_master_key().resolve()),
        "public_url": engine_url,
        "smtp": {"host": "127.0.0.1", "port": smtp_port, "tls": "none", "sender": "Modalcore demo <wallet@demo.test>"},
    }
    if provider is not None:
        section["socials"] = provider.socials_section()
    if farcaster is not None:
        section["farcaster"] = farcaster
    return section


def start_provider(engine_url: str) -> DevOidcProvider | None:
    if not (OIDC_SCRIPT.parent / "node_modules").is_dir():
        return None
    try:
        return DevOidcProvider.for_socials(engine_url, SOCIAL_PROVIDERS).start()
    except OidcProviderStartError:
        return None


WALLET_KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"  # Hardhat account #1
WALLETPEER = Path(__file__).resolve().parents[1] / "walletpeer" / "wallet.mjs"


def start_relay() -> tuple[subprocess.Popen[str], str]:
    """The local WalletConnect relay (`python -m modalcore_dev.walletconnect_relay`) on a free port."""
    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "modalcore_dev.walletconnect_relay", "--port", str(port)],
                               stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    line = process.stdout.readline()
    if "listening" not in line:
        process.terminate()
        raise NodeStartError(f"the WalletConnect relay did not start: {line.strip()}")
    return process, f"ws://127.0.0.1:{port}"


def _drain(lines: Iterable[str]) -> None:
    """Read a child's output so its pipe never fills (the page shows the events)."""
    for _ in lines:
        pass


def start_wallet_page(relay_url: str, rpc_urls: dict[int, str]) -> tuple[subprocess.Popen[str], str]:
    """The demo wallet page (walletpeer/page.mjs): the official sign-client wallet over Hardhat
    account #1, holding each proposal and request for a person's Approve or Reject."""
    node = shutil.which("node")
    if node is None:
        raise NodeStartError("the demo wallet needs node on PATH")
    chains = [arg for chain_id, url in sorted(rpc_urls.items()) for arg in ("--chain", f"{chain_id}={url}")]
    process = subprocess.Popen([node, str(WALLETPEER), "--relay", relay_url, "--key", WALLET_KEY, *chains,
                                "--policy", "ask", "--http", "0"],
                               stdout=subprocess.PIPE, stdin=subprocess.PIPE, text=True, cwd=WALLETPEER.parent)
    assert process.stdout is not None
    for line in process.stdout:
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if event.get("event") == "ready" and isinstance(event.get("page"), str):
            threading.Thread(target=_drain, args=(process.stdout,), daemon=True).start()
            return process, event["page"]
    process.terminate()
    raise NodeStartError("the demo wallet page did not start")


def wallet_command(relay_url: str, rpc_urls: dict[int, str]) -> str:
    """The command that pairs the test wallet (walletpeer, the official sign-client) by hand."""
    chains = " ".join(f"--chain {chain_id}={url}" for chain_id, url in sorted(rpc_urls.items()))
    return f"node {WALLETPEER} --relay {relay_url} --key {WALLET_KEY} {chains} --uri 'wc:...'"
# aiosmtpd logs ~11 lines per sign-in mail on "mail.log" (peer, each SMTP command): the dev mail
# server is a stand-in, its traffic is not the operator's news.
QUIET_LOGGERS = ("httpx", "httpcore", "mail.log")


def port_problem(host: str, port: int) -> str | None:
    """Why the engine cannot listen on host:port, with what to do; None when it can."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        try:
            probe.bind((host, port))
        except OSError as error:
            return (f"{host}:{port} is not available ({error.strerror or error}). Another demo or "
                    f"program is using it: stop it (Ctrl-C in its terminal), or run on another port: "
                    f"make run PORT={port + 1}")
    return None


def chain_ports(setting: str | None) -> dict[int, int]:
    """Ports for the two chains: `CHAIN_PORTS=8545,8546` as given, otherwise free ones."""
    if setting:
        ports = [int(p) for p in setting.replace(" ", "").split(",") if p]
        if len(ports) != len(CHAIN_IDS):
            raise ValueError(f"CHAIN_PORTS needs {len(CHAIN_IDS)} ports, got {setting!r}")
        return dict(zip(CHAIN_IDS, ports, strict=True))
    return {chain_id: free_port() for chain_id in CHAIN_IDS}


def quiet_logging() -> None:
    """`serve`'s format (server/logs.py: `time pid level logger message`), httpx at WARNING."""
    logging.config.dictConfig(log_config())
    for name in QUIET_LOGGERS:
        logging.getLogger(name).setLevel(logging.WARNING)


def preflight(host: str, port: int) -> dict[int, int]:
    """The chains' ports, once the engine's port and theirs are known to be free; ValueError
    says which one is not (before anything starts)."""
    problem = port_problem(host, port)
    if problem is not None:
        raise ValueError(problem)
    ports = chain_ports(os.environ.get("CHAIN_PORTS"))
    for chain_id, chain_port in ports.items():
        problem = port_problem("127.0.0.1", chain_port)
        if problem is not None:
            raise ValueError(f"chain {chain_id}: {problem.split(' Another')[0]} Pick other CHAIN_PORTS "
                             "or leave CHAIN_PORTS unset (free ports).")
    return ports


PAGE_LINE = "  Modalcore demo page: {page}/   ({note})"
ENGINE_LINE = "  engine (PORT={port}):  {engine}   (its own origin: the approval frame and /dev/mail are served there)"


def print_page_first(page_url: str, engine_url: str, port: int) -> None:
    """The page to open, before the chains and rigs start (issue 39 item 8): `PORT=` is the
    engine's port; the page has a port of its own, chosen free at start."""
    print(PAGE_LINE.format(page=page_url, note="it answers once everything below has started"), flush=True)
    print(ENGINE_LINE.format(port=port, engine=engine_url), flush=True)
    print("starting the chains, the relay, the rigs and the engine...\n", flush=True)


def print_addresses(engine_url: str, page_url: str, port: int, rpc_urls: dict[int, str],
                    smtp_port: int, provider: DevOidcProvider | None, solana: SolanaDevchain,
                    relay_url: str, wallet_page: str, farcaster_url: str,
                    bundler_urls: dict[int, str]) -> None:
    """Where everything the demo started listens, for the person who ran `make run`: the rigs
    first, the engine and the demo page last (the page's line is the terminal's last)."""
    for chain_id, url in sorted(rpc_urls.items()):
        print(f"chain {chain_id}: {url}", flush=True)
    print(f"chain {solana.caip2}: {solana.rpc_url}", flush=True)
    for chain_id, url in sorted(bundler_urls.items()):
        print(f"bundler eip155:{chain_id} (alto, EntryPoint v0.7): {url}", flush=True)
    print(f"email codes: {engine_url}{MAIL_PATH}   (local SMTP on 127.0.0.1:{smtp_port})", flush=True)
    if provider is not None:
        names = ", ".join(NAMES[p] for p in provider.clients)
        print(f"social sign-in: {names} are the local OpenID provider {provider.issuer}", flush=True)
    print(f"demo Farcaster client (Continue with Farcaster, then approve there): {farcaster_url}/client",
          flush=True)
    print(f"walletconnect relay: {relay_url}", flush=True)
    print(f"demo wallet (WalletConnect → Copy link, paste it there): {wallet_page}", flush=True)
    print("or pair the test wallet from a shell:\n  " + wallet_command(relay_url, rpc_urls), flush=True)
    print("", flush=True)
    print(ENGINE_LINE.format(port=port, engine=engine_url), flush=True)
    print(f"  with Solana:         {page_url}/?networks={solana.caip2},eip155:31337,eip155:31338", flush=True)
    print(PAGE_LINE.format(page=page_url, note="open this; stop: Ctrl-C") + "\n", flush=True)


def run(host: str, port: int, record_dir: str | None = None, record_name: str | None = None,
        allow_origins: Sequence[str] = ()) -> int:
    import uvicorn

    from modalcore.server.app import create_app, uvicorn_options

    from modalcore_dev.rigs import dev_rigs

    try:
        ports = preflight(host, port)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    ensure_node_modules()
    try:
        nodes = start_nodes(ports)
    except NodeStartError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    smtp = LocalSmtpServer().start()
    engine_url = f"http://{host}:{port}"
    page_port = free_port()  # the demo page's own origin (behaviour.md "Trust boundaries")
    page_url = f"http://{host}:{page_port}"
    print_page_first(page_url, engine_url, port)
    provider = start_provider(engine_url)
    relay: subprocess.Popen[str] | None = None
    farcaster_relay: subprocess.Popen[bytes] | None = None
    wallet: subprocess.Popen[str] | None = None
    solana: SolanaDevchain | None = None
    bundlers: list[DevBundler] = []
    page: uvicorn.Server | None = None
    try:
        relay, relay_url = start_relay()
        solana = start_solana()
        rpc_urls = {node.chain_id: node.rpc_url for node in nodes}
        deployment = deploy_all(rpc_urls, expected_path=None)
        bundlers = start_bundlers(rpc_urls)
        bundler_urls = {b.chain_id: b.url for b in bundlers}
        wallet, wallet_page = start_wallet_page(relay_url, rpc_urls)
        farcaster_relay, farcaster_url = start_farcaster_relay()
        farcaster = farcaster_section(farcaster_url, deployment[str(min(rpc_urls))], page_url)
        config = parse_config({
            "projects": {"demo": demo_project(host, page_port, allow_origins)},
            "networks": {**dev_networks(rpc_urls, deployment), **solana_dev_network(solana.rpc_url)},
            "store": {"kind": "sqlite", "path": ".modalcore/sessions.db"},
            "devchain_proxy": True,  # the Dev Wallet reaches the chains through /devchain
            "demo_page": True,  # the page (on its own origin) loads demo.js from the engine
            "walletconnect": {"relay_url": relay_url},
            "public_url": engine_url,  # the local onramp page (Buy) is served there
            "directory": {"public_url": engine_url},  # wallet images: the engine's, not the page's origin
            "embedded": embedded_section(engine_url, smtp.port, provider, farcaster),
            "smart_accounts": dev_smart_accounts_section(deployment, bundler_urls),
        })
        quiet_logging()
        print_addresses(engine_url, page_url, port, rpc_urls, smtp.port, provider, solana, relay_url, wallet_page,
                        farcaster_url, bundler_urls)
        page = uvicorn.Server(uvicorn.Config(create_page_app(config.static_path(), engine_url),
                                             host=host, port=page_port, log_level="warning",
                                             log_config=log_config()))
        page_thread = threading.Thread(target=page.run, name="demo-page", daemon=True)
        page_thread.start()
        app = create_app(config, record_dir=record_dir, record_name=record_name, rigs=dev_rigs(config))
        app.router.routes.append(mail_route(smtp.mailbox))  # demo only: read the codes
        uvicorn.run(app, host=host, port=port, log_level="warning", log_config=log_config(),
                    **uvicorn_options())
    except (NodeStartError, SolanaDevchainError, FarcasterRelayStartError, BundlerStartError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    finally:
        if page is not None:
            page.should_exit = True
        if solana is not None:
            solana.stop()
        if wallet is not None:
            wallet.terminate()
            wallet.wait(10)
        if relay is not None:
            relay.terminate()
            relay.wait(10)
        if farcaster_relay is not None:
            farcaster_relay.terminate()
            farcaster_relay.wait(10)
        stop_bundlers(bundlers)
        stop_nodes(nodes)
        smtp.stop()
        if provider is not None:
            provider.stop()
    return 0
